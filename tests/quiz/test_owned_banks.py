"""The banks of the quiz engine's own chapters (intro, cost-model, measuring): size, mix, and
every fixed numeric answer recomputed from the package's closed forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.cost import busbw_factor, closed_form_time
from nccl_course.quiz import load_bank
from nccl_course.quiz.units import read_number

REPO = Path(__file__).resolve().parents[2]
OWNED = ("intro", "cost-model", "measuring")


@pytest.mark.parametrize("chapter", OWNED)
def test_bank_size_and_mix(chapter):
    bank = load_bank(REPO / "quizzes" / f"{chapter}.yml")
    assert len(bank.questions) >= 10
    numeric = [q for q in bank.questions if q.type == "numeric"]
    assert 3 * len(numeric) >= len(bank.questions)
    assert any(q.parameterized for q in bank.questions)


def test_intro_has_the_five_seed_questions():
    bank = load_bank(REPO / "quizzes" / "intro.yml")
    correct = {
        q.id: next(c.text for c in q.choices if c.correct)
        for q in bank.questions
        if q.type == "single"
    }
    assert "same combined" in correct["allreduce-purpose"]
    assert correct["nccl-name"] == "NVIDIA Collective Communications Library"
    assert "pipeline" in correct["chunked-ring-large-tensor"]
    assert correct["gather-shards-everywhere"] == "All-gather"
    assert "switches add up the data" in correct["sharp-offload"]


def answer(chapter: str, qid: str) -> float:
    return load_bank(REPO / "quizzes" / f"{chapter}.yml").question(qid).answer


def crossover(p: int, alpha: float, beta: float) -> float:
    """Bytes where ring and recursive-doubling all-reduce cost the same (bisection)."""
    lo, hi = 1.0, 1e12

    def diff(n):
        ring = closed_form_time("all_reduce", "ring", n, p, alpha, beta)
        rd = closed_form_time("all_reduce", "recursive_doubling", n, p, alpha, beta)
        return ring - rd

    for _ in range(200):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if diff(mid) > 0 else (lo, mid)
    return lo


def test_fixed_numeric_answers_follow_from_the_cost_model():
    assert answer("intro", "busbw-factor-8") == busbw_factor("all_reduce", 8)
    assert answer("cost-model", "ring-latency-term") == pytest.approx(
        closed_form_time("all_reduce", "ring", 0, 16, 5e-6, 0.0) * 1e6
    )
    bruck = closed_form_time("all_to_all", "bruck", 1.0, 8, 0.0, 1.0)
    pairwise = closed_form_time("all_to_all", "pairwise", 1.0, 8, 0.0, 1.0)
    assert answer("cost-model", "bruck-vs-pairwise-bytes") == pytest.approx(
        bruck / pairwise, rel=1e-6
    )
    n = crossover(8, 5e-6, 1 / 50e9)
    assert answer("cost-model", "ring-vs-doubling-crossover") == pytest.approx(n / 1e6, rel=1e-6)
    assert answer("measuring", "allgather-factor-16") == busbw_factor("all_gather", 16)
    assert answer("measuring", "ring-efficiency") == pytest.approx(370 / 450 * 100, abs=0.05)
    assert answer("measuring", "ndr-nic-expectation") == read_number("400 Gb/s", "GB/s")
