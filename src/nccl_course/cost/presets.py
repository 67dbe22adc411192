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

from nccl_course.cost.nccl.call_cost import Calibration
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


SOURCE_HDR = (
    "InfiniBand HDR: 4 lanes x 50000 Mb/s = 200 Gb/s = 25 GB/s per port (NCCL's ibvSpeeds, "
    "src/transport/net_ib/init.cc lines 117-127, NVIDIA/nccl v2.30.7-1); NVIDIA DGX A100: 8 "
    "A100 SXM on NVSwitch, 8 single-port ConnectX-6 200 Gb/s HDR InfiniBand for the compute "
    "fabric (one per GPU), PCIe Gen4, 2x AMD EPYC 7742 "
    "(https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html)"
)
SOURCE_ROCE_200 = (
    "RoCE v2 at 200 GbE = 25 GB/s per port, one NIC per GPU on the DGX A100 node "
    "(ConnectX-6 VPI runs InfiniBand or Ethernet, "
    "https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html); NCCL drives "
    "RoCE with its IB verbs transport and its tuning model uses the same network latency for IB "
    "and RoCE (src/graph/tuning.cc, NVIDIA/nccl v2.30.7-1)"
)
SOURCE_AMD_HOST = (
    "AMD host CPUs in NCCL's tuner: 2 us of network overhead per ring step instead of 1 "
    "(getNetOverhead, src/graph/tuning.cc lines 228-233) and the AMD row of llMaxBws between "
    "nodes (lines 268-271), NVIDIA/nccl v2.30.7-1, "
    "https://github.com/NVIDIA/nccl/blob/v2.30.7-1/src/graph/tuning.cc"
)
SOURCE_P5 = (
    "AWS p5.48xlarge: 8 H100 80GB on NVSwitch, 3200 Gbps EFA (EFAv2) over 32 network cards of "
    "100 Gbps, 3rd-generation AMD EPYC (https://aws.amazon.com/ec2/instance-types/p5/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_P5EN = (
    "AWS p5en.48xlarge: 8 H200 141GB on NVSwitch, 3200 Gbps EFAv3 over 16 network cards of "
    "200 Gbps, Intel Xeon (Sapphire Rapids) host, PCIe Gen5 "
    "(https://aws.amazon.com/ec2/instance-types/p5/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_P6_B200 = (
    "AWS p6-b200.48xlarge: 8 B200 on NVSwitch (NVLink 5), 3200 Gbps EFAv4 over 8 network cards "
    "of 400 Gbps, Intel Xeon (Emerald Rapids) host, PCIe Gen5 "
    "(https://aws.amazon.com/ec2/instance-types/p6/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_AWS_OFI = (
    "NCCL reaches EFA through the aws-ofi-nccl net plugin, which groups the EFA devices nearest "
    "each GPU into one NCCL device with one rail per EFA device (src/nccl_ofi_topo.cpp, "
    "create_groups_from_info_list: one group per GPU), reports the first rail's speed times the "
    "rails (src/nccl_ofi_rdma.cpp, get_properties: 'Scale speed by the total number of rails') "
    "and widens that device's PCIe link in the topology it gives NCCL up to the GPU's (write_nic): "
    "NCCL sees 8 NICs of 400 Gb/s on p5 (4 x 100), p5en (2 x 200) and p6-b200 (1 x 400) "
    "(https://github.com/aws/aws-ofi-nccl). Not modelled: the latency the plugin reports "
    "(75 us on p5, 35 us on p5en and p6-b200, src/platform-aws.cpp), which NCCL adds to every "
    "network step (src/graph/search.cc line 745, src/graph/tuning.cc lines 389-391) but "
    "NcclHardware cannot express, and the plugin's own tuner (src/tuner/, for p5, p5e, p5en)"
)
SOURCE_A3_ULTRA = (
    "Google Cloud A3 Ultra (a3-ultragpu-8g): 8 H200 141GB on NVSwitch, 8 NVIDIA ConnectX-7 "
    "400 Gbps NICs with RDMA over Converged Ethernet, 3,200 Gbps for the GPUs, Intel Xeon "
    "(Emerald Rapids) host (https://cloud.google.com/compute/docs/accelerator-optimized-machines, "
    "https://cloud.google.com/ai-hypercomputer/docs/create/create-vm); NCCL drives the NICs "
    "with its IB verbs transport (Google's gIB plugin packages it)"
)
SOURCE_A3_MEGA = (
    "Google Cloud A3 Mega (a3-megagpu-8g): 8 H100 80GB on NVSwitch, 8 GPU NICs of 200 Gbps "
    "with GPUDirect-TCPXO, 1,600 Gbps for the GPUs (1,800 Gbps with the host NIC), Intel Xeon "
    "(Sapphire Rapids) host (https://cloud.google.com/compute/docs/accelerator-optimized-machines, "
    "https://cloud.google.com/compute/docs/gpus/gpudirect)"
)
SOURCE_TCPXO = (
    "GPUDirect-TCPXO reaches NCCL through Google's FasTrak net plugin (NCCL_FASTRAK_IFNAME lists "
    "the 8 GPU NICs); Google's documented environment sets NCCL_NVLS_ENABLE=0, "
    "NCCL_ALGO=Ring,Tree, NCCL_PROTO=Simple and Google's tuner plugin "
    "(https://cloud.google.com/cluster-toolkit/docs/machine-learning/a3-mega-enable-gpudirect-tcpxo; "
    "GoogleCloudPlatform/cluster-toolkit examples/machine-learning/a3-megagpu-8g). This preset has "
    "NVLS off; the Ring,Tree and Simple restriction is the algo and proto of predict, and the "
    "tuner plugin is not modelled. The plugin is closed source: 200 Gb/s per NIC as NCCL's port "
    "speed is this preset's assumption from the NIC speed"
)
SOURCE_DGX_B200 = (
    "NVIDIA DGX B200: 8 B200 on NVSwitch (NVLink 5), 8 ConnectX-7 400 Gb/s NDR ports for the "
    "compute fabric (one per GPU), PCIe Gen5, 2x Intel Xeon Platinum 8570 "
    "(https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html); NDR = "
    "4 x 100000 Mb/s = 50 GB/s in NCCL's view (src/transport/net_ib/init.cc lines 117-127, "
    "NVIDIA/nccl v2.30.7-1)"
)
SOURCE_GB200_TRAY = (
    "GB200 NVL72 compute tray: 2 Grace CPUs and 4 B200 GPUs, each GPU with 18 NVLink 5 links to "
    "the rack's NVLink Switch trays, and 4 ConnectX-7 400 Gb/s NICs, one per GPU "
    "(https://www.nvidia.com/en-us/data-center/gb200-nvl72/, "
    "https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/nccl.html). With "
    "NCCL_MNNVL_ENABLE=0 NCCL keeps each host's topology apart (src/graph/topo.cc lines "
    "1887-1891): a node of 4 GPUs on one NVSwitch, the network between trays; NDR 400 Gb/s = "
    "4 x 100000 Mb/s = 50 GB/s per NIC in NCCL's view (src/transport/net_ib/init.cc lines "
    "117-127, NVIDIA/nccl v2.30.7-1)"
)
SOURCE_GRACE = (
    "Grace is an Arm CPU, which NcclHardware cannot name: NCCL's tuner gives Arm the network "
    "overhead and the llMaxBws row of Intel (src/graph/tuning.cc lines 228-233, 268-271), so "
    "cpu_vendor is 'Intel' here; NCCL skips the NVLSTree correction factor on non-x86 hosts "
    "(lines 643-646), which this model still applies; the NIC-to-GPU path through Grace (PCIe "
    "Gen5 to the NIC, NVLink-C2C to the GPU) is modelled as PCIe Gen5 x16 (NVIDIA/nccl v2.30.7-1, "
    "https://github.com/NVIDIA/nccl/blob/v2.30.7-1/src/graph/tuning.cc)"
)
SOURCE_GB300 = (
    "GB300 NVL72: 72 Blackwell Ultra GPUs in one NVLink domain, NVLink 5 at 1.8 TB/s per GPU "
    "(900 GB/s per direction) through NVLink Switch trays "
    "(https://www.nvidia.com/en-us/data-center/gb300-nvl72/); Blackwell Ultra is compute "
    "capability 10.3 (https://developer.nvidia.com/cuda-gpus), which NCCL 2.30.7 treats as "
    "sm_100 wherever it compares the compute capability (NVLink 40.1 GB/s per link, "
    "src/graph/topo.h lines 274-282; Blackwell row of the tuning tables, src/graph/tuning.cc "
    "lines 263-265; Blackwell NVLS channels, src/transport/nvls.cc)"
)
SOURCE_L40S = (
    "NVIDIA L40S: Ada Lovelace, compute capability 8.9, PCIe Gen4 x16 (64 GB/s bidirectional), "
    "no NVLink (https://www.nvidia.com/en-us/data-center/l40s/, "
    "https://developer.nvidia.com/cuda-gpus)"
)
SOURCE_PCIE_P2P = (
    "PCIe peer-to-peer in NCCL: used between GPUs at most PXB apart (behind PCIe switches, not "
    "across the CPU) when NVML reports P2P read and write OK; otherwise NCCL routes GPU-to-GPU "
    "traffic through the CPU (src/graph/paths.cc lines 356-410 and 766-770, NVIDIA/nccl "
    "v2.30.7-1). NVIDIA's L40S pages do not state PCIe P2P either way (on the GeForce RTX 4090, "
    "the same AD102 chip, the driver disables it); users of 8x L40S servers report NCCL's P2P "
    "working once PCIe ACS and the IOMMU let it through (NVIDIA developer forum, "
    "https://forums.developer.nvidia.com/t/nccl-hangs-on-l40s-gpus-pcie-resolved-via-iommu-passthrough/368169; "
    "NCCL troubleshooting, "
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html; check with "
    "nvidia-smi topo -p2p p). This preset assumes P2P on and all 8 GPUs behind PCIe switches; "
    "GPUs on CPU root ports across sockets (SYS) go through the CPU, which it does not model"
)


