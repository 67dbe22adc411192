"""Hardware presets: nominal link speeds and latencies of common GPU systems, with sources.

Bandwidths are the *nominal* per-direction figures of the hardware, not fitted to any benchmark:
the model-vs-published table (:mod:`nccl_course.cost.published`) shows how far measured NCCL
numbers fall below them. Latencies alpha are NCCL's own per-hop estimates for the LL protocol from
``src/graph/tuning.cc`` (NCCL 2.x): 0.6 us over NVLink, 2.7 us over the network; for PCIe we
assume 1 us (an assumption, stated as such). gamma (reduction time per byte) is 0 for GPUs: NCCL
fuses the addition into its copy kernels, and HBM bandwidth (several TB/s) does not limit a
reduction fed by a link of at most 450 GB/s.

Each preset also carries ``nccl``: the node as NCCL 2.30.7's topology detection sees it
(:class:`nccl_course.cost.nccl.system.NcclHardware`), which NCCL's own model
(:func:`nccl_course.cost.nccl.predict`) starts from: GPU generation, NVLinks, PCIe, NICs,
NVLS. Those numbers come from NCCL's sources (per-link NVLink speed, PCIe and NIC speed
formulas) and the hardware's datasheets, never from fitting a benchmark.

Units: seconds, bytes/s (GB/s = 1e9 bytes/s).
"""

from __future__ import annotations

from nccl_course.cost.nccl.system import NcclHardware
from nccl_course.cost.node_types import (
    A100_NET_NODE,
    H100_NET_NODE,
    NVLINK3_LINK,
    NVLINK4_LINK,
    NVLINK5_LINK,
    blackwell_node,
    hopper_node,
)
from nccl_course.cost.preset import Preset
from nccl_course.cost.preset_sources import (
    SOURCE_A3_MEGA,
    SOURCE_A3_ULTRA,
    SOURCE_A4,
    SOURCE_A100_PCIE,
    SOURCE_AMD_HOST,
    SOURCE_AWS_OFI,
    SOURCE_DGX_B200,
    SOURCE_GB200_TRAY,
    SOURCE_GB300,
    SOURCE_GRACE,
    SOURCE_HDR,
    SOURCE_L40S,
    SOURCE_L40S_NODE,
    SOURCE_MNNVL,
    SOURCE_NCCL_SOCKETS,
    SOURCE_NCCL_TOPO,
    SOURCE_NDR,
    SOURCE_NVL72,
    SOURCE_NVLINK3,
    SOURCE_NVLINK4,
    SOURCE_NVLINK5,
    SOURCE_NVLS,
    SOURCE_P5,
    SOURCE_P5EN,
    SOURCE_P6_B200,
    SOURCE_PCIE,
    SOURCE_PCIE_P2P,
    SOURCE_ROCE,
    SOURCE_ROCE_200,
    SOURCE_TCPXO,
    SOURCE_TUNING,
    SOURCE_XDR,
    SOURCE_XEON_2SOCKET,
)

__all__ = ["PRESETS", "Preset", "get_preset", "one_gpu_per_node"]

