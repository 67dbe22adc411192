"""NCCL 2.30.7's own model: switch points, enablement, overrides, CLI, published numbers."""

import json

import pytest

from nccl_course.cli import main
from nccl_course.cost import PRESETS
from nccl_course.cost.nccl import NcclInvalidUsage, NcclSystem, predict, system_for, table_for
from nccl_course.cost.nccl.report import tuning_table
from nccl_course.cost.nccl.system import NcclHardware
from nccl_course.cost.nccl.tuner import cost_table

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def test_h200_nvls_all_reduce_switch_points_follow_nccls_formulas():
    # Hand-computed from tuning.cc: Ring/LL bus 12 ch x 30 GB/s x 0.5 = 180, capped at
    # llMaxBw 141 (Hopper, 1 node), x 8/14 -> algbw; latency 6.6 + 14 x 0.6 us.
    ring_ll_bw, ring_ll_lat = 141.0 * 8 / 14, 6.6 + 14 * 0.6
    # NVLS: 8 ch x min(40 x 0.85 x 7/8 x 2, 60) x 8/14; latency 25 us (NVLink NVLS hop)
    nvls_bw, nvls_lat = 8 * 59.5 * 8 / 14, 25.0
    switch = (nvls_lat - ring_ll_lat) * 1000 / (1 / ring_ll_bw - 1 / nvls_bw)
    assert 1.14e6 < switch < 1.15e6
    for size in (8, 1 * KiB, 32 * KiB, 1 * MiB):
        p = predict("all_reduce", size, "h200-nvls")
        assert (p.algorithm, p.protocol) == ("Ring", "LL")
        expected = ring_ll_lat + size / (1000 * ring_ll_bw)
        assert p.time_s * 1e6 == pytest.approx(expected, rel=1e-6)
    for size in (2 * MiB, 64 * MiB, 1 * GiB):
        p = predict("all_reduce", size, "h200-nvls")
        assert (p.algorithm, p.protocol) == ("NVLS", "Simple")
        assert p.time_s * 1e6 == pytest.approx(nvls_lat + size / (1000 * nvls_bw), rel=1e-6)
        assert p.channels == 16  # NVLS_NCHANNELS_SM90


def test_acceptance_16gib_h200_nvls_near_published_482():
    # stas00/ml-engineering network benchmarks: 482 GB/s busbw at 16 GiB, 8x H200, NCCL 2.27.7
    p = predict("all_reduce", 16 * GiB, "h200-nvls", ranks=8)
    assert p.algorithm == "NVLS"
    assert abs(p.busbw_GBps - 482) / 482 < 0.15
    assert p.busbw_GBps == pytest.approx(8 * 59.5 * (1 - 25e-6 / p.time_s), rel=1e-9)


def test_graphs_match_nccl_logs_channel_counts():
    # "24 coll channels" (8x H100, one node) and "16 coll channels" (H100 nodes with NICs)
    assert system_for("h100-nvls").comm_channels == 24
    assert system_for("ib-ndr-2node").comm_channels == 16
    ring = system_for("h100-nvlink").graphs["Ring"]
    assert (ring.n_channels, ring.bw_intra) == (12, 30.0)


def test_nvls_only_on_nvls_presets_and_supported_collectives():
    assert predict("all_reduce", GiB, "h100-nvlink").candidates["NVLS/Simple"] == -1
    assert predict("all_reduce", GiB, "h100-nvls").candidates["NVLS/Simple"] > 0
    bcast = predict("broadcast", GiB, "h100-nvls").candidates
    assert all(t == -1 for k, t in bcast.items() if not k.startswith("Ring/"))
    # NVLSTree needs several nodes; NVLS itself is off between nodes without CollNet
    assert predict("all_reduce", GiB, "h100-nvls").candidates["NVLSTree/Simple"] == -1
    multi = predict("all_reduce", GiB, "ib-ndr-4node").candidates
    assert multi["NVLS/Simple"] == -1 and multi["NVLSTree/Simple"] > 0


def test_pat_only_with_one_gpu_per_node_and_simple_only():
    hw = PRESETS["ib-ndr-2node"].nccl
    one_per_node = cost_table(NcclSystem(hw, 4, 1))
    assert one_per_node.time_us("AllGather", "PAT", "Simple", MiB) > 0
    assert one_per_node.time_us("AllGather", "PAT", "LL", MiB) == -1
    assert one_per_node.time_us("AllReduce", "PAT", "Simple", MiB) == -1
    assert predict("all_gather", MiB, "ib-ndr-2node").candidates["PAT/Simple"] == -1


def test_ll128_by_generation_and_path():
    assert predict("all_reduce", 4 * MiB, "a100-nvlink").candidates["Ring/LL128"] > 0
    assert predict("all_reduce", 4 * MiB, "pcie-gen5").candidates["Ring/LL128"] == -1
    # naming LL128 forces it, as NCCL_PROTO=LL128 does
    forced = predict("all_reduce", 4 * MiB, "pcie-gen5", proto="LL128")
    assert forced.protocol == "LL128"


