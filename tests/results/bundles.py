"""Results folders as labs/gpu_check.sh writes them, for the report's tests.

``nccl_bundle``: a 2-node x 8 H100 run made of published material: rank 0's NCCL log is the
one posted in NVIDIA/nccl issue #1519 (two Google Cloud a3-megagpu-8g VMs, NCCL 2.20;
:data:`nccl_course.cost.nccl.public_logs.NCCL_1519`), the benchmark's rows are the nccl-tests
all-reduce sweep of two A3 Mega VMs (:mod:`nccl_course.cost.sweeps`, ``a3mega-2x8xh100``), and
model-vs-nccl-log.txt is what ``nccl-course model --check-log`` prints for that log. The
environment, steps and findings are written here in the formats the check uses.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from nccl_course.cli import main
from nccl_course.cost.nccl.public_logs import NCCL_1519
from nccl_course.cost.sweeps import get_sweep

SWEEP = "a3mega-2x8xh100"
NCCL_LOG = "nccl-log.a3mega-0.4242"
PRESET = "ib-ndr-2node"  # the multi-node H100 preset the report picks for H100 names
NCCL_VERSION = "2.20.5"

ENVIRONMENT = {
    "python": "3.11.9",
    "platform": "Linux-5.15.0-1057-gcp-x86_64-with-glibc2.35",
    "host": "a3mega-0",
    "torch": "2.3.1+cu121",
    "torch_error": None,
    "cuda_available": True,
    "cuda_version": "12.1",
    "nccl_version": NCCL_VERSION,
    "gloo_available": True,
    "nccl_available": True,
    "gpu_count": 8,
    "gpu_names": ["NVIDIA H100 80GB HBM3"] * 8,
    "driver_version": "550.90.07",
    "topology_matrix": None,
    "nccl_env": {},
}

CHECKS = [
    {"id": "torch", "title": "torch imports", "status": "ok", "detail": "2.3.1+cu121", "fix": ""},
    {
        "id": "nvls",
        "title": "NVLink SHARP",
        "status": "warn",
        "detail": "NVLS multicast is not reported",
        "fix": "start nvidia-fabricmanager",
    },
    {"id": "ib", "title": "RDMA NICs", "status": "n/a", "detail": "none found", "fix": ""},
    {
        "id": "gpus",
        "title": "GPUs visible",
        "status": "fail",
        "detail": "7 of 8 GPUs answer",
        "fix": "reset GPU 3 with nvidia-smi -r -i 3",
    },
]

STEPS = [
    {
        "name": "lab 03-ring-allreduce: main() on 8 rank(s), nccl",
        "status": "pass",
        "seconds": 12,
        "log": "lab03-run.txt",
    },
    {
        "name": "lab 03-ring-allreduce: tests on nccl at 4 ranks",
        "status": "fail",
        "seconds": 31,
        "log": "lab03-tests.txt",
    },
    {"name": "lab 09-extra (no solution.py)", "status": "skip", "seconds": 0, "log": None},
]


def bench_record(environment: dict, nranks: int = 16) -> dict:
    """The benchmark's JSON record with the published sweep's rows."""
    sweep = get_sweep(SWEEP)
    rows = [
        {
            "size": r.size_bytes,
            "count": r.size_bytes // 4,
            "type": "float",
            "redop": "sum",
            "root": -1,
            "time_us": r.time_us,
            "algbw": r.algbw_GBps,
            "busbw": r.busbw_GBps,
            "wrong": 0,
            "iters": 20,
        }
        for r in sweep.rows
    ]
    return {
        "collective": "all_reduce",
        "nranks": nranks,
        "backend": "nccl",
        "config": {"collective": "all_reduce", "warmup": 5, "iters": 20},
        "rows": rows,
        "environment": environment,
    }


def check_log_text(log: Path) -> str:
    """What ``nccl-course model --check-log`` prints for ``log`` (run in this process), stdout
    and stderr together as gpu_check.sh keeps them. The posted table has no ``Algorithm`` row,
    so the command says it finds no TUNING output: a real outcome the report must show."""
    out = io.StringIO()
    argv = ["model", "--check-log", str(log), "--preset", PRESET, "--nccl-version", NCCL_VERSION]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        main(argv)
    return out.getvalue()


def nccl_bundle(folder: Path, environment: dict | None = None) -> Path:
    """A complete NCCL bundle in ``folder`` (created) but for topology.txt."""
    environment = dict(ENVIRONMENT if environment is None else environment)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "environment.json").write_text(
        json.dumps({"environment": environment, "checks": CHECKS}, indent=2)
    )
    (folder / "steps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in STEPS))
    (folder / "summary.txt").write_text("PASS  lab 03\nFAIL  lab 03 tests\n")
    (folder / "lab03-run.txt").write_text("rank 0: ring all-reduce ok\n")
    # lab03-tests.txt is left out: the node went away before it was copied
    (folder / "bench-all_reduce.json").write_text(json.dumps(bench_record(environment)))
    log = folder / NCCL_LOG
    log.write_text(NCCL_1519.text)
    (folder / "nccl-log.a3mega-0.4243").write_text("NCCL INFO comm 0x1 rank 1 nRanks 16\n")
    (folder / "model-vs-nccl-log.txt").write_text(check_log_text(log))
    return folder
