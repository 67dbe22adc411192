"""Install the pinned torch into the current interpreter without pulling the wrong build.

Rules, in order:
1. A torch that already imports is kept as it is (a CUDA build on a GPU box is never replaced),
   unless --force is given.
2. On Linux without an NVIDIA driver, the CPU build (``torch==X+cpu``) is installed: first from
   whatever pip already sees (a local wheel folder or a mirror), then from PyTorch's CPU index.
   Plain ``pip install torch`` on Linux would download a multi-GB CUDA build.
3. With an NVIDIA driver (``nvidia-smi`` works), a CUDA build the driver can run: the driver
   prints the newest CUDA it supports ("CUDA Version: 12.4" in ``nvidia-smi``'s header). PyPI's
   default Linux wheel of torch 2.13 is built with CUDA 13.0 and needs a driver that supports
   13.0 (R580+); an older driver gets the newest of PyTorch's CUDA 12 builds it can run, from
   PyTorch's index for that CUDA (``cu128``, ``cu126``; CUDA's minor-version compatibility lets
   a 12.x build run on any CUDA 12 driver, but the closer the better). A driver older than
   CUDA 12 is refused with what to do. After installing, torch must see the GPUs, or the script
   says so and exits 1 (a wheel that quietly falls back to the CPU is how labs end up on gloo).
4. On macOS and Windows PyPI's wheels are CPU builds already.

Environment: TORCH_VERSION (default below), TORCH_CPU_INDEX_URL (default PyTorch's CPU index),
TORCH_CUDA_INDEX_URL (a PyTorch CUDA index to use instead of the one the rule picks).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys

DEFAULT_TORCH_VERSION = "2.13.0"
DEFAULT_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: The CUDA that PyPI's default Linux wheel of DEFAULT_TORCH_VERSION is built with.
PYPI_WHEEL_CUDA = (13, 0)
#: PyTorch's CUDA 12 indexes, newest first: (CUDA the build needs, index URL).
CUDA12_INDEXES = (
    ((12, 8), "https://download.pytorch.org/whl/cu128"),
    ((12, 6), "https://download.pytorch.org/whl/cu126"),
)


def installed_torch() -> str | None:
    """Return the version string of an importable torch, or None."""
    probe = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def has_nvidia_driver() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


def driver_cuda(smi_header: str) -> tuple[int, int] | None:
    """The newest CUDA the driver supports, from ``nvidia-smi``'s header ("CUDA Version: 12.4")."""
    match = re.search(r"CUDA Version\s*:\s*(\d+)\.(\d+)", smi_header)
    return (int(match.group(1)), int(match.group(2))) if match else None


def cuda_index_for(driver: tuple[int, int]) -> str | None:
    """Where to get a torch this driver can run: None for PyPI's default wheel, else the URL of
    PyTorch's index for an older CUDA. Raises ValueError when no build fits."""
    if driver >= PYPI_WHEEL_CUDA:
        return None
    for needs, url in CUDA12_INDEXES:
        if driver >= needs:
            return url
    if driver[0] == 12:  # minor-version compatibility: a 12.x build runs on any 12.x driver
        return CUDA12_INDEXES[-1][1]
    raise ValueError(
        f"the NVIDIA driver supports CUDA {driver[0]}.{driver[1]} only, and torch "
        f"{DEFAULT_TORCH_VERSION} is built for CUDA 12 and 13: upgrade the driver (R525 or newer "
        "for CUDA 12), or set TORCH_VERSION and TORCH_CUDA_INDEX_URL to an older torch built for "
        "your CUDA"
    )


def torch_sees_gpus() -> str | None:
    """None when the installed torch sees a GPU, else a line saying what it reports."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())",
        ],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"torch does not import: {probe.stderr.strip().splitlines()[-1:]}"
    version, cuda, available = probe.stdout.split()
    if available == "True":
        return None
    return f"torch {version} (CUDA {cuda}) sees no GPU"


def pip_install(*args: str) -> int:
    cmd = [sys.executable, "-m", "pip", "install", "--only-binary=torch", *args]
    print("+", " ".join(cmd), flush=True)
    return subprocess.call(cmd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="reinstall even if torch imports")
    parser.add_argument("--version", default=os.environ.get("TORCH_VERSION", DEFAULT_TORCH_VERSION))
    args = parser.parse_args(argv)

    present = installed_torch()
    if present and not args.force:
        print(f"torch already installed ({present}); keeping it. Use --force to replace it.")
        if has_nvidia_driver() and (problem := torch_sees_gpus()):
            print(
                f"warning: {problem} although nvidia-smi lists GPUs, so the labs would run on "
                "gloo: 'nccl-course doctor' says why; 'python scripts/install_torch.py --force' "
                "installs a build for this driver",
                file=sys.stderr,
            )
        return 0

    system = platform.system()
    if system == "Linux" and not has_nvidia_driver():
        spec = f"torch=={args.version}+cpu"
        if pip_install(spec) == 0:
            return 0
        index = os.environ.get("TORCH_CPU_INDEX_URL", DEFAULT_CPU_INDEX)
        print(f"{spec} not found where pip looks; trying PyTorch's CPU index {index}", flush=True)
        rc = pip_install(spec, "--extra-index-url", index)
        if rc != 0:
            print(
                f"error: could not install {spec}. Set TORCH_CPU_INDEX_URL to a mirror of PyTorch's"
                " CPU wheels, or install a torch yourself and run make setup again.",
                file=sys.stderr,
            )
        return rc
    if system == "Linux":
        return install_for_driver(args.version)
    # macOS and Windows: PyPI's wheels are the right builds.
    return pip_install(f"torch=={args.version}")


def install_for_driver(version: str) -> int:
    """A CUDA build of ``version`` that this machine's driver can run, checked after install."""
    smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True)
    driver = driver_cuda(smi.stdout)
    index = os.environ.get("TORCH_CUDA_INDEX_URL")
    if index is None and driver is not None:
        try:
            index = cuda_index_for(driver)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    shown = f"CUDA {driver[0]}.{driver[1]}" if driver else "an unknown CUDA version"
    print(f"NVIDIA driver supports {shown}; installing torch {version} from {index or 'PyPI'}")
    rc = pip_install(f"torch=={version}", *(["--index-url", index] if index else []))
    if rc != 0:
        return rc
    problem = torch_sees_gpus()
    if problem:
        print(
            f"error: {problem} although nvidia-smi lists GPUs. Run 'nccl-course doctor' (checks "
            "gpus_visible and cuda_driver); on NVSwitch systems also check that "
            "nvidia-fabricmanager is running.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