@dataclass(frozen=True)
class Preset:
    """A system to predict on. ``ranks``: GPUs in the default configuration; ``alpha_s`` and
    ``bandwidth_Bps``: latency and per-direction bandwidth of one GPU's link into its node's
    switch; ``gamma_s_per_byte``: reduction time per byte; multi-node presets also have
    ``inter_alpha_s`` and ``inter_bandwidth_Bps`` (one NIC per GPU). ``in_network_reduction``:
    the switch can add (NVLS), which enables the ``nvls`` all-reduce. ``nccl``: the node as
    NCCL's own model sees it (None: NCCL's model does not apply). ``network``: the class of
    network between nodes, which sets its achievable bandwidth in the call-cost model
    (:data:`nccl_course.cost.nccl.call_cost.NETWORKS`: "ib", "roce", "efa", "tcpxo"; None:
    one node). ``calibration``: a learner's fitted call-cost constants (a personal preset
    from ``nccl-course model --calibrate``; None for the course's presets)."""

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
    network: str | None = None
    calibration: Calibration | None = None

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
_A100_NET = NcclHardware(
    "A100 SXM",
    80,
    8,
    nvlink_links=12,
    pcie_gen=4,
    nics_per_node=8,
    nic_gbit=200.0,
    cpu_vendor="AMD",
)
_NVLINK3 = dict(alpha_s=0.6e-6, bandwidth_Bps=300 * GB, gamma_s_per_byte=0.0)
_NVLINK5 = dict(alpha_s=0.6e-6, bandwidth_Bps=900 * GB, gamma_s_per_byte=0.0)


