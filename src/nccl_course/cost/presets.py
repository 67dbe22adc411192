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

from dataclasses import dataclass

from nccl_course.cost.nccl.system import NcclHardware
from nccl_course.cost.topology import Topology

GB = 1e9

SOURCE_NVLINK4 = (
    "NVLink 4 on H100/H200 SXM: 18 links, 900 GB/s bidirectional = 450 GB/s per direction "
    "(NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/)"
)
SOURCE_TUNING = (
    "NCCL per-hop latency estimates, LL protocol: NVLink ring 0.6 us, network ring 2.7 us "
    "(NVIDIA/nccl src/graph/tuning.cc, https://github.com/NVIDIA/nccl)"
)
SOURCE_NVLS = (
    "NVLS (NVLink SHARP) all-reduce: NCCL 2.17+, needs 3rd-generation NVSwitch and Hopper or newer "
    "(NCCL 2.17 release notes, https://docs.nvidia.com/deeplearning/nccl/release-notes/)"
)
SOURCE_PCIE = (
    "PCIe x16 per direction: Gen5 32 GT/s ~63 GB/s, Gen4 16 GT/s ~31.5 GB/s after 128b/130b "
    "encoding (PCI-SIG specifications, https://pcisig.com/specifications); alpha 1 us assumed"
)
SOURCE_NVLINK3 = (
    "NVLink 3 on A100 SXM: 12 links, 600 GB/s bidirectional = 300 GB/s per direction "
    "(NVIDIA A100 datasheet, https://www.nvidia.com/en-us/data-center/a100/)"
)
SOURCE_NVLINK5 = (
    "NVLink 5 on B200: 18 links, 1.8 TB/s bidirectional = 900 GB/s per direction "
    "(NVIDIA DGX B200 / Blackwell pages, https://www.nvidia.com/en-us/data-center/dgx-b200/)"
)
SOURCE_NCCL_TOPO = (
    "NCCL 2.30.7's view of the node: GB/s per NVLink by compute capability (20 for sm_80, "
    "20.6 for sm_90, 40.1 for sm_100; src/graph/topo.h), PCIe lanes x rate / 80 "
    "(src/graph/topo.cc), NIC Mb/s / 8000 (https://github.com/NVIDIA/nccl/tree/v2.30.7-1)"
)
SOURCE_NDR = (
    "InfiniBand NDR: 400 Gb/s = 50 GB/s per port, one NIC per GPU (8 per node), rail-optimised "
    "(NVIDIA ConnectX-7 / Quantum-2 product pages, https://www.nvidia.com/en-us/networking/)"
)
SOURCE_ROCE = (
    "RoCE v2 at 400 GbE = 50 GB/s per port, one NIC per GPU (8 per node); NCCL's tuning model "
    "uses the same network latency for IB and RoCE (NVIDIA/nccl src/graph/tuning.cc, "
    "https://github.com/NVIDIA/nccl)"
)

SOURCE_NVL72 = (
    "GB200 NVL72: 72 Blackwell GPUs in one NVLink domain, each with 18 NVLink 5 links of "
    "100 GB/s (1.8 TB/s bidirectional = 900 GB/s per direction), 130 TB/s in the rack "
    "through NVLink Switch trays (NVIDIA NVLink and NVLink Switch page, "
    "https://www.nvidia.com/en-us/data-center/nvlink/)"
)
SOURCE_MNNVL = (
    "Multi-node NVLink in NCCL: NCCL_MNNVL_ENABLE since 2.21 (default 2, automatic; "
    "docs/userguide/source/env.rst); with MNNVL NCCL fuses the topologies of the clique's hosts "
    "and tunes the NVLink domain as one node (src/graph/topo.cc lines 1887-1891, src/init.cc "
    "lines 1285-1296, NVIDIA/nccl v2.30.7-1); GB200 MNNVL supported from NCCL 2.25.2 "
    "(https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/nccl.html)"
)
SOURCE_XDR = (
    "InfiniBand XDR: 4 lanes x 200000 Mb/s = 800 Gb/s = 100 GB/s per port (NCCL's ibvSpeeds, "
    "src/transport/net_ib/init.cc, NVIDIA/nccl v2.30.7-1); ConnectX-8 SuperNIC: 800 Gb/s XDR "
    "(https://docs.nvidia.com/networking/display/connectx8firmwarev40440208/changes+and+new+features); "
    "NIC and GPU on PCIe Gen6 x16 (64 GT/s, https://pcisig.com/specifications) is this "
    "preset's assumption: one Gen5 x16 link (about 63 GB/s) cannot feed 100 GB/s"
)


