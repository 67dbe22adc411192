"""The fixed answers of quizzes/nccl-tuner.yml are what the course's NCCL model computes.

The bank states numbers as plain answers (learners compute them by hand); this test recomputes
each from ``nccl_course.cost.nccl`` so a change to the model or the bank that breaks one fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.estimate import table_for

BANK = Path(__file__).resolve().parents[2] / "quizzes" / "nccl-tuner.yml"


@pytest.fixture(scope="module")
def answers() -> dict[str, float]:
    data = yaml_text.safe_load(BANK.read_text())
    return {q["id"]: q["answer"] for q in data["questions"] if q["type"] == "numeric"}


def _ring_allreduce_latency_us(protocol: str) -> float:
    """The AllReduce Ring latency cell of the tuner's table on 8 GPUs in one NVLink node."""
    table = table_for("h200-nvls", 8)
    f, a = T.FUNCTIONS.index("AllReduce"), T.ALGORITHMS.index("Ring")
    return table.latency_us[f][a][T.PROTOCOLS.index(protocol)]


def test_ring_latencies(answers):
    assert answers["tuner-ring-ll-latency"] == pytest.approx(_ring_allreduce_latency_us("LL"))
    assert answers["tuner-ring-simple-latency"] == pytest.approx(
        _ring_allreduce_latency_us("Simple")
    )
    # and by hand from the constants: base + 14 hops
    ring = T.ALGORITHMS.index("Ring")
    ll = T.PROTOCOLS.index("LL")
    assert answers["tuner-ring-ll-latency"] == pytest.approx(
        T.BASE_LATENCY_US[ring][ll] + 14 * T.HW_LATENCY_US[T.HW_NVLINK][ring][ll]
    )


def test_ll128_efficiency(answers):
    assert answers["tuner-ll128-efficiency"] == pytest.approx(100 * 120 / 128)


def test_ring_per_nic(answers):
    q = predict("all_reduce", 2**30, "ib-ndr-2node", algo="allreduce:ring")
    assert (q.algorithm, q.protocol) == ("Ring", "Simple")
    assert answers["tuner-ring-per-nic"] == pytest.approx(q.busbw_GBps / 8, rel=0.02)


def test_choices_the_single_answers_name():
    small = predict("all_reduce", 32 * 1024, "h200-nvls", ranks=8)
    assert (small.algorithm, small.protocol) == ("Ring", "LL")
    two_node = predict("all_reduce", 2**30, "ib-ndr-2node")
    assert two_node.algorithm == "NVLSTree"
    assert 55 < two_node.busbw_GBps / 8 < 59  # "about 57 GB/s per NIC" in tuner-two-node-tree
