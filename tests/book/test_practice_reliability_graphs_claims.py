"""The numbers the registration, CUDA-graph and fault-tolerance pages and banks state, recomputed.

Each figure is computed here from the package (``nccl_course.cost``) or from its definition and
compared with the text as written, so a change to either that makes them disagree fails.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost.reliability import (
    job_mtbf_s,
    loss_per_failure_s,
    wasted_fraction,
    young_interval_s,
)
from nccl_course.cost.training import GPT3_6_7B, tensor_parallel_calls

ROOT = Path(__file__).resolve().parents[2]


def page(name: str) -> str:
    return (ROOT / "book" / "practice" / name).read_text(encoding="utf-8")


def answer(chapter: str, qid: str) -> float:
    bank = yaml_text.safe_load((ROOT / "quizzes" / f"{chapter}.yml").read_text(encoding="utf-8"))
    (question,) = [q for q in bank["questions"] if q["id"] == qid]
    return float(question["answer"])


def test_registration_sm_share():
    text = page("07-registration-symmetric-memory.md")
    assert f"{16 / 132:.1%}" == "12.1%" and "12.1% of the SMs" in text
    assert f"{132 / 116:.2f}" == "1.14" and "up to 1.14 times" in text
    assert answer("registration", "sm-share-16-ctas") == pytest.approx(100 * 16 / 132, abs=0.01)
    assert answer("registration", "sm-bound-slowdown") == pytest.approx(132 / 116, rel=1e-3)


def test_cuda_graphs_decode_example():
    text = page("08-cuda-graphs.md")
    sizes = {}
    for batch in (5, 8):
        decode = dataclasses.replace(GPT3_6_7B, seq_len=1, micro_batch=batch)
        (fwd,) = [c for c in tensor_parallel_calls(decode, tp=8) if c.phase == "forward"]
        assert fwd.count == 64
        sizes[batch] = fwd.size_bytes / 1024
    assert sizes == {5: 40, 8: 64}
    assert "64 all-reduces of 40 KiB (batch 5) or 64 KiB (batch 8)" in text
    assert "60% more bytes" in text
    assert answer("cuda-graphs", "tp-decode-bytes") == sizes[8]
    assert answer("cuda-graphs", "padding-overhead") == 100 * (8 - 5) / 5


def test_fault_tolerance_worked_example():
    text = page("09-fault-tolerance.md")
    mtbf = job_mtbf_s(50_000 * 3600, 4096)
    interval = young_interval_s(60, mtbf)
    loss10 = loss_per_failure_s(interval, 600, 300)
    loss2 = loss_per_failure_s(interval, 120, 300)
    assert f"{mtbf / 3600:.1f}" == "12.2" and "about every 12.2 hours" in text
    assert round(interval / 60) == 38 and "every 38 minutes" in text
    assert round(loss10 / 60) == 34 and "about\n34 minutes" in text
    assert round(interval / 2 / 60) == 19 and "19 of lost work" in text
    assert round((loss10 - loss2) / 60) == 8 and "saves 8 minutes" in text
    assert f"{wasted_fraction(interval, 60, mtbf, 600, 300):.1%}" == "7.3%" and "7.3%" in text
    assert f"{wasted_fraction(interval, 60, mtbf, 120, 300):.1%}" == "6.2%" and "6.2%" in text
    assert answer("fault-tolerance", "job-mtbf") == pytest.approx(mtbf / 3600, rel=1e-3)
    assert answer("fault-tolerance", "waste-with-shorter-timeout") == pytest.approx(
        100 * wasted_fraction(interval, 60, mtbf, 120, 300), abs=0.01
    )
