"""The presets for what learners rent (A100 HDR/RoCE pairs, AWS p5/p5en/p6-b200 over EFA, Google
Cloud A3 Ultra and A3 Mega, B200 over NDR, GB200 trays without MNNVL, GB300 NVL72, 8x L40S): each
node is the one its sources describe, NCCL's model sees the NICs the sources say it sees, and the
GPU names torch reports find the right presets."""

from __future__ import annotations

import pytest

from nccl_course.cli import main
from nccl_course.cost import get_preset
from nccl_course.cost.nccl import predict, system_for
from nccl_course.cost.nccl import tables as T
from nccl_course.results.gpus import family_of

# name: (nodes, GPUs per node, NICs per node, Gb/s per NIC as NCCL sees it, network, NVLS)
EXPECTED = {
    "a100-ib-hdr-2node": (2, 8, 8, 200.0, "ib", False),
    "a100-roce-2node": (2, 8, 8, 200.0, "roce", False),
    # p5: 32 EFA devices of 100 Gb/s, 4 per GPU, shown to NCCL as one 400 Gb/s NIC per GPU
    "h100-efa-2node": (2, 8, 8, 400.0, "efa", True),
    # p5en: 16 EFA devices of 200 Gb/s, 2 per GPU
    "h200-efa-2node": (2, 8, 8, 400.0, "efa", True),
    "a3-ultra-2node": (2, 8, 8, 400.0, "gke-roce", True),
    # A3 Mega: 8 x 200 Gb/s, NVLS off as Google's NCCL settings have it
    "a3-mega-2node": (2, 8, 8, 200.0, "tcpxo", False),
    "b200-ib-ndr-2node": (2, 8, 8, 400.0, "ib", True),
    "b200-efa-2node": (2, 8, 8, 400.0, "efa", True),
    "gb200-4gpu-2node": (2, 4, 4, 400.0, "ib", True),
    "gb300-nvl72": (1, 72, 0, 0.0, None, True),
    "l40s-pcie": (1, 8, 0, 0.0, None, False),
}
# total GPU network per node in the sources, Gb/s (3.2 Tbps on p5, p5en, p6-b200, A3 Ultra)
NETWORK_GBPS = {
    "a100-ib-hdr-2node": 1600,
    "a100-roce-2node": 1600,
    "h100-efa-2node": 3200,
    "h200-efa-2node": 3200,
    "a3-ultra-2node": 3200,
    "a3-mega-2node": 1600,
    "b200-ib-ndr-2node": 3200,
    "b200-efa-2node": 3200,
    "gb200-4gpu-2node": 1600,
}
CC = {
    "a100-ib-hdr-2node": 80,
    "a100-roce-2node": 80,
    "h100-efa-2node": 90,
    "h200-efa-2node": 90,
    "a3-ultra-2node": 90,
    "a3-mega-2node": 90,
    "b200-ib-ndr-2node": 100,
    "b200-efa-2node": 100,
    "gb200-4gpu-2node": 100,
    "gb300-nvl72": 103,
    "l40s-pcie": 89,
}
MULTI = [n for n, e in EXPECTED.items() if e[0] > 1]


def test_listed_with_sources(capsys):
    assert main(["model", "--list-presets"]) == 0
    out = capsys.readouterr().out
    for name in EXPECTED:
        assert f"{name}: " in out
        preset = get_preset(name)
        assert preset.source and all("http" in s for s in preset.source), name


@pytest.mark.parametrize("name", EXPECTED)
def test_layout_nics_network_and_nvls(name):
    nodes, per_node, nics, gbit, network, nvls = EXPECTED[name]
    preset = get_preset(name)
    system = system_for(preset)
    hw = preset.nccl
    assert (system.nodes, system.gpus_per_node) == (nodes, per_node)
    assert (preset.nodes, preset.ranks_per_node) == (nodes, per_node)
    assert (hw.nics_per_node, hw.nic_gbit) == (nics, gbit)
    assert hw.compute_capability == CC[name]
    assert preset.network == network
    assert system.nvls_support is nvls
    # the alpha-beta model's nvls all-reduce is one switch: one NVLink domain only
    assert preset.in_network_reduction is (nvls and nodes == 1)
    if nodes > 1:
        assert hw.nics_per_node * hw.nic_gbit == NETWORK_GBPS[name]
        # the alpha-beta model's NIC is the same port: Gb/s / 8 = GB/s
        assert preset.inter_bandwidth_Bps == pytest.approx(gbit / 8 * 1e9)
        assert hw.nics_per_node == hw.gpus_per_node  # rail-optimised, one NIC per GPU