def _blackwell(gpu: str, gpus: int = 8, nics: int = 0, nic_gbit: float = 0.0) -> NcclHardware:
    """Blackwell GPUs (sm_100) with 18 NVLink 5 links each to NVSwitch and NVLS, PCIe Gen5 x16,
    optional NICs."""
    return NcclHardware(
        gpu,
        100,
        gpus,
        nvlink_links=18,
        pcie_gen=5,
        nics_per_node=nics,
        nic_gbit=nic_gbit,
        nvls=True,
    )


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
            network="ib",
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
            network="ib",
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
            network="roce",
            nccl=_H100_NET,
            **_NVLINK,
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
            nccl=_A100_NET,
            **_NVLINK3,
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
            nccl=_A100_NET,
            **_NVLINK3,
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
            nccl=NcclHardware(
                "H100 SXM",
                90,
                8,
                nvlink_links=18,
                pcie_gen=5,
                nics_per_node=8,
                nic_gbit=400.0,
                nvls=True,
                cpu_vendor="AMD",
            ),
            **_NVLINK,
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
            nccl=_hopper("H200 SXM", nvls=True, nics=8, nic_gbit=400.0),
            **_NVLINK,
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
            network="roce",
            nccl=_hopper("H200 SXM", nvls=True, nics=8, nic_gbit=400.0),
            **_NVLINK,
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
            nccl=_hopper("H100 SXM", nvls=False, nics=8, nic_gbit=200.0),
            **_NVLINK,
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
            nccl=_blackwell("B200", nics=8, nic_gbit=400.0),
            **_NVLINK5,
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
            nccl=_blackwell("B200", nics=8, nic_gbit=400.0),
            **_NVLINK5,
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
            nccl=_blackwell("B200 in GB200 tray", gpus=4, nics=4, nic_gbit=400.0),
            **_NVLINK5,
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
            **_NVLINK5,
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
