"""All-to-all traffic inside a node and across the network (``cost.node_traffic``)."""

from __future__ import annotations

import pytest

from nccl_course.cost.node_traffic import (
    alltoall_network_fraction,
    alltoall_split,
    alltoall_split_on_preset,
)


@pytest.mark.parametrize(("nodes", "fraction"), [(1, 0.0), (2, 8 / 15), (4, 24 / 31), (8, 56 / 63)])
def test_network_fraction_by_counting_chunks(nodes, fraction):
    g = 8
    p = nodes * g
    # count the destinations of rank 0 by hand: every other rank, remote if on another node
    remote = sum(1 for r in range(1, p) if r // g != 0)
    assert remote / (p - 1) == pytest.approx(fraction)
    assert alltoall_network_fraction(nodes, g) == pytest.approx(fraction)


def test_two_nodes_show_nearly_twice_the_nic():
    s = alltoall_split(2**30, 2, 8, nvlink_Bps=450e9, network_Bps=50e9)
    assert s.bound_by == "network"
    assert s.network_bytes == pytest.approx(2**30 / 2)
    assert s.intra_bytes == pytest.approx(2**30 * 7 / 16)
    assert s.time_s == pytest.approx(2**30 / 2 / 50e9)
    assert s.busbw_GBps == pytest.approx(50 * 15 / 8)  # 93.75 GB/s on 50 GB/s NICs


@pytest.mark.parametrize(("nodes", "ratio"), [(2, 15 / 8), (4, 31 / 24), (8, 63 / 56)])
def test_busbw_over_nic_is_p_minus_1_over_p_minus_g(nodes, ratio):
    s = alltoall_split(2**30, nodes, 8, nvlink_Bps=450e9, network_Bps=50e9)
    assert s.busbw_GBps / 50 == pytest.approx(ratio)


def test_one_node_is_nvlink_bound():
    s = alltoall_split(2**30, 1, 8, nvlink_Bps=450e9, network_Bps=None)
    assert (s.bound_by, s.network_bytes, s.network_fraction) == ("nvlink", 0.0, 0.0)
    assert s.busbw_GBps == pytest.approx(450.0)


def test_on_presets():
    ndr = alltoall_split_on_preset(2**30, "ib-ndr-2node")
    assert (ndr.nodes, ndr.gpus_per_node) == (2, 8)
    assert ndr.busbw_GBps == pytest.approx(93.75)
    four = alltoall_split_on_preset(2**30, "ib-ndr-2node", nodes=4)
    assert four.busbw_GBps == pytest.approx(50 * 31 / 24)


def test_errors():
    with pytest.raises(ValueError):
        alltoall_network_fraction(0, 8)
    with pytest.raises(ValueError):
        alltoall_split(1024, 2, 8, nvlink_Bps=1e9, network_Bps=None)
