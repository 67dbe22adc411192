"""The fixed numeric answers of quizzes/hardware-today.yml and quizzes/networks-at-scale.yml are
what the package computes: NCCL's model (``cost.nccl``), the presets, NCCL's constants, and the
all-to-all traffic split (``cost.node_traffic``). Each answer is recomputed here, so a change to
the model or to a bank that breaks one fails; the banks' size and mix are checked too."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course import yaml_text
from nccl_course.cost import busbw_factor, get_preset
from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.estimate import table_for
from nccl_course.cost.node_traffic import alltoall_network_fraction, alltoall_split_on_preset
from nccl_course.quiz import load_bank

QUIZZES = Path(__file__).resolve().parents[2] / "quizzes"
BANKS = ("hardware-today", "networks-at-scale")


def answers(chapter: str) -> dict[str, float]:
    data = yaml_text.safe_load((QUIZZES / f"{chapter}.yml").read_text())
    return {q["id"]: q["answer"] for q in data["questions"] if "answer" in q}


@pytest.mark.parametrize("chapter", BANKS)
def test_bank_size_and_mix(chapter):
    bank = load_bank(QUIZZES / f"{chapter}.yml")
    assert len(bank.questions) >= 8
    numeric = [q for q in bank.questions if q.type == "numeric"]
    assert 3 * len(numeric) >= len(bank.questions)
    for q in bank.questions:
        if q.type in ("single", "multiple"):
            assert all(c.feedback for c in q.choices)


def test_hardware_today_answers():
    a = answers("hardware-today")
    assert a["today-nvlink5-per-direction"] == pytest.approx(
        get_preset("b200-nvls").bandwidth_Bps / 1e9
    )
    # the Ring/LL AllReduce latency cell of the tuner's table on the NVL72 preset
    table = table_for("gb200-nvl72")
    f, r, ll = T.FUNCTIONS.index("AllReduce"), T.ALGORITHMS.index("Ring"), T.PROTOCOLS.index("LL")
    assert a["today-nvl72-ring-ll-latency"] == pytest.approx(table.latency_us[f][r][ll])
    assert a["today-nvl72-ring-ll-latency"] == pytest.approx(
        T.BASE_LATENCY_US[r][ll] + 2 * 71 * T.HW_LATENCY_US[T.HW_NVLINK][r][ll]
    )
    assert a["today-xdr-per-direction"] == pytest.approx(get_preset("ib-xdr-2node").nccl.nic_bw)
    assert a["today-nccl-pcie-gen5"] == pytest.approx(16 * T.PCIE_RATE[5] / 80)
    ring = predict("all_reduce", 2**30, "ib-xdr-2node", algo="allreduce:ring")
    assert a["today-xdr-ring-time"] == pytest.approx(ring.time_s * 1e3, rel=0.02)
    assert 700 < ring.busbw_GBps < 735  # "about 718 GB/s" in the prompt


def test_hardware_today_choices_the_single_answers_name():
    small8 = predict("all_reduce", 32 * 1024, "b200-nvls")
    small72 = predict("all_reduce", 32 * 1024, "gb200-nvl72")
    assert (small8.algorithm, small8.protocol) == ("Ring", "LL")
    assert (small72.algorithm, small72.protocol) == ("NVLS", "Simple")
    assert predict("all_reduce", 32 * 1024, "gb200-nvl72").nodes == 1


def test_networks_answers():
    a = answers("networks-at-scale")
    assert a["net-a2a-fraction-2node"] == pytest.approx(
        100 * alltoall_network_fraction(2, 8), abs=0.01
    )
    assert a["net-a2a-fraction-8node"] == pytest.approx(
        100 * alltoall_network_fraction(8, 8), abs=0.01
    )
    split = alltoall_split_on_preset(2**30, "ib-ndr-2node")
    assert a["net-a2a-two-node-time"] == pytest.approx(split.time_s * 1e3, rel=0.01)


def test_page_worked_example_numbers():
    """The numbers the networks chapter states by hand for 4 nodes x 8 GPUs, 256 MiB per rank."""
    s = alltoall_split_on_preset(256 * 2**20, "ib-ndr-4node")
    assert s.network_bytes == 192 * 2**20
    assert s.time_s * 1e3 == pytest.approx(4.03, abs=0.01)
    assert s.busbw_GBps == pytest.approx(64.6, abs=0.05)
    assert s.busbw_GBps == pytest.approx(
        256 * 2**20 / s.time_s / 1e9 * busbw_factor("all_to_all", 32)
    )