@pytest.mark.parametrize("name", MULTI)
def test_ring_channels_are_limited_by_the_nics(name):
    """Each ring channel crosses every node's network once: the channels x speed the search
    keeps never exceed the NICs' bandwidth (min of NIC and PCIe, NCCL's per-NIC cap)."""
    system = system_for(name)
    hw = system.hardware
    ring = system.graphs["Ring"]
    assert ring.n_channels > 0
    per_nic = min(hw.nic_bw, hw.pcie_bw)
    assert ring.n_channels * ring.bw_inter <= hw.nics_per_node * per_nic + 1e-9
    # and it fills them: a faster speed with as many channels would not fit
    assert ring.n_channels * ring.bw_inter >= 0.49 * hw.nics_per_node * per_nic


def test_a100_nodes_see_hdr_capped_by_pcie_gen4():
    for name in ("a100-ib-hdr-2node", "a100-roce-2node"):
        hw = get_preset(name).nccl
        assert hw.nic_bw == pytest.approx(25.0)  # 200000 Mb/s / 8000
        assert hw.pcie_bw == pytest.approx(24.0)  # Gen4 x16: 16 x 120 / 80
        assert hw.nvlink_bw == pytest.approx(12 * 20.0)
        assert hw.cpu_vendor == "AMD"  # DGX A100: 2x AMD EPYC 7742
    # same node, same NCCL view: only the network class differs
    assert get_preset("a100-ib-hdr-2node").nccl == get_preset("a100-roce-2node").nccl


def test_efa_nodes_look_like_eight_400g_nics_to_nccl():
    ndr = system_for("ib-ndr-2node")
    for name in ("h100-efa-2node", "h200-efa-2node", "b200-efa-2node"):
        system = system_for(name)
        assert system.hardware.nic_bw == pytest.approx(50.0)
        assert system.hardware.pcie_bw == pytest.approx(48.0)
        assert system.graphs["Ring"] == ndr.graphs["Ring"]
    # p5's hosts are AMD EPYC: NCCL's 2 us network overhead makes small ring steps dearer
    amd = predict("all_gather", 1024, "h100-efa-2node", algo="ring", proto="LL")
    intel = predict("all_gather", 1024, "ib-ndr-2node", algo="ring", proto="LL")
    assert amd.time_s > intel.time_s


def test_a3_mega_has_half_the_network_and_no_nvls():
    mega = predict("all_reduce", 2**30, "a3-mega-2node")
    ultra = predict("all_reduce", 2**30, "a3-ultra-2node")
    assert mega.algorithm != "NVLS" and "NVLS" not in mega.algorithm
    assert system_for("a3-mega-2node").nvls_channels == 0
    assert ultra.algorithm == "NVLSTree"
    assert mega.busbw_GBps < 0.55 * ultra.busbw_GBps
    ring = predict("all_reduce", 2**30, "a3-mega-2node", algo="ring", proto="simple")
    assert (ring.algorithm, ring.protocol) == ("Ring", "Simple")


def test_b200_ndr_nodes_use_blackwell_nvls_channels():
    for name in ("b200-ib-ndr-2node", "b200-efa-2node"):
        system = system_for(name)
        assert system.hardware.nvlink_bw == pytest.approx(18 * 40.1)
        assert system.nvls_channels == T.NVLS_CHANNELS_SM100 == 32
        assert predict("all_reduce", 2**30, name).algorithm == "NVLSTree"
    # NDR per GPU is half of XDR: the big all-reduce is slower than on ib-xdr-2node
    ndr = predict("all_reduce", 2**30, "b200-ib-ndr-2node").busbw_GBps
    xdr = predict("all_reduce", 2**30, "ib-xdr-2node").busbw_GBps
    assert ndr < xdr


def test_gb200_trays_without_mnnvl_are_4_gpu_nodes():
    preset = get_preset("gb200-4gpu-2node")
    system = system_for(preset)
    assert (system.nodes, system.gpus_per_node, system.ranks) == (2, 4, 8)
    assert system.hardware.nvlink_bw == pytest.approx(18 * 40.1)
    # 4 NICs of 400 Gb/s per tray: half the network of an 8-GPU B200 node
    tray = predict("all_reduce", 2**30, preset, algo="ring", proto="simple").busbw_GBps
    dgx = predict("all_reduce", 2**30, "b200-ib-ndr-2node", algo="ring", proto="simple")
    assert tray < dgx.busbw_GBps
    # ranks beyond whole trays are refused rather than laid out on one NVLink node
    with pytest.raises(ValueError):
        system_for(preset, ranks=6)
    assert system_for(preset, ranks=16).nodes == 4


