"""labs/gpu_check.sh as a learner runs it, on this machine's CPUs: a driver whose GPUs torch
cannot see is a failure (never a quiet fallback to gloo), usage errors are named, and the
multi-node mode really meets at a torchrun rendezvous (two "nodes" on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from nccl_course.launcher import free_port

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "labs" / "gpu_check.sh"
H100_LIST = "\n".join(
    f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08d}-0000-0000-0000-000000000000)"
    for i in range(8)
)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, GPU_CHECK_MAXBYTES="64KiB", **extra)
    env.pop("MASTER_ADDR", None)
    env.pop("MASTER_PORT", None)
    return env


def _fake_nvidia_smi(folder: Path) -> None:
    """An nvidia-smi that lists 8 H100s, as a driver does when torch is a CPU build."""
    folder.mkdir()
    smi = folder / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        f'case "$1" in -L) cat <<"EOF"\n{H100_LIST}\nEOF\n;;\n'
        '--query-gpu=*) echo 570.86.15 ;;\n*) echo "CUDA Version: 12.8" ;;\nesac\n'
    )
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)


def test_gpus_that_torch_cannot_see_fail_loudly(tmp_path):
    _fake_nvidia_smi(tmp_path / "bin")
    out = tmp_path / "results"
    env = _env(tmp_path, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", str(SCRIPT), str(out)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stdout + done.stderr
    summary = (out / "summary.txt").read_text()
    assert "FAIL  nvidia-smi lists 8 GPU(s) but torch sees 0" in summary
    assert "driver 570.86.15" in summary and "torch 2." in summary
    assert "gloo" not in summary.split("FAIL", 1)[1].split("\n")[0]  # nothing ran on gloo
    steps = [json.loads(line) for line in (out / "steps.jsonl").read_text().splitlines()]
    assert [s["status"] for s in steps] == ["fail"]
    assert not list(out.glob("lab*-run.txt"))
    assert (out / "report.html").is_file()  # the report still says what happened


def test_usage_errors_are_named(tmp_path):
    for args, message in [
        (["--nnodes", "2", str(tmp_path)], "need --master-addr"),
        (["--nnodes", "2", "--node-rank", "2", "--master-addr", "h", str(tmp_path)], "0 .. "),
        (["--nnodes", "two", str(tmp_path)], "whole numbers"),
        (["--bogus"], "unknown option --bogus"),
    ]:
        done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True)
        assert done.returncode == 2, args
        assert message in done.stderr, (args, done.stderr)


def test_two_nodes_meet_at_the_rendezvous_and_benchmark_across_them(tmp_path):
    port = str(free_port())
    common = ["--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", port]
    nodes = []
    for rank in (0, 1):
        out = tmp_path / f"node{rank}"
        nodes.append(
            (
                out,
                subprocess.Popen(
                    ["bash", str(SCRIPT), *common, "--node-rank", str(rank), str(out)],
                    env=_env(tmp_path, GLOO_SOCKET_IFNAME="lo"),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                ),
            )
        )
    for out, proc in nodes:
        output, _ = proc.communicate(timeout=400)
        assert proc.returncode == 0, f"{out.name}:\n{output}"
    record = json.loads((tmp_path / "node0" / "bench-all_reduce.json").read_text())
    assert record["nranks"] == 4 and record["backend"] == "gloo"  # 2 nodes x 2 ranks
    assert all(row["wrong"] == 0 for row in record["rows"])
    worker = json.loads((tmp_path / "node1" / "environment.json").read_text())
    rendezvous = {c["id"]: c for c in worker["checks"]}["rendezvous"]
    assert rendezvous["status"] == "ok" and f"127.0.0.1:{port}" in rendezvous["detail"]
    assert (tmp_path / "node0" / "report.html").is_file()
