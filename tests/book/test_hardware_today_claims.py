"""The numbers the chapters book/hardware/02-hardware-of-today.md and 03-networks-at-scale.md
state in prose are what the package computes (the cells print them; this test keeps the prose
honest when the model changes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.cost.nccl import predict
from nccl_course.cost.node_traffic import alltoall_network_fraction

BOOK = Path(__file__).resolve().parents[2] / "book" / "hardware"


def busbw(preset: str, **kw) -> float:
    return predict("all_reduce", 2**30, preset, **kw).busbw_GBps


def test_generation_by_generation_claims():
    text = (BOOK / "02-hardware-of-today.md").read_text()
    assert "(24 → 48 GB/s)" in text
    assert round(busbw("pcie-gen4")) == 24 and round(busbw("pcie-gen5")) == 48
    assert "from about\n  455 to about 750 GB/s" in text
    assert busbw("ib-ndr-2node") == pytest.approx(455, abs=1)
    assert busbw("ib-xdr-2node") == pytest.approx(750, abs=2)
    assert busbw("gb200-nvl72") > busbw("b200-nvls")  # "a busbw above the 8-GPU B200 board"
    for preset in ("a100-nvlink", "h200-nvls", "b200-nvls"):  # "about 15 µs"
        assert predict("all_reduce", 32 * 1024, preset).time_s * 1e6 == pytest.approx(15, abs=1)


def test_worked_example_claims():
    text = (BOOK / "02-hardware-of-today.md").read_text()
    assert "about 718 GB/s" in text and "$2.01 / 371" in text
    assert busbw("ib-xdr-2node", algo="allreduce:ring") == pytest.approx(718, abs=1)
    assert busbw("ib-ndr-2node", algo="allreduce:ring") == pytest.approx(371, abs=1)
    per_nic = busbw("ib-xdr-2node", algo="allreduce:ring") / 8
    assert per_nic == pytest.approx(90, abs=1)  # "about 90 of XDR's 100 GB/s"
    ring_ll = predict("all_reduce", 32 * 1024, "gb200-nvl72").candidates["Ring/LL"]
    assert ring_ll > 90  # "the latency passes 90 µs"


def test_networks_summary_percentages():
    text = (BOOK / "03-networks-at-scale.md").read_text()
    assert "53 % on 2 nodes of 8, 77 % on 4, 89 % on 8" in text
    assert [round(100 * alltoall_network_fraction(n, 8)) for n in (2, 4, 8)] == [53, 77, 89]
