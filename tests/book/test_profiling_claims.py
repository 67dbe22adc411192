"""The profiling chapter's version-dependent facts, checked against the text and, where the
installed PyTorch 2.13 holds the evidence, against PyTorch itself.

NCCL's facts (profiler plugin API versions by release, the Inspector's first release, NVTX
ranges since 2.19) were read in the tagged NCCL sources, v2.19.1-1 to v2.30.7-1; the test pins
the wording that states each with its release, so that a page cannot drop the version. PyTorch's
(the flight recorder's variables and default, the analyzer's entry points, the event names a gloo
trace holds) are read from the installed torch and the course's recorded traces.
"""

from __future__ import annotations

import importlib.util
import re
from importlib import metadata
from pathlib import Path

import pytest
import torch

from nccl_course import yaml_text
from nccl_course.viz.trace_events import load_trace
from nccl_course.viz.trace_timeline import RECORDED

ROOT = Path(__file__).resolve().parents[2]
PAGE = "book/practice/12-profiling-communication.md"


def text(path: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "claim",
    [
        # src/include/plugin/nccl_profiler.h and profiler_vN.h at each release tag
        "NCCL 2.23 introduced a profiler plugin interface",
        "`ncclProfileGroup`, `ncclProfileColl`, `ncclProfileP2p` | a group, a collective, a "
        "send/recv as NCCL schedules it | 2.23 (v1)",
        "| 2.26 (v3) |",
        "| 2.28 (v5) |",
        "| 2.29 (v6) |",
        "v2 (2.24) and v4 (2.27)",
        "NCCL 2.30.7 looks for `ncclProfiler_v6` first and falls back to v5 ... v1",
        # ext-profiler/inspector first at v2.28.3-1; plugins/ from v2.29.7-1; PROM_DUMP at 2.29.7
        "ships with NCCL from 2.28",
        "`ext-profiler/example` up to 2.29.3, `plugins/profiler/example` from 2.29.7",
        "From 2.29.7, `NCCL_INSPECTOR_PROM_DUMP=1`",
        # NVTX3_FUNC_WITH_PARAMS in src/collectives.cc from v2.19.1-1
        "in NCCL 2.19 and later (checked in the 2.19.1 and 2.30.7 sources)",
        # ncclDevKernel_ names from src/device/generate.py at v2.19.1-1
        "NCCL 2.19 and later name kernels",
        "**RAS** (NCCL 2.24+, on by default)",
    ],
)
def test_nccl_facts_name_their_release(claim):
    assert claim in text(PAGE)


def test_flight_recorder_variables_and_default_are_pytorch_2_13s():
    header = Path(torch.__file__).parent / "include/torch/csrc/distributed/c10d/FlightRecorder.hpp"
    if not header.exists():
        pytest.skip("this torch ships no C++ headers")
    source = re.sub(r"\s+", " ", header.read_text())
    m = re.search(
        r'max_entries_ = getCvarInt\( \{"TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE"\}, '
        r"(\d+)\)",
        source,
    )
    assert m, "FlightRecorder.hpp no longer reads TORCH_FR_BUFFER_SIZE as the page says"
    default = m.group(1)
    page = text(PAGE)
    assert (
        "`TORCH_FR_BUFFER_SIZE` (the older name `TORCH_NCCL_TRACE_BUFFER_SIZE` still works) "
        f"with a default of {default} entries" in page
    )
    assert f"on by default in PyTorch 2.13 ({default} entries)" in page
    if torch.__version__.startswith("2.13"):
        assert default == "2000"


def test_the_analyzer_runs_as_the_page_says():
    scripts = {ep.name: ep.value for ep in metadata.entry_points(group="console_scripts")}
    assert scripts.get("torchfrtrace") == "torch.distributed.flight_recorder.fr_trace:main"
    assert importlib.util.find_spec("torch.distributed.flight_recorder.fr_trace") is not None
    # No __main__: `python -m torch.distributed.flight_recorder` alone does not run it.
    assert importlib.util.find_spec("torch.distributed.flight_recorder.__main__") is None
    page = text(PAGE)
    assert "`python -m torch.distributed.flight_recorder.fr_trace DIR`" in page
    assert "has no `__main__`" in page


def test_gloo_event_names_are_those_of_the_recorded_traces():
    trace = load_trace(RECORDED / "ddp-gloo-overlapped-rank0.json")
    names = {e.name for e in trace.events}
    assert "gloo:all_reduce" in names
    assert any(n.startswith("autograd::engine::evaluate_function: AddmmBackward0") for n in names)
    assert "pt_gloo_runloop" in " ".join(trace.thread_names.values())
    page = text(PAGE)
    assert "`gloo:all_reduce` on gloo's worker thread (`pt_gloo_runloop`)" in page


def test_quiz_versions_match_the_page():
    bank = yaml_text.safe_load((ROOT / "quizzes/profiling-communication.yml").read_text())
    by_id = {q["id"]: q for q in bank["questions"]}
    assert "2.23" in by_id["profiler-plugin-release"]["answers"]
    pairs = {p["left"].split("`")[1]: p["right"] for p in by_id["event-types-by-release"]["pairs"]}
    assert pairs == {
        "ncclProfileColl": "2.23 (API v1)",
        "ncclProfileKernelCh": "2.26 (API v3)",
        "ncclProfileCollApi": "2.28 (API v5)",
        "ncclProfileCeColl": "2.29 (API v6)",
    }