GB = 1e9

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset(
            "h100-nvlink",
            "8x H100 SXM, NVLink 4 through NVSwitch (ring and tree algorithms)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            nccl=hopper_node("H100 SXM", nvls=False),
            **NVLINK4_LINK,
        ),
        Preset(
            "h200-nvlink",
            "8x H200 SXM, NVLink 4 through NVSwitch (ring and tree algorithms)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            nccl=hopper_node("H200 SXM", nvls=False),
            **NVLINK4_LINK,
        ),
        Preset(
            "h100-nvls",
            "8x H100 SXM with NVLink SHARP: the NVSwitch adds (NVLS all-reduce)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            in_network_reduction=True,
            nccl=hopper_node("H100 SXM", nvls=True),
            **NVLINK4_LINK,
        ),
        Preset(
            "h200-nvls",
            "8x H200 SXM with NVLink SHARP: the NVSwitch adds (NVLS all-reduce)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            in_network_reduction=True,
            nccl=hopper_node("H200 SXM", nvls=True),
            **NVLINK4_LINK,
        ),
        Preset(
            "pcie-gen4",
            "8 GPUs on PCIe Gen4 x16 behind a non-blocking switch, no NVLink",
            8,
            alpha_s=1e-6,
            bandwidth_Bps=31.5 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_PCIE, SOURCE_NCCL_TOPO),
            nccl=NcclHardware("A100 PCIe", 80, 8, pcie_gen=4),
        ),
        Preset(
            "pcie-gen5",
            "8 GPUs on PCIe Gen5 x16 behind a non-blocking switch, no NVLink",
            8,
            alpha_s=1e-6,
            bandwidth_Bps=63 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_PCIE, SOURCE_NCCL_TOPO),
            nccl=NcclHardware("H100 PCIe", 90, 8, pcie_gen=5),
        ),
        Preset(
            "ib-ndr-2node",
            "2 nodes x 8 H100 (NVLink 4 inside), 8 InfiniBand NDR 400G NICs per node",
            16,
            source=(SOURCE_NVLINK4, SOURCE_NDR, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="ib",
            nccl=H100_NET_NODE,
            **NVLINK4_LINK,
        ),
        Preset(
            "ib-ndr-4node",
            "4 nodes x 8 H100 (NVLink 4 inside), 8 InfiniBand NDR 400G NICs per node",
            32,
            source=(SOURCE_NVLINK4, SOURCE_NDR, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="ib",
            nccl=H100_NET_NODE,
            **NVLINK4_LINK,
        ),
        Preset(
            "roce-2node",
            "2 nodes x 8 H100 (NVLink 4 inside), 8 RoCE 400GbE NICs per node",
            16,
            source=(SOURCE_NVLINK4, SOURCE_ROCE, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="roce",
            nccl=H100_NET_NODE,
            **NVLINK4_LINK,
        ),
        Preset(
            "a100-nvlink",
            "8x A100 SXM (40 GB or 80 GB parts), NVLink 3 through NVSwitch (no NVLS: Ampere)",
            8,
            alpha_s=0.6e-6,
            bandwidth_Bps=300 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_NVLINK3, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            nccl=NcclHardware("A100 SXM", 80, 8, nvlink_links=12, pcie_gen=4),
        ),
        Preset(
            "b200-nvls",
            "8x B200, NVLink 5 through NVSwitch with NVLink SHARP",
            8,
            alpha_s=0.6e-6,
            bandwidth_Bps=900 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_NVLINK5, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            in_network_reduction=True,
            nccl=NcclHardware("B200", 100, 8, nvlink_links=18, pcie_gen=5, nvls=True),
        ),
        Preset(
            "gb200-nvl72",
            "GB200 NVL72: 72 B200 GPUs in one NVLink domain (multi-node NVLink through NVLink "
            "Switch trays, NVLS across the rack); NCCL tunes it as one node",
            72,
            alpha_s=0.6e-6,
            bandwidth_Bps=900 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_NVL72, SOURCE_MNNVL, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            ranks_per_node=72,
            in_network_reduction=True,
            nccl=NcclHardware(
                "B200 in GB200 NVL72", 100, 72, nvlink_links=18, pcie_gen=5, nvls=True
            ),
        ),
        Preset(
            "ib-xdr-2node",
            "2 nodes x 8 Blackwell GPUs (NVLink 5 inside), 8 InfiniBand XDR 800G NICs per node "
            "on PCIe Gen6 x16",
            16,
            alpha_s=0.6e-6,
            bandwidth_Bps=900 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_NVLINK5, SOURCE_XDR, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=100 * GB,
            in_network_reduction=True,
            network="ib",
            nccl=NcclHardware(
                "B200-class",
                100,
                8,
                nvlink_links=18,
                pcie_gen=6,
                nics_per_node=8,
                nic_gbit=800.0,
                nvls=True,
            ),
        ),
        Preset(
            "a100-ib-hdr-2node",
            "2 nodes x 8 A100 SXM (NVLink 3 inside, PCIe Gen4), 8 InfiniBand HDR 200G NICs per "
            "node (DGX A100 style, AMD EPYC hosts)",
            16,
            source=(SOURCE_NVLINK3, SOURCE_HDR, SOURCE_AMD_HOST, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=25 * GB,
            network="ib",
            nccl=A100_NET_NODE,
            **NVLINK3_LINK,
        ),
        Preset(
            "a100-roce-2node",
            "2 nodes x 8 A100 SXM (NVLink 3 inside, PCIe Gen4), 8 RoCE 200GbE NICs per node "
            "(DGX A100 style, AMD EPYC hosts)",
            16,
            source=(
                SOURCE_NVLINK3,
                SOURCE_ROCE_200,
                SOURCE_AMD_HOST,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=25 * GB,
            network="roce",
            nccl=A100_NET_NODE,
            **NVLINK3_LINK,
        ),
        Preset(
            "h100-efa-2node",
            "2 x AWS p5.48xlarge: 8 H100 SXM (NVLink 4, NVLS), EFA 3200 Gbps (32 x 100 Gbps) that "
            "aws-ofi-nccl shows NCCL as 8 NICs of 400 Gb/s; AMD EPYC hosts; the plugin's 75 us "
            "network latency and tuner are not modelled",
            16,
            source=(
                SOURCE_NVLINK4,
                SOURCE_P5,
                SOURCE_AWS_OFI,
                SOURCE_AMD_HOST,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="efa",
            nccl=hopper_node("H100 SXM", nvls=True, nics=8, nic_gbit=400.0, cpu_vendor="AMD"),
            **NVLINK4_LINK,
        ),
        Preset(
            "h200-efa-2node",
            "2 x AWS p5en.48xlarge: 8 H200 SXM (NVLink 4, NVLS), EFAv3 3200 Gbps (16 x 200 Gbps) "
            "that aws-ofi-nccl shows NCCL as 8 NICs of 400 Gb/s; the plugin's 35 us network "
            "latency and tuner are not modelled",
            16,
            source=(
                SOURCE_NVLINK4,
                SOURCE_P5EN,
                SOURCE_AWS_OFI,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="efa",
            nccl=hopper_node("H200 SXM", nvls=True, nics=8, nic_gbit=400.0),
            **NVLINK4_LINK,
        ),
        Preset(
            "a3-ultra-2node",
            "2 x Google Cloud A3 Ultra: 8 H200 SXM (NVLink 4, NVLS), 8 ConnectX-7 400G RoCE NICs "
            "per node (3.2 Tbps)",
            16,
            source=(
                SOURCE_NVLINK4,
                SOURCE_A3_ULTRA,
                SOURCE_ROCE,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="gke-roce",
            nccl=hopper_node("H200 SXM", nvls=True, nics=8, nic_gbit=400.0),
            **NVLINK4_LINK,
        ),
        Preset(
            "a3-mega-2node",
            "2 x Google Cloud A3 Mega: 8 H100 SXM (NVLink 4), 8 NICs of 200 Gb/s with "
            "GPUDirect-TCPXO per node (1.6 Tbps); NVLS off as Google's NCCL settings have it",
            16,
            source=(SOURCE_NVLINK4, SOURCE_A3_MEGA, SOURCE_TCPXO, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=25 * GB,
            network="tcpxo",
            nccl=hopper_node("H100 SXM", nvls=False, nics=8, nic_gbit=200.0),
            **NVLINK4_LINK,
        ),
        Preset(
            "b200-ib-ndr-2node",
            "2 nodes x 8 B200 (NVLink 5 inside, NVLS), 8 ConnectX-7 InfiniBand NDR 400G NICs per "
            "node on PCIe Gen5 (DGX B200 style)",
            16,
            source=(
                SOURCE_NVLINK5,
                SOURCE_DGX_B200,
                SOURCE_NDR,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="ib",
            nccl=blackwell_node("B200", nics=8, nic_gbit=400.0),
            **NVLINK5_LINK,
        ),
        Preset(
            "a4-2node",
            "2 x Google Cloud A4: 8 B200 (NVLink 5 inside, NVLS), 8 ConnectX-7 400 Gbps RoCE NICs "
            "per node through Google's gIB plugin",
            16,
            source=(SOURCE_NVLINK5, SOURCE_A4, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="gke-roce",
            nccl=blackwell_node("B200", nics=8, nic_gbit=400.0),
            **NVLINK5_LINK,
        ),
        Preset(
            "b200-efa-2node",
            "2 x AWS p6-b200.48xlarge: 8 B200 (NVLink 5, NVLS), EFAv4 3200 Gbps (8 x 400 Gbps), "
            "8 NICs of 400 Gb/s to NCCL; the plugin's 35 us network latency is not modelled",
            16,
            source=(
                SOURCE_NVLINK5,
                SOURCE_P6_B200,
                SOURCE_AWS_OFI,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="efa",
            nccl=blackwell_node("B200", nics=8, nic_gbit=400.0),
            **NVLINK5_LINK,
        ),
        Preset(
            "gb200-4gpu-2node",
            "2 GB200 compute trays seen as nodes of 4 B200 (MNNVL off: NVLink 5 and NVLS inside a "
            "tray), 4 ConnectX-7 400G InfiniBand NICs per tray; Grace (Arm) hosts priced as x86",
            8,
            source=(
                SOURCE_NVL72,
                SOURCE_GB200_TRAY,
                SOURCE_MNNVL,
                SOURCE_GRACE,
                SOURCE_NVLS,
                SOURCE_TUNING,
                SOURCE_NCCL_TOPO,
            ),
            ranks_per_node=4,
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="ib",
            nccl=blackwell_node("B200 in GB200 tray", gpus=4, nics=4, nic_gbit=400.0),
            **NVLINK5_LINK,
        ),
        Preset(
            "gb300-nvl72",
            "GB300 NVL72: 72 Blackwell Ultra GPUs (sm_103) in one NVLink domain (multi-node "
            "NVLink through NVLink Switch trays, NVLS across the rack); NCCL tunes it as one node",
            72,
            source=(SOURCE_GB300, SOURCE_MNNVL, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            ranks_per_node=72,
            in_network_reduction=True,
            nccl=NcclHardware(
                "B300 in GB300 NVL72", 103, 72, nvlink_links=18, pcie_gen=5, nvls=True
            ),
            **NVLINK5_LINK,
        ),
        Preset(
            "a100-pcie-2socket",
            "4x A100 PCIe on a two-socket Intel Xeon Scalable host (Skylake class), each GPU on "
            "its own PCIe Gen3 x16 root port, 2 per socket, no NVLink, no PCIe switch: every "
            "GPU pair goes through the CPUs, across the sockets for 4 of 6 pairs",
            4,
            alpha_s=1e-6,
            bandwidth_Bps=15.75 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_A100_PCIE, SOURCE_XEON_2SOCKET, SOURCE_PCIE, SOURCE_NCCL_SOCKETS),
            ranks_per_node=4,
            nccl=NcclHardware(
                "A100 PCIe",
                80,
                4,
                pcie_gen=3,
                sockets=2,
                cpu_model="SKL",
                pcie_switch=False,
            ),
        ),
        Preset(
            "l40s-roce-2x2",
            "2 nodes x 2 L40S, one per socket of a two-socket AMD EPYC host on its own PCIe Gen4 "
            "x16 root port, and 2 RoCE ports of 400 Gb/s per node (SR-IOV functions of one "
            "ConnectX-7) on a root port of the first socket: no GPUDirect RDMA at NCCL's default",
            4,
            alpha_s=1e-6,
            bandwidth_Bps=31.5 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_L40S, SOURCE_L40S_NODE, SOURCE_PCIE, SOURCE_ROCE, SOURCE_NCCL_SOCKETS),
            ranks_per_node=2,
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            network="roce",
            nccl=NcclHardware(
                "L40S",
                89,
                2,
                pcie_gen=4,
                nics_per_node=2,
                nic_gbit=400.0,
                cpu_vendor="AMD",
                sockets=2,
                pcie_switch=False,
                nics_on_cpu=True,
            ),
        ),
        Preset(
            "l40s-pcie",
            "8x L40S (Ada, sm_89) on PCIe Gen4 x16, no NVLink, no NVLS; PCIe peer-to-peer "
            "assumed on (GPUs behind PCIe switches)",
            8,
            alpha_s=1e-6,
            bandwidth_Bps=31.5 * GB,
            gamma_s_per_byte=0.0,
            source=(SOURCE_L40S, SOURCE_PCIE, SOURCE_PCIE_P2P, SOURCE_NCCL_TOPO),
            nccl=NcclHardware("L40S", 89, 8, pcie_gen=4),
        ),
    ]
}


def one_gpu_per_node(preset: str | Preset, nodes: int) -> Preset:
    """:meth:`Preset.one_gpu_per_node` of a preset or its name."""
    return get_preset(preset).one_gpu_per_node(nodes)


def get_preset(preset: str | Preset) -> Preset:
    """A preset by name (or the preset itself); unknown names raise ValueError listing the known."""
    if isinstance(preset, Preset):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise ValueError(
            f"unknown preset {preset!r}; known: {', '.join(PRESETS)} "
            "(see 'nccl-course model --list-presets')"
        ) from None
