"""The all-to-all model (nccl_course.cost.nccl.p2p and predict("all_to_all", ...)) against
hand computations from NCCL 2.30.7's rules, written out here with the numbers of the source."""

from __future__ import annotations

from pathlib import Path

import pytest

from nccl_course.cli import main
from nccl_course.cost.measured import read_measurement
from nccl_course.cost.measured.comparison import compare
from nccl_course.cost.nccl import NcclInvalidUsage, predict, system_for
from nccl_course.cost.nccl.p2p import p2p_channels, plan

MiB = 1024**2
GiB = 1024**3
DATA = Path(__file__).parent / "nccl_tests_output"
ALL_GATHER = DATA / "all_gather_16xB200_dranet.txt"
# published alltoall_perf runs (xxrjun/nccl-tests-cluster, see nccl_tests_output/README.md)
ONE_NODE = DATA / "alltoall_8xH100_nccl_tests_cluster.txt"
TEN_NODES = DATA / "alltoall_80xH100_nccl_tests_cluster.txt"


def test_eight_h100_on_nvlink_by_hand():
    # 64 MiB over 8 ranks: 8 MiB to each peer, 7 peers on NVLink.
    # NVLink per GPU: 18 links x 20.6 GB/s (NCCL's sm_90 per-link figure) = 370.8 GB/s.
    transfer = 7 * 8 * MiB / (18 * 20.6 * 1e3)  # us
    latency = 8.4 + 3.4  # Ring/Simple base + one NVLink hop, src/graph/tuning.cc
    p = predict("all_to_all", 64 * MiB, "h100-nvlink")
    assert (p.algorithm, p.protocol) == ("P2P", "Simple")
    # p2pnChannels = pow2Up(24) = 32; 4 channels per peer (32 / 8 ranks) of parts <= 16 MiB
    assert p.channels == 7 * 4
    assert p.time_s * 1e6 == pytest.approx(latency + transfer)
    # the call: nccl-tests' 3 us per call and the Simple pipeline fill of 28 x 4 MiB buffers
    cap = 28 * 4 * MiB
    fill = 0.75 * transfer * cap / (64 * MiB + cap)
    assert p.call_time_s * 1e6 == pytest.approx(3.0 + latency + transfer + fill)
    assert p.call_busbw_GBps == pytest.approx(64 * MiB / p.call_time_s / 1e9 * 7 / 8)


def test_two_nodes_of_eight_h100_by_hand():
    # 1 GiB over 16 ranks: 64 MiB to each peer; 8 peers on the other node through the GPU's
    # own 400 Gb/s NIC (50 GB/s), 7 on NVLink. The network is the slower path.
    inter = 8 * 64 * MiB / (50 * 1e3)
    intra = 7 * 64 * MiB / (370.8 * 1e3)
    assert inter > intra
    latency = 8.4 + 14.0  # Ring/Simple base + one network hop
    p = predict("all_to_all", GiB, "ib-ndr-2node")
    assert (p.algorithm, p.protocol, p.nodes) == ("P2P", "Simple", 2)
    # 4 channels per remote peer (ceil(50 / 14 GB/s)), on the 16 p2p channels
    assert p.channels == 16
    assert p.time_s * 1e6 == pytest.approx(latency + inter)
    cap = 16 * 4 * MiB
    fill = 0.75 * inter * cap / (GiB + cap)
    assert p.call_time_s * 1e6 == pytest.approx(3.0 + latency + inter + fill)


def test_channels_follow_ncclTopoComputeP2pChannels():
    assert p2p_channels(system_for("h100-nvlink")) == (32, 32)
    assert p2p_channels(system_for("ib-ndr-2node")) == (16, 4)
    assert p2p_channels(system_for("pcie-gen4")) == (4, 2)
    # 8 KiB per peer on one node: one channel each, and LL (at most 16 KiB per channel)
    small = plan(system_for("h100-nvlink"), 64 * 1024)
    assert (small.protocol, small.channels_per_peer) == ("LL", 1)
    assert small.latency_us == pytest.approx(6.6 + 0.6)
    # LL moves 8 bytes of data in every 16-byte line: half NVLink's rate
    assert small.intra_GBps == pytest.approx(370.8 / 2)
    assert plan(system_for("h100-nvlink"), 1 * MiB).protocol == "Simple"


def test_all_to_all_grows_with_size_and_stops_at_the_slower_link():
    times = [predict("all_to_all", s, "ib-ndr-4node").call_time_s for s in (MiB, 64 * MiB, GiB)]
    assert times == sorted(times)
    # on 4 nodes 24 of 31 peers are remote: busbw tends to 50 GB/s x 4/3 x 31/32
    big = predict("all_to_all", 16 * GiB, "ib-ndr-4node")
    assert big.busbw_GBps == pytest.approx(50 * 4 / 3 * 31 / 32, rel=0.01)


def test_nccl_algo_and_proto_are_refused_for_all_to_all():
    with pytest.raises(NcclInvalidUsage, match="grouped sends and receives"):
        predict("all_to_all", MiB, "h100-nvlink", algo="ring")
    with pytest.raises(NcclInvalidUsage, match="drop --algo / --proto"):
        predict("all_to_all", MiB, "h100-nvlink", proto="Simple")
    with pytest.raises(ValueError, match="point-to-point rules only"):
        predict("all_to_all", MiB, "h100-nvlink", nccl_version="2.21.5")


def test_cli_prices_all_to_all_with_nccl(capsys):
    assert main(["model", "all_to_all", "--nccl", "--size", "64MiB"]) == 0
    out = capsys.readouterr().out
    assert "algorithm  P2P" in out and "protocol   Simple" in out
    assert "grouped sends and receives" in out


def test_compare_prices_a_text_named_all_to_all(capsys):
    # the dranet text prints no *_perf name, so the collective is whatever the reader names
    argv = ["model", "all_to_all", "--compare", str(ALL_GATHER), "--preset", "a4-2node"]
    assert main(argv) == 0
    assert "P2P" in capsys.readouterr().out


def test_compare_prices_published_alltoall_runs():
    # 8 H100 on NVLink: every row priced as NCCL runs it, the error from predict() itself
    one = compare(read_measurement(ONE_NODE), "h100-nvls")
    assert one.measurement.collective == "all_to_all" and one.measurement.ranks == 8
    assert {(r.algorithm, r.protocol) for r in one.rows} == {("P2P", "Simple")}
    row = next(r for r in one.rows if r.size == 16 * GiB)
    p = predict("all_to_all", 16 * GiB, "h100-nvls", ranks=8)
    assert row.model_time_us == pytest.approx(p.call_time_s * 1e6)
    assert row.measured_time_us == 43193.3
    assert row.error == pytest.approx(p.call_busbw_GBps / (16 * GiB / 43193.3e-6 / 1e9 * 7 / 8) - 1)
    # 10 nodes x 8 H100, the network path decides: both runs within 15 % over all sizes
    ten = compare(read_measurement(TEN_NODES), "ib-ndr-4node")
    assert ten.measurement.ranks == 80 and ten.rows[0].channels == 16
    for result in (one, ten):
        assert result.medians["all sizes"] < 0.15


def test_cli_compares_a_published_alltoall_run(capsys):
    argv = ["model", "--compare", str(ONE_NODE), "--preset", "h100-nvls"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("all_to_all on 8 ranks") and "P2P/Simple x28" in out
