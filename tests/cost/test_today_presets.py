"""The presets for today's hardware (GB200 NVL72, InfiniBand XDR) and what NCCL's model does with
them: each is listed by ``nccl-course model --list-presets``, carries its sources, and prices with
``nccl_course.cost.nccl.predict``; the numbers are checked against NCCL's own formulas."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nccl_course.cli import main
from nccl_course.cost import get_preset
from nccl_course.cost.nccl import predict, system_for
from nccl_course.cost.nccl import tables as T

NEW = ("gb200-nvl72", "ib-xdr-2node")


@pytest.mark.parametrize("name", NEW)
def test_listed_with_sources(name, capsys):
    assert main(["model", "--list-presets"]) == 0
    out = capsys.readouterr().out
    assert f"{name}: " in out
    preset = get_preset(name)
    assert all("http" in s for s in preset.source)


def test_nvl72_is_one_nvlink_domain_of_72():
    preset = get_preset("gb200-nvl72")
    system = system_for(preset)
    assert (system.nodes, system.gpus_per_node, system.ranks) == (1, 72, 72)
    # 18 NVLink 5 links at NCCL's 40.1 GB/s each for sm_100 (topo.h)
    assert preset.nccl.nvlink_bw == pytest.approx(18 * 40.1)
    # one NVLink domain: NVLS over the rack with Blackwell's single-node channel count
    assert system.nvls_channels == T.NVLS_CHANNELS_SM100_ONE_NODE == 24
    nvls = system.graphs["NVLS"]
    assert nvls.n_channels == T.MAX_NVLS_ARITY == 32  # heads capped at NCCL_MAX_NVLS_ARITY


def test_nvl72_prices_with_nccl_model():
    small = predict("all_reduce", 32 * 1024, "gb200-nvl72")
    large = predict("all_reduce", 2**30, "gb200-nvl72")
    assert small.ranks == large.ranks == 72
    assert (large.algorithm, large.protocol) == ("NVLS", "Simple")
    # NVLS latency is one switch hop, 25 us, whatever the rank count
    assert small.algorithm == "NVLS"
    assert small.time_s * 1e6 == pytest.approx(25.0 + 32 * 1024 / (1000 * _nvls_algbw()), rel=1e-9)
    # Ring/LL on 72 ranks: 6.6 + 2 x 71 x 0.6 us of latency, more than NVLS's 25 us
    ring_ll = large.candidates["Ring/LL"]
    assert ring_ll > 6.6 + 142 * 0.6


def _nvls_algbw() -> float:
    """NVLS all-reduce algbw on the NVL72 graph, from NCCL's formula (tuning.cc lines 306-379):
    channels x min(bwIntra x efficiency x (n-1)/n x 2, bwInter), times nRanks / nsteps."""
    g = system_for("gb200-nvl72").graphs["NVLS"]
    eff = T.NVLS_EFFICIENCY[3]
    per_channel = min(g.bw_intra * eff * (g.n_channels - 1) / g.n_channels * 2, g.bw_inter)
    return g.n_channels * per_channel * 72 / (2 * 71)


def test_xdr_nic_is_100_GBps_and_pcie_gen6_feeds_it():
    hw = get_preset("ib-xdr-2node").nccl
    assert hw.nic_bw == pytest.approx(800 * 1000 / 8000)  # 100 GB/s
    assert hw.pcie_bw == pytest.approx(16 * 480 / 80)  # Gen6 x16: 96 GB/s in NCCL's view
    gen5 = replace(hw, pcie_gen=5)
    assert gen5.pcie_bw == pytest.approx(48.0)  # an XDR NIC on Gen5 x16 is capped at 48


def test_xdr_ring_per_nic_and_gen5_cap():
    ring = predict("all_reduce", 2**30, "ib-xdr-2node", algo="allreduce:ring")
    assert (ring.nodes, ring.algorithm, ring.protocol) == (2, "Ring", "Simple")
    assert 85 < ring.busbw_GBps / 8 < 96  # under the 96 GB/s NCCL sees per NIC
    preset = get_preset("ib-xdr-2node")
    on_gen5 = replace(preset, name="xdr-on-gen5", nccl=replace(preset.nccl, pcie_gen=5))
    capped = predict("all_reduce", 2**30, on_gen5, algo="allreduce:ring")
    ndr = predict("all_reduce", 2**30, "ib-ndr-2node", algo="allreduce:ring")
    assert capped.busbw_GBps == pytest.approx(ndr.busbw_GBps, rel=1e-9)  # no gain over NDR


def test_old_presets_unchanged_by_the_nvls_arity_rule():
    # the one-node NVLS rule now needs min(GPUs, 32) heads; 8-GPU boxes still need 8
    assert system_for("h200-nvls").graphs["NVLS"].n_channels == 8
    assert predict("all_reduce", 2**30, "h200-nvls").algorithm == "NVLS"
    assert predict("all_reduce", 2**30, "b200-nvls").busbw_GBps == pytest.approx(713.2, rel=1e-3)
