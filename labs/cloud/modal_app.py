"""Every lab on NCCL and the all-reduce benchmark on Modal's GPUs, in one command.

    modal run labs/cloud/modal_app.py                        # 8x H100 (GPU below)
    NCCL_COURSE_MODAL_GPU=A100-80GB:8 modal run labs/cloud/modal_app.py

Run it from the repository root after ``make cloud`` (Modal's client, pinned in
requirements/cloud.txt) and ``modal setup`` (your token). The image is Debian slim with the
course set up at build time: torch by ``scripts/install_torch.py`` on one GPU of the same kind
(so it picks the CUDA build Modal's driver runs and checks that torch sees the GPU; cached until
that script changes), then this repository copied in and ``make setup-labs`` on a CPU builder
(cached until a file changes). The function runs ``labs/gpu_check.sh`` and ``nccl-course
report`` on the GPUs and returns the results bundle as tar.gz bytes; the local entrypoint unpacks
it into ``./results/modal-<UTC time>/`` and prints where. Modal bills the GPUs from container
start to function end, and FUNCTION_TIMEOUT_S stops a hung run.

This file imports without a Modal token or a network (the tests check it): nothing here talks
to Modal until ``modal run``.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import time
from pathlib import Path

import modal

# The GPUs of one container: "TYPE:COUNT". Modal's GPU types and the most one container can have
# (Modal's GPU guide, modal.com/docs/guide/gpu): 8 of B200, H200, H100, A100 (40 or 80 GB), L40S,
# L4 and T4, 4 of A10. Two or more, since NCCL between one GPU and itself teaches nothing.
# Allowed: B200:2 .. B200:8, H200:2 .. H200:8, H100:2 .. H100:8, A100-80GB:2 .. A100-80GB:8,
# A100-40GB:2 .. A100-40GB:8, L40S:2 .. L40S:8, L4:2 .. L4:8, T4:2 .. T4:8, A10:2 .. A10:4.
MOST_GPUS_PER_CONTAINER = {
    "B200": 8,
    "H200": 8,
    "H100": 8,
    "A100-80GB": 8,
    "A100-40GB": 8,
    "L40S": 8,
    "L4": 8,
    "T4": 8,
    "A10": 4,
}
ALLOWED_GPUS = tuple(
    f"{kind}:{count}"
    for kind, most in MOST_GPUS_PER_CONTAINER.items()
    for count in range(2, most + 1)
)
DEFAULT_GPU = "H100:8"
GPU_ENV = "NCCL_COURSE_MODAL_GPU"
GPU = os.environ.get(GPU_ENV, DEFAULT_GPU).strip()
if GPU not in ALLOWED_GPUS:
    raise SystemExit(
        f"{GPU_ENV}={GPU!r} is not a GPU this app knows; use TYPE:COUNT, e.g. {DEFAULT_GPU},"
        f" from: {', '.join(ALLOWED_GPUS)}"
    )

# Seconds the function may run before Modal stops it (and its billing). labs/gpu_check.sh takes
# about 5 minutes on 8 GPUs; its own per-step limits could add up to more, so it gets
# GPU_CHECK_BUDGET_S and the rest is left to write the report and pack the bundle.
FUNCTION_TIMEOUT_S = 40 * 60
GPU_CHECK_BUDGET_S = FUNCTION_TIMEOUT_S - 5 * 60

# Image build steps run without a GPU unless given one, and scripts/install_torch.py would then
# install the CPU build. It runs on one GPU of the kind the function gets, so it sees Modal's
# driver; `make setup-labs` keeps that torch (its venv sees the image's packages).
BUILD_GPU = GPU.split(":")[0]
PYTHON_VERSION = "3.11"
REMOTE_REPO = "/root/nccl-course"
REMOTE_RESULTS = "/tmp/results"
# Not copied into the image (dockerignore patterns, relative to the repository): local venvs and
# builds, the book's JavaScript and audio, earlier results.
NOT_COPIED = [
    ".git",
    ".venv",
    ".venv-sky",
    "node_modules",
    "_build",
    ".jupyter_cache",
    ".pytest_cache",
    ".ruff_cache",
    "**/__pycache__",
    "src/*.egg-info",
    "narration",
    "results",
    "gpu-check-results",
]
# The exit status of labs/gpu_check.sh, added to the bundle (0: every step passed).
STATUS_FILE = "gpu-check-exit-status.txt"

# Locally the repository is two folders up; in the container this file sits alone under /root.
REPO = Path(__file__).resolve().parents[2] if modal.is_local() else Path(REMOTE_REPO)

image = (
    modal.Image.debian_slim(python_version=PYTHON_VERSION)
    .apt_install("make")
    .add_local_file(REPO / "scripts" / "install_torch.py", "/opt/install_torch.py", copy=True)
    .run_commands("python3 /opt/install_torch.py", gpu=BUILD_GPU)
    .add_local_dir(REPO, REMOTE_REPO, copy=True, ignore=NOT_COPIED)
    .run_commands(f"cd {REMOTE_REPO} && make setup-labs")
)
app = modal.App("nccl-course-gpu-check", image=image)


def pack_bundle(folder: Path) -> bytes:
    """The files under ``folder`` as tar.gz bytes, named relative to it (links left out)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.add(path, arcname=path.relative_to(folder).as_posix())
    return buffer.getvalue()


def unpack_bundle(data: bytes, folder: Path) -> list[Path]:
    """Unpack tar.gz ``data`` into ``folder`` (created) and return the files written.

    Only regular files inside ``folder`` are written: the archive comes from another machine."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            target = (folder / member.name).resolve()
            if not member.isfile() or not target.is_relative_to(folder.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.extractfile(member).read())
            written.append(target)
    return written


@app.function(gpu=GPU, timeout=FUNCTION_TIMEOUT_S)
def gpu_check() -> bytes:
    """Run labs/gpu_check.sh and the report on this container's GPUs; the bundle as tar.gz."""
    results = Path(REMOTE_RESULTS)
    check = ["bash", "labs/gpu_check.sh", str(results)]
    limited = ["timeout", "--kill-after=30", str(GPU_CHECK_BUDGET_S), *check]
    status = subprocess.run(limited, cwd=REMOTE_REPO).returncode
    results.mkdir(parents=True, exist_ok=True)
    (results / STATUS_FILE).write_text(f"{status}\n")
    report = [f"{REMOTE_REPO}/.venv/bin/nccl-course", "report", str(results)]
    subprocess.run(report, cwd=REMOTE_REPO)
    return pack_bundle(results)


@app.local_entrypoint()
def main() -> None:
    folder = Path("results") / time.strftime("modal-%Y%m%d-%H%M%S", time.gmtime())
    print(f"running labs/gpu_check.sh on Modal with {GPU} (stops after {FUNCTION_TIMEOUT_S} s)")
    unpack_bundle(gpu_check.remote(), folder)
    summary = folder / "summary.txt"
    if summary.is_file():
        print(summary.read_text(encoding="utf-8"), end="")
    print(f"results bundle: {folder}/ (open {folder}/report.html)")
    status_file = folder / STATUS_FILE
    status = status_file.read_text().strip() if status_file.is_file() else "missing"
    if status != "0":
        raise SystemExit(f"labs/gpu_check.sh exit status {status}: see {summary}")
