"""The real ``nccl-course doctor`` in a subprocess on this machine: the JSON shape, every check id
with a valid status, GPU checks n/a without a GPU, and exit codes that follow the checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nccl_course.preflight import CHECK_IDS, STATUSES

CAPTURED = Path(__file__).parent / "captured"
GPU_CHECKS = ("gpu_p2p", "gpus_visible", "cuda_driver", "nccl_version")


def doctor(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MASTER_", "NCCL_"))}
    return subprocess.run(
        [sys.executable, "-m", "nccl_course", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**clean, **(env or {})},
    )


def has_nvidia_driver() -> bool:
    from shutil import which

    return which("nvidia-smi") is not None


def test_json_report_on_this_machine():
    done = doctor("--json")
    report = json.loads(done.stdout)
    assert set(report) == {"environment", "checks"}
    assert report["environment"]["gloo_available"] is True
    checks = report["checks"]
    assert [c["id"] for c in checks] == list(CHECK_IDS)
    for check in checks:
        assert set(check) == {"id", "title", "status", "detail", "fix"}
        assert check["status"] in STATUSES
        assert bool(check["fix"]) == (check["status"] in ("warn", "fail"))
    statuses = {c["id"]: c["status"] for c in checks}
    if not has_nvidia_driver():
        assert all(statuses[i] == "n/a" for i in GPU_CHECKS)
    assert statuses["nccl_transport"] == "n/a" and statuses["rendezvous"] == "n/a"
    assert done.returncode == (1 if "fail" in statuses.values() else 0), done.stderr


def test_text_report_and_a_failing_rendezvous(port):
    done = doctor("--master", f"127.0.0.1:{port}", "--nodes", "2")
    assert done.returncode == 1
    assert "Pre-flight checks:" in done.stdout
    line = next(x for x in done.stdout.splitlines() if "rendezvous reachable" in x)
    assert line.split()[0] == "FAIL" and f"127.0.0.1:{port}" in line
    assert "fix: start rank 0 first" in done.stdout
    assert done.stderr.strip().endswith("(see 'fix:' above)")
    assert "rendezvous" in done.stderr


def test_a_captured_nccl_log_is_read():
    log = CAPTURED / "nccl_log_roce_ib.txt"
    done = doctor("--json", "--nccl-log", str(log))
    checks = {c["id"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["nccl_transport"]["detail"].startswith("network IB (mlx5_10:1/RoCE")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--nccl-log", "/no/such/nccl.log"),
            "error: --nccl-log /no/such/nccl.log: No such file or directory; give an NCCL log file",
        ),
        (
            ("--master", "10.0.0.1"),
            "error: --master '10.0.0.1' is not HOST:PORT (e.g. 10.0.0.1:29500)",
        ),
        (("--nodes", "0"), "error: --nodes 0: give the number of nodes, 1 or more"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, message):
    done = doctor(*args)
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert done.stdout == ""


def test_help_explains_every_check():
    done = doctor("--help")
    assert done.returncode == 0
    for check_id in CHECK_IDS:
        assert any(line.split()[:1] == [check_id] for line in done.stdout.splitlines()), check_id