@dataclass(frozen=True)
class Preset:
    """A system to predict on. ``ranks``: GPUs in the default configuration; ``alpha_s`` and
    ``bandwidth_Bps``: latency and per-direction bandwidth of one GPU's link into its node's
    switch; ``gamma_s_per_byte``: reduction time per byte; multi-node presets also have
    ``inter_alpha_s`` and ``inter_bandwidth_Bps`` (one NIC per GPU). ``in_network_reduction``:
    the switch can add (NVLS), which enables the ``nvls`` all-reduce. ``nccl``: the node as
    NCCL's own model sees it (None: NCCL's model does not apply)."""

    name: str
    description: str
    ranks: int
    alpha_s: float
    bandwidth_Bps: float
    gamma_s_per_byte: float
    source: tuple[str, ...]
    ranks_per_node: int = 8
    inter_alpha_s: float | None = None
    inter_bandwidth_Bps: float | None = None
    in_network_reduction: bool = False
    nccl: NcclHardware | None = None

    def as_dict(self) -> dict:
        """The preset's numbers and sources as plain data (JSON-ready); with an NCCL description,
        also the GPU, its compute capability and the layout (GPUs per node, nodes)."""
        data = {
            "description": self.description,
            "ranks": self.ranks,
            "alpha_s": self.alpha_s,
            "bandwidth_Bps": self.bandwidth_Bps,
            "gamma_s_per_byte": self.gamma_s_per_byte,
            "ranks_per_node": self.ranks_per_node,
            "inter_alpha_s": self.inter_alpha_s,
            "inter_bandwidth_Bps": self.inter_bandwidth_Bps,
            "in_network_reduction": self.in_network_reduction,
            "source": list(self.source),
        }
        if self.nccl is not None:
            data["nccl"] = {
                "gpu": self.nccl.gpu,
                "compute_capability": self.nccl.compute_capability,
                "gpus_per_node": self.nccl.gpus_per_node,
                "nodes": self.nodes,
            }
        return data

    @property
    def nodes(self) -> int:
        return -(-self.ranks // self.ranks_per_node)

    @property
    def beta_s_per_byte(self) -> float:
        return 1.0 / self.bandwidth_Bps

    def topology(self, ranks: int | None = None) -> Topology:
        """The preset's topology for ``ranks`` GPUs (default: the preset's own count). A
        single-node preset asked for more ranks than it has is treated as one bigger switch."""
        p = self.ranks if ranks is None else int(ranks)
        if p < 1:
            raise ValueError(f"rank count must be at least 1, got {p}")
        if self.inter_bandwidth_Bps is None:
            return Topology.fully_connected(
                p, self.alpha_s, self.bandwidth_Bps, self.gamma_s_per_byte
            )
        return Topology.multi_node(
            p,
            self.ranks_per_node,
            intra_alpha_s=self.alpha_s,
            intra_bandwidth_Bps=self.bandwidth_Bps,
            inter_alpha_s=self.inter_alpha_s,
            inter_bandwidth_Bps=self.inter_bandwidth_Bps,
            gamma_s_per_byte=self.gamma_s_per_byte,
        )


_NVLINK = dict(alpha_s=0.6e-6, bandwidth_Bps=450 * GB, gamma_s_per_byte=0.0)


def _hopper(gpu: str, nvls: bool, nics: int = 0, nic_gbit: float = 0.0) -> NcclHardware:
    """8 Hopper GPUs (sm_90) with 18 NVLinks each to NVSwitch, PCIe Gen5 x16, optional NICs."""
    return NcclHardware(
        gpu, 90, 8, nvlink_links=18, pcie_gen=5, nics_per_node=nics, nic_gbit=nic_gbit, nvls=nvls
    )


_H100_NET = _hopper("H100 SXM", nvls=True, nics=8, nic_gbit=400.0)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset(
            "h100-nvlink",
            "8x H100 SXM, NVLink 4 through NVSwitch (ring and tree algorithms)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            nccl=_hopper("H100 SXM", nvls=False),
            **_NVLINK,
        ),
        Preset(
            "h200-nvlink",
            "8x H200 SXM, NVLink 4 through NVSwitch (ring and tree algorithms)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            nccl=_hopper("H200 SXM", nvls=False),
            **_NVLINK,
        ),
        Preset(
            "h100-nvls",
            "8x H100 SXM with NVLink SHARP: the NVSwitch adds (NVLS all-reduce)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            in_network_reduction=True,
            nccl=_hopper("H100 SXM", nvls=True),
            **_NVLINK,
        ),
        Preset(
            "h200-nvls",
            "8x H200 SXM with NVLink SHARP: the NVSwitch adds (NVLS all-reduce)",
            8,
            source=(SOURCE_NVLINK4, SOURCE_NVLS, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            in_network_reduction=True,
            nccl=_hopper("H200 SXM", nvls=True),
            **_NVLINK,
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
            nccl=_H100_NET,
            **_NVLINK,
        ),
        Preset(
            "ib-ndr-4node",
            "4 nodes x 8 H100 (NVLink 4 inside), 8 InfiniBand NDR 400G NICs per node",
            32,
            source=(SOURCE_NVLINK4, SOURCE_NDR, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            nccl=_H100_NET,
            **_NVLINK,
        ),
        Preset(
            "roce-2node",
            "2 nodes x 8 H100 (NVLink 4 inside), 8 RoCE 400GbE NICs per node",
            16,
            source=(SOURCE_NVLINK4, SOURCE_ROCE, SOURCE_TUNING, SOURCE_NCCL_TOPO),
            inter_alpha_s=2.7e-6,
            inter_bandwidth_Bps=50 * GB,
            nccl=_H100_NET,
            **_NVLINK,
        ),
        Preset(
            "a100-nvlink",
            "8x A100 SXM, NVLink 3 through NVSwitch (no NVLS: Ampere)",
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
    ]
}


def one_gpu_per_node(preset: str | Preset, nodes: int) -> Preset:
    """One GPU of each of ``nodes`` nodes of a multi-node ``preset``, each with its own NIC: the
    group of GPUs that share a local rank (a rail), such as HSDP's replicate group or the
    communicator PAT needs (one rank per node). NCCL's model sees ``nodes`` nodes of one GPU
    and one NIC each."""
    from dataclasses import replace

    base = get_preset(preset)
    if base.inter_bandwidth_Bps is None or base.nccl is None or not base.nccl.nics_per_node:
        raise ValueError(f"preset {base.name!r} has no network between nodes")
    if nodes < 2:
        raise ValueError(f"a group across nodes needs at least 2 nodes, got {nodes}")
    return replace(
        base,
        name=f"{base.name}-1gpu-x{nodes}",
        description=f"{nodes} nodes x 1 GPU of {base.name}, one NIC each",
        ranks=nodes,
        ranks_per_node=1,
        nccl=replace(base.nccl, gpus_per_node=1, nics_per_node=1),
    )


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
