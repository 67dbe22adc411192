"""labs/cloud/kaggle.md runs top to bottom, here on gloo (no GPUs), as Kaggle would run it.

The notebook is read with jupytext and executed by nbclient in a real kernel started from the
notebook's folder, with its results folder pointed at a temporary one. It must leave a results
bundle that ``nccl-course report`` rendered: the steps it ran (the labs and the benchmark passed;
the doctor's status is a finding about the machine) and the benchmark's record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jupytext
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "labs" / "cloud" / "kaggle.md"
ALL_LABS = sorted(path.parent.name[:2] for path in (REPO / "labs").glob("[0-9][0-9]-*/lab.yaml"))


def _gpus() -> int:
    """CUDA devices the course's Python sees (asked in a subprocess, as the notebook does)."""
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_the_notebook_runs_top_to_bottom(tmp_path, monkeypatch):
    results = tmp_path / "results"
    monkeypatch.setenv("NCCL_COURSE_RESULTS", str(results))
    notebook = jupytext.read(NOTEBOOK)
    client = NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()

    backend, labs = ("nccl", ALL_LABS) if _gpus() >= 2 else ("gloo", ["01", "03"])
    steps = [json.loads(line) for line in (results / "steps.jsonl").read_text().splitlines()]
    expected = ["doctor"]
    expected += [f"lab {lab}: main() on 2 ranks, {backend}" for lab in labs]
    expected += [f"bench all_reduce on 2 ranks, {backend}"]
    assert [step["name"] for step in steps] == expected
    # The doctor's status is a finding about this machine (it fails where a check fails).
    assert [step["status"] for step in steps[1:]] == ["pass"] * (len(expected) - 1)
    assert steps[0]["status"] in ("pass", "fail")
    for step in steps:
        assert (results / step["log"]).is_file(), step
    assert json.loads((results / "environment.json").read_text())
    record = json.loads((results / "bench-all_reduce.json").read_text())
    assert record, "the benchmark wrote an empty record"
    assert (results / "bench-all_reduce.png").stat().st_size > 0
    assert (results / "report.html").is_file()