def test_overrides_per_collective_exclusions_and_errors():
    assert predict("all_reduce", GiB, "h200-nvls", algo="allreduce:tree").algorithm == "Tree"
    assert predict("broadcast", GiB, "h200-nvls", algo="allreduce:tree").algorithm == "Ring"
    assert predict("all_reduce", GiB, "h200-nvls", algo="^NVLS").algorithm != "NVLS"
    assert predict("all_reduce", 8, "h200-nvls", proto="^LL").protocol != "LL"
    with pytest.raises(
        NcclInvalidUsage,
        match=r"No algorithm/protocol available for function "
        r"Broadcast with datatype ncclFloat32\. NCCL_ALGO was set to tree\.",
    ):
        predict("broadcast", MiB, "h200-nvls", algo="tree")
    with pytest.raises(NcclInvalidUsage, match='Unrecognized element token "rings"'):
        predict("all_reduce", MiB, "h200-nvls", algo="rings")
    with pytest.raises(NcclInvalidUsage, match="All entries except the first must have a prefix"):
        predict("all_reduce", MiB, "h200-nvls", algo="ring;tree")
    with pytest.raises(NcclInvalidUsage, match='Unrecognized prefix token "allreduse"'):
        predict("all_reduce", MiB, "h200-nvls", algo="allreduse:ring")


def test_send_recv_is_refused_clearly():
    with pytest.raises(ValueError, match="point-to-point"):
        predict("send_recv", MiB, "h200-nvls")


def test_published_tuning_rows_reproduced():
    # github.com/NVIDIA/nccl/issues/1154 (H800, 8x IB NDR 400G per node, NCCL 2.19): the public
    # excerpt's "Max NThreads" row for Tree, Ring, CollNetDirect (LL, LL128, Simple).
    text = tuning_table(table_for("ib-ndr-2node"))
    assert (
        " Max NThreads |            512 |            640 |            512 |            512 |"
        "            640 |            512 |              0 |              0 |            640 |"
    ) in text.splitlines()
    # github.com/NVIDIA/nccl-tests/issues/89 (2 nodes x 8 T4 on PCIe Gen3, 100G RoCE):
    # "Max NThreads | 512 | 640 | 512 | 512 | 640 | 256": rings of <= 12 GB/s get 256 threads.
    t4 = NcclHardware("T4", 75, 8, pcie_gen=3, nics_per_node=1, nic_gbit=100.0)
    assert cost_table(NcclSystem(t4, 2, 8)).max_threads[:2] == ((512, 640, 512), (512, 640, 256))


def test_cli_json_and_table(capsys):
    argv = ["model", "all_reduce", "--size", "32KiB", "--preset", "h200-nvls", "--ranks", "8"]
    assert main(argv + ["--nccl", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out)[:6] == [
        "algorithm",
        "protocol",
        "channels",
        "time_s",
        "algbw_GBps",
        "busbw_GBps",
    ]
    assert out["harness"] == "nccl-tests" and out["call_time_s"] >= out["time_s"]
    assert out["call_time_s"] * 1e6 == pytest.approx(sum(out["call_terms_us"].values()))
    assert (out["algorithm"], out["protocol"]) == ("Ring", "LL")
    assert main(argv + ["--nccl"]) == 0
    text = capsys.readouterr().out
    assert "NCCL 2.30.7 model" in text and "    AllReduce |" in text
    assert main(argv) == 0
    assert "textbook model" in capsys.readouterr().out
    assert main(argv + ["--nccl", "--algo", "bogus"]) == 2
    assert "Unrecognized element token" in capsys.readouterr().err


def test_a_preset_edited_to_one_rank_per_node_is_refused_not_mispriced():
    """A Preset copied with ranks_per_node=1 but NCCL hardware of 8 GPUs per node would be laid
    out on one NVLink node; the model refuses it and names the helper that does it right."""
    import dataclasses

    from nccl_course.cost.nccl import predict
    from nccl_course.cost.presets import PRESETS, one_gpu_per_node

    edited = dataclasses.replace(PRESETS["ib-ndr-2node"], ranks=2, ranks_per_node=1)
    with pytest.raises(ValueError, match="one_gpu_per_node"):
        predict("all_reduce", 25 * 2**20, edited)
    pair = predict("all_reduce", 25 * 2**20, one_gpu_per_node("ib-ndr-2node", 2))
    assert pair.nodes == 2 and pair.ranks == 2
    one_node = predict("all_reduce", 25 * 2**20, "ib-ndr-2node", ranks=2)
    assert one_node.nodes == 1 and pair.time_s > 3 * one_node.time_s  # a NIC, not NVLink