def test_gb300_nvl72_is_one_nvlink_domain_like_gb200():
    gb300 = system_for("gb300-nvl72")
    gb200 = system_for("gb200-nvl72")
    assert gb300.cc == 103 and gb300.hardware.compute_capability == 103
    assert (gb300.nodes, gb300.gpus_per_node) == (1, 72)
    # sm_103 is sm_100 to NCCL: 40.1 GB/s per NVLink, Blackwell NVLS channels and tables
    assert gb300.hardware.nvlink_bw == pytest.approx(18 * 40.1)
    assert T.speed_family(103) == "sm100" and T.generation_index(103) == T.generation_index(100)
    assert gb300.nvls_support
    assert gb300.nvls_channels == T.NVLS_CHANNELS_SM100_ONE_NODE
    assert gb300.graphs == gb200.graphs
    large = predict("all_reduce", 2**30, "gb300-nvl72")
    assert (large.ranks, large.algorithm) == (72, "NVLS")
    assert large.time_s == predict("all_reduce", 2**30, "gb200-nvl72").time_s


def test_l40s_is_pcie_gen4_without_nvlink_or_nvls():
    preset = get_preset("l40s-pcie")
    system = system_for(preset)
    hw = system.hardware
    assert hw.nvlink_links == 0 and not hw.nvls
    assert (hw.pcie_gen, hw.pcie_lanes) == (4, 16)
    assert hw.pcie_bw == pytest.approx(24.0)
    assert not system.nvls_support and system.nvls_channels == 0
    assert system.graphs["NVLS"] is None
    assert system.graphs["Ring"].type_intra == "PIX"  # P2P over PCIe, not through the CPU
    assert preset.bandwidth_Bps == pytest.approx(31.5e9)
    assert any("P2P" in s for s in preset.source)
    r = predict("all_reduce", 2**30, preset)
    assert (r.algorithm, r.protocol) == ("Ring", "Simple")  # no LL128 on PCIe paths
    assert r.busbw_GBps < 24.0 + 1e-9
    # one node only
    with pytest.raises(ValueError):
        system_for(preset, ranks=16)


@pytest.mark.parametrize("name", EXPECTED)
@pytest.mark.parametrize("collective", ["all_reduce", "all_gather", "reduce_scatter", "broadcast"])
def test_every_new_preset_prices_every_size(name, collective):
    last = 0.0
    for size in (1024, 2**20, 2**26, 2**30):
        r = predict(collective, size, name)
        assert r.time_s > last  # more bytes never take less time
        assert r.busbw_GBps > 0
        last = r.time_s


@pytest.mark.parametrize(
    ("gpu", "one_node", "multi_node"),
    [
        ("NVIDIA L40S", ("l40s-pcie",), None),
        ("NVIDIA A100-SXM4-40GB", ("a100-nvlink",), "a100-ib-hdr-2node"),
        ("NVIDIA A100-SXM4-80GB", ("a100-nvlink",), "a100-ib-hdr-2node"),
        ("NVIDIA A100-PCIE-40GB", ("pcie-gen4",), None),
        ("NVIDIA H200", ("h200-nvlink", "h200-nvls"), "a3-ultra-2node"),
        ("NVIDIA H100 80GB HBM3", ("h100-nvlink", "h100-nvls"), "ib-ndr-2node"),
        ("NVIDIA B200", ("b200-nvls",), "ib-xdr-2node"),
    ],
)
def test_gpu_names_find_the_new_presets(gpu, one_node, multi_node):
    family = family_of([gpu] * 8)
    assert family is not None
    assert (family.one_node, family.multi_node) == (one_node, multi_node)
    for name in (*family.one_node, family.multi_node):
        if name is not None:
            get_preset(name)  # exists


@pytest.mark.parametrize("gpu", ["NVIDIA L40", "NVIDIA GB200", "NVIDIA GB300", "NVIDIA L4"])
def test_lookalike_names_get_no_l40s_or_b200_preset(gpu):
    family = family_of([gpu])
    assert family is None or family.name not in ("L40S", "B200")
