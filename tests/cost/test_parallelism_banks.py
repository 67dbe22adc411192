"""The fixed numeric answers of quizzes/parallelism-practice.yml and quizzes/pat-nvls.yml are
what the package computes: each is recomputed here from nccl_course (training plans, the PAT
schedule, the NVLS link count), so a change to the model or the bank that breaks one fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.cost import busbw_factor
from nccl_course.cost import training as tc
from nccl_course.cost import training_plans as tp
from nccl_course.cost.model import nvls_allreduce_link_bytes
from nccl_course.quiz import load_bank
from nccl_course.sim.pat import pat_schedule

REPO = Path(__file__).resolve().parents[2]


def answers(chapter: str) -> dict[str, float]:
    bank = load_bank(REPO / "quizzes" / f"{chapter}.yml")
    return {q.id: q.answer for q in bank.questions if q.type == "numeric"}


@pytest.mark.parametrize("chapter", ["parallelism-practice", "pat-nvls"])
def test_bank_size_and_mix(chapter):
    bank = load_bank(REPO / "quizzes" / f"{chapter}.yml")
    assert len(bank.questions) >= 8
    assert 3 * sum(q.type == "numeric" for q in bank.questions) >= len(bank.questions)


def test_parallelism_practice_answers():
    a = answers("parallelism-practice")
    psi = 6.65e9
    plan = tp.hsdp_calls(int(psi), shard=8, replicate=2, units=1)
    assert a["pp-hsdp-cross-node"] == pytest.approx(plan.bytes_sent_per_rank()[1] / 1e9, rel=0.01)
    bf16 = tc.bytes_sent_per_rank(tc.zero3_calls(1000, 8, 1, param_bytes=2, grad_bytes=2))
    fp32 = tc.bytes_sent_per_rank(tc.zero3_calls(1000, 8, 1, param_bytes=2, grad_bytes=4))
    assert a["pp-reduce-dtype-extra"] == pytest.approx(100 * (fp32 / bf16 - 1), abs=0.1)
    # the paper's count in model sizes M = 2 psi: forward all-gather size plus the node's share
    # of the int4 gradient all-to-all, against 3 M
    per_node = 8
    zpp = tp.zeropp_calls(1_600_000, 16, per_node, units=1)
    m = 2 * 1_600_000
    forward = sum(c.size_bytes for c in zpp.inter if c.collective == "all_gather")
    grads = sum(c.size_bytes * per_node for c in zpp.inter if c.collective == "all_to_all")
    assert a["pp-zeropp-factor"] == pytest.approx(3 * m / (forward + grads))
    shape = tc.TransformerShape("q", layers=1, hidden=4096, vocab=1, seq_len=131072)
    forward_kv = [c for c in tp.context_parallel_calls(shape, 8).intra if c.phase == "forward"]
    assert a["pp-cp-kv-bytes"] == pytest.approx(tc.bytes_sent_per_rank(forward_kv) / 2**20)
    assert a["pp-async-tp-time"] == pytest.approx(tp.micro_pipeline_time(70.0, 35.0, 8))


def test_pat_nvls_answers():
    a = answers("pat-nvls")
    assert a["pn-pat-steps"] == pat_schedule("all_gather", 64).num_steps
    last = pat_schedule("all_gather", 16).steps[-1]
    assert {(t.src - t.dst) % 16 for t in last} == {1}
    assert a["pn-pat-near-blocks"] == sum(1 for t in last if t.src == 0)
    assert a["pn-nvls-link-bytes"] == pytest.approx(float(nvls_allreduce_link_bytes(1.0, 8)))
    algbw = 270.0
    assert algbw * busbw_factor("all_reduce", 8) == pytest.approx(472.5)
    assert a["pn-nvls-wire-rate"] == pytest.approx(algbw * float(nvls_allreduce_link_bytes(1, 8)))
