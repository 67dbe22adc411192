"""What NCCL's tuner knows about a system: the hardware and the graphs (rings, trees, NVLS) its
topology search finds, NCCL 2.30.7.

NCCL does not price links directly. At init it searches the topology for *graphs*, one per
algorithm: ``n_channels`` parallel rings (or trees, or NVLS heads), each able to carry
``bw_intra`` GB/s inside a node and ``bw_inter`` GB/s between nodes, with the worst path type
used. The tuner (:mod:`~nccl_course.cost.nccl.tuner`) starts from those numbers.

:func:`search` is a model of that search (``ncclTopoCompute``, src/graph/search.cc lines
1074-1310) for the homogeneous systems of the presets: every GPU with the same links to one
NVSwitch or PCIe switch and, between nodes, one NIC next to each GPU (rail-optimised). It
follows NCCL's steps: try the speeds of ``tables.SPEEDS_*`` from the fastest that the links
allow, keep the graph with the most ``n_channels x speed`` (NVLS: the most channels), stop when
the channels fill the GPU's links or when the next speed falls under 0.49 of the best; then
double the channels at half the speed (``ncclTopoDupChannels``, lines 1036-1049) and try faster
speeds with that many channels. Each ring or tree channel uses one unit of its speed on every
GPU's link in each direction; an NVLS channel uses two on its head GPU's link and one on each
other's (``ncclTopoSearchTryNvls``, lines 410-442). NCCL itself walks every path; this model
counts link loads instead, and it is checked against NCCL's own logs where they exist (24 coll
channels on 8x H100, 16 on H100 nodes with NICs). The result for each preset is printed by
``nccl-course model --list-presets``.

PCIe nodes without a switch shared by all GPUs follow NCCL's rules for paths through the CPUs
(:func:`gpu_path`, :func:`nic_path`): GPUs on two sockets are SYS apart and their traffic
crosses the link between the CPUs, at the speed NCCL gives that link (10 GB/s on Skylake-class
Intel, 16 on AMD, ...); NCCL allows PCIe peer-to-peer only up to PXB (SYS on AMD with at most 2
GPUs) and GPUDirect RDMA only up to PXB, and otherwise moves the bytes through host memory (SHM
between GPUs, host buffers for the network). A ring then crosses the sockets once each way per
channel, so the rings together carry at most that link's speed.

Units: GB/s (1e9 bytes/s) as NCCL keeps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from nccl_course.cost.nccl import tables as T


@dataclass(frozen=True)
class NcclHardware:
    """One node type, as NCCL's topology detection would see it.

    ``compute_capability``: e.g. 90 for H100/H200, 80 for A100, 100 for B200.
    ``nvlink_links``: NVLinks per GPU to an NVSwitch (0: GPUs talk over PCIe).
    ``pcie_gen``, ``pcie_lanes``: each GPU's (and NIC's) PCIe link to its switch.
    ``nics_per_node``, ``nic_gbit``: network ports and their speed in Gb/s (0: one node only).
    ``nvls``: NVLink SHARP usable (NVSwitch 3rd generation or newer, Hopper or newer, not
    disabled with NCCL_NVLS_ENABLE=0). ``cpu_vendor``: "Intel" or "AMD" (network overhead and
    the LL limit between nodes depend on it).

    Where the PCIe devices sit (PCIe-only nodes; NVLink nodes keep the defaults):
    ``sockets``: CPU sockets (NUMA nodes) the GPUs are split over, evenly and in order (GPUs
    0..n/2-1 on the first); GPUs on different sockets are SYS apart and their traffic crosses
    the link between the CPUs, of :attr:`inter_cpu_bw` GB/s. ``cpu_model``: the Intel class
    NCCL reads from the CPUID model, which sets that link's speed ("BDW", "SKL", "SRP", "ERP";
    see ``tables.INTER_CPU_BW``; needed for Intel hosts of 2 sockets). ``pcie_switch``: the
    GPUs of a socket sit behind one PCIe switch (PIX apart, PCIe peer-to-peer); False: each
    GPU is on its own root port of the CPU (PHB apart). ``nics_on_cpu``: the NICs sit on root
    ports of the first socket rather than next to each GPU behind its switch, so every
    GPU-NIC path goes through a CPU (PHB, or SYS from the second socket)."""

    gpu: str
    compute_capability: int
    gpus_per_node: int
    nvlink_links: int = 0
    pcie_gen: int = 5
    pcie_lanes: int = 16
    nics_per_node: int = 0
    nic_gbit: float = 0.0
    nvls: bool = False
    cpu_vendor: str = "Intel"
    sockets: int = 1
    cpu_model: str = ""
    pcie_switch: bool = True
    nics_on_cpu: bool = False

    def __post_init__(self) -> None:
        if self.sockets not in (1, 2) or self.gpus_per_node % self.sockets:
            raise ValueError(
                f"{self.gpu}: {self.gpus_per_node} GPUs over {self.sockets} socket(s); the model "
                "knows 1 or 2 sockets with as many GPUs on each"
            )
        if self.sockets > 1 and self.cpu_vendor == "Intel" and self.cpu_model not in T.INTER_CPU_BW:
            raise ValueError(
                f"{self.gpu}: an Intel host of 2 sockets needs cpu_model, one of "
                f"{', '.join(T.INTER_CPU_BW)} (NCCL's class of the CPU, which sets the speed it "
                "gives the link between the sockets)"
            )

    @property
    def gpus_per_socket(self) -> int:
        return self.gpus_per_node // self.sockets

    @property
    def inter_cpu_bw(self) -> float:
        """GB/s NCCL gives the link between the two sockets (one direction)."""
        if self.cpu_vendor == "AMD":
            return T.AMD_INTER_CPU_BW
        return T.INTER_CPU_BW[self.cpu_model]

    @property
    def through_cpus(self) -> bool:
        """Some GPU-GPU or GPU-NIC path of this node goes through a CPU (the rules of
        :func:`gpu_path` and :func:`nic_path` apply instead of one switch per node)."""
        return not self.nvlink_links and (
            self.sockets > 1 or not self.pcie_switch or self.nics_on_cpu
        )

    @property
    def nvlink_bw(self) -> float:
        """GB/s per direction from one GPU into the NVSwitch (links x per-link speed)."""
        per_link = T.NVLINK_BW_PER_LINK[max(c for c in T.NVLINK_BW_PER_LINK if c <= self.cc)]
        return self.nvlink_links * per_link

    @property
    def cc(self) -> int:
        return self.compute_capability

    @property
    def pcie_bw(self) -> float:
        """GB/s of the PCIe link, as NCCL computes it (lanes x rate / 80)."""
        return self.pcie_lanes * T.PCIE_RATE[self.pcie_gen] / 80.0

    @property
    def nic_bw(self) -> float:
        """GB/s of one network port (Mb/s / 8000)."""
        return self.nic_gbit * 1000 / T.MBPS_PER_GBPS


@dataclass(frozen=True)
class Graph:
    """One algorithm's graph: ``n_channels`` of ``bw_intra`` / ``bw_inter`` GB/s each, the worst
    path types inside and between nodes (names from ``tables.PATH``), the tree pattern."""

    n_channels: int
    bw_intra: float
    bw_inter: float
    type_intra: str
    type_inter: str = "PIX"
    pattern: int = 0
    same_channels: bool = True
    latency_inter: float = 0.0


@dataclass(frozen=True)
class Path:
    """A path between two devices of a node as NCCL computes it (src/graph/paths.cc): ``type``
    (a name of ``tables.PATH``), ``bw`` GB/s (its narrowest link, one direction) and
    ``direct``: GPU to GPU by PCIe peer-to-peer, GPU to NIC by GPUDirect RDMA; False: NCCL
    routes the bytes through the memory of the CPU (the SHM transport between GPUs, host
    buffers for the network)."""

    type: str
    bw: float
    direct: bool


def _p2p_level(hw: NcclHardware, gpus: int) -> str:
    """NCCL_P2P_LEVEL's default: PXB, SYS on AMD x86 hosts with at most 2 GPUs."""
    if hw.cpu_vendor == "AMD" and gpus <= T.AMD_P2P_MAX_GPUS:
        return T.AMD_P2P_LEVEL
    return T.P2P_LEVEL


def gpu_path(hw: NcclHardware, same_socket: bool, gpus: int) -> Path:
    """The path between two of the node's ``gpus`` GPUs (on one socket or on two) of a PCIe
    node: PIX behind a shared switch, PHB through the CPU's root complex, SYS across the
    sockets, with the narrowest link's GB/s (the inter-CPU link's for SYS) and whether NCCL
    allows peer-to-peer at that distance (``ncclTopoCheckP2p``, paths.cc lines 355-368)."""
    if hw.nvlink_links:
        return Path("NVL", hw.nvlink_bw, True)
    if same_socket:
        kind, bw = ("PIX" if hw.pcie_switch else "PHB"), hw.pcie_bw
    else:
        kind, bw = "SYS", min(hw.pcie_bw, hw.inter_cpu_bw)
    return Path(kind, bw, T.PATH[kind] <= T.PATH[_p2p_level(hw, gpus)])


def nic_path(hw: NcclHardware, socket: int) -> Path:
    """The path from a GPU on ``socket`` (0 or 1) to its nearest NIC: PIX next to the GPU, or
    with ``nics_on_cpu`` PHB from the first socket and SYS from the second, with its GB/s and
    whether NCCL uses GPUDirect RDMA (the path at most NCCL_NET_GDR_LEVEL = PXB,
    ``ncclTopoCheckGdr``, paths.cc lines 510-535)."""
    link = min(hw.nic_bw, hw.pcie_bw)
    if not hw.nics_on_cpu:
        kind = "PIX"
    elif socket == 0:
        kind = "PHB"
    else:
        kind, link = "SYS", min(link, hw.inter_cpu_bw)
    return Path(kind, link, T.PATH[kind] <= T.PATH[T.NET_GDR_LEVEL])


@dataclass(frozen=True)
class NcclSystem:
    """``nodes`` nodes of ``gpus_per_node`` GPUs of ``hardware`` (the communicator NCCL tunes)."""

    hardware: NcclHardware
    nodes: int
    gpus_per_node: int
    nvls_enabled: bool = field(default=True)

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.gpus_per_node < 1 or self.ranks < 2:
            raise ValueError(
                f"a communicator of {self.ranks} rank(s) ({self.nodes} node(s) x "
                f"{self.gpus_per_node} GPU(s)): NCCL's tuner prices traffic between ranks, and "
                "one rank moves nothing (NCCL copies the buffer locally); use 2 ranks or more"
            )

    @property
    def ranks(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def cc(self) -> int:
        return self.hardware.compute_capability

    @property
    def sockets_used(self) -> int:
        """Sockets the communicator's GPUs of a node sit on: NCCL takes the node's GPUs in order,
        so fewer GPUs than a node has fill the first socket first."""
        return min(self.hardware.sockets, -(-self.gpus_per_node // self.hardware.gpus_per_socket))

    @cached_property
    def graphs(self) -> dict[str, Graph | None]:
        """The graph per NCCL algorithm name (None: no graph, the algorithm is unavailable)."""
        return search(self)

    @property
    def nvls_support(self) -> bool:
        graph = self.graphs.get("NVLS")
        return graph is not None and graph.n_channels > 0

    @property
    def comm_channels(self) -> int:
        """comm->nChannels: the ring channels doubled (src/graph/connect.cc line 460), doubled
        again on Hopper+ multi-node with fast rings (lines 481-483), at most MAXCHANNELS."""
        ring = self.graphs["Ring"]
        n = min(T.MAX_CHANNELS, 2 * ring.n_channels)
        if self.cc >= 90 and self.nodes > 1 and ring.bw_intra > 45.0 and n < 16:
            n = min(T.MAX_CHANNELS, 2 * n)
        return n

    @property
    def nvls_channels(self) -> int:
        """comm->nvlsChannels (src/transport/nvls.cc lines 202-214)."""
        if not self.nvls_support:
            return 0
        if self.cc >= 100:
            return T.NVLS_CHANNELS_SM100 if self.nodes > 1 else T.NVLS_CHANNELS_SM100_ONE_NODE
        return T.NVLS_CHANNELS_SM90

    @property
    def nvs_count(self) -> int:
        return 1 if self.hardware.nvlink_links else 0

    def describe(self) -> str:
        """One line per graph, as NCCL_DEBUG_SUBSYS=GRAPH summarises them."""
        lines = []
        for name, g in self.graphs.items():
            if g is not None:
                lines.append(
                    f"{name}: {g.n_channels} channels x {g.bw_intra:g}/{g.bw_inter:g} GB/s "
                    f"(intra/inter), paths {g.type_intra}/{g.type_inter}"
                )
        return "; ".join(lines)


def _speeds(cc: int, inter: bool) -> tuple[float, ...]:
    family = T.speed_family(cc)
    return (T.SPEEDS_INTER if inter else T.SPEEDS_INTRA)[family]


def _pair_paths(system: NcclSystem) -> list[Path]:
    """The kinds of GPU-GPU path a ring of ``system``'s node uses (through-CPU nodes)."""
    hw, g = system.hardware, system.gpus_per_node
    paths = []
    if g > system.sockets_used:
        paths.append(gpu_path(hw, True, g))
    if system.sockets_used > 1:
        paths.append(gpu_path(hw, False, g))
    return paths


def _channels_through_cpus(system: NcclSystem, speed: float) -> int:
    """How many ring channels of ``speed`` fit a node whose paths go through its CPUs. A ring
    visits each GPU once, so every channel sends and receives once on each GPU's PCIe link
    (6/5 of the speed through an Intel root complex, search.cc lines 86-92); a ring over two
    sockets crosses the link between the CPUs once each way; between nodes each channel
    enters and leaves through a NIC."""
    hw = system.hardware
    phb = any(p.type == "PHB" for p in _pair_paths(system))
    if system.nodes > 1:
        phb = phb or nic_path(hw, 0).type == "PHB"
    factor = T.INTEL_P2P_OVERHEAD if hw.cpu_vendor != "AMD" and phb else 1.0
    limits = [int(hw.pcie_bw / (factor * speed) + 1e-9), T.MAX_CHANNELS // 2]
    if system.sockets_used > 1:
        limits.append(int(hw.inter_cpu_bw / speed + 1e-9))
    if system.nodes > 1:
        limits.append(hw.nics_per_node * int(min(hw.nic_bw, hw.pcie_bw) / speed + 1e-9))
    return max(0, min(limits))


def _channels_at(system: NcclSystem, speed: float, nvls: bool = False) -> int:
    """How many channels of ``speed`` the links carry (0: not even one)."""
    hw, g = system.hardware, system.gpus_per_node
    if hw.through_cpus:
        return _channels_through_cpus(system, speed)
    limits = []
    if g > 1:
        link = hw.nvlink_bw if hw.nvlink_links else hw.pcie_bw
        if nvls:
            # n NVLS channels load every GPU's link with n + 1 units (its own head counts twice)
            limits.append(min(g, int(link / speed + 1e-9) - 1))
        elif system.nodes > 1:
            # a ring enters and leaves the node through NICs: g - 1 of g GPUs use NVLink per channel
            limits.append(int(link * g / ((g - 1) * speed) + 1e-9))
        else:
            limits.append(int(link / speed + 1e-9))
    if system.nodes > 1:
        per_nic = min(hw.nic_bw, hw.pcie_bw)
        limits.append(hw.nics_per_node * int(per_nic / speed + 1e-9))
    return max(0, min(limits + [T.MAX_CHANNELS // 2]))


def _total_bw(system: NcclSystem) -> float:
    hw = system.hardware
    if system.gpus_per_node > 1:
        return hw.nvlink_bw if hw.nvlink_links else hw.pcie_bw
    return min(hw.nic_bw, hw.pcie_bw)


def _max_bw(system: NcclSystem) -> float:
    """NCCL's system->maxBw: the fastest path from a GPU to another GPU (one node) or to a NIC
    (several nodes), search.cc lines 18-53."""
    hw = system.hardware
    if hw.through_cpus:
        if system.nodes > 1:
            return nic_path(hw, 0).bw
        return max(p.bw for p in _pair_paths(system))
    bws = []
    if system.gpus_per_node > 1:
        bws.append(hw.nvlink_bw if hw.nvlink_links else hw.pcie_bw)
    if system.nodes > 1:
        bws.append(min(hw.nic_bw, hw.pcie_bw))
    return max(bws)


def _ring(system: NcclSystem) -> tuple[int, float]:
    """(channels, GB/s per channel) of the ring graph: pass 1, channel doubling, pass 2."""
    speeds = _speeds(system.cc, system.nodes > 1)
    total, max_bw = _total_bw(system), _max_bw(system)
    i = 0
    while i < len(speeds) - 1 and (speeds[i] > max_bw or speeds[i] > total):
        i += 1
    best_k, best_s = 0, 0.0
    while True:
        k = _channels_at(system, speeds[i])
        if k * speeds[i] > best_k * best_s:
            best_k, best_s = k, speeds[i]
        if best_k and best_k * best_s >= total:
            break
        if i == len(speeds) - 1 or (best_k and speeds[i + 1] / best_s <= 0.49):
            break
        i += 1
    k, s = best_k, best_s
    # ncclTopoDupChannels: more channels at a lower speed when the links are fast
    if s >= 25.0 and not (system.cc > 80 and s < 50.0 and k > 4):
        dup = min(2 * k, T.MAX_CHANNELS // 2)
        s /= math.ceil(dup / k)
        k = dup
    # pass 2: a faster speed with as many channels
    for faster in sorted(x for x in speeds if x > s):
        if _channels_at(system, faster) >= k:
            s = faster
        else:
            break
    return k, s


def _tree(system: NcclSystem, channels: int) -> tuple[float, float, int]:
    """(bw_intra, bw_inter, pattern) of the tree graph: as many channels as the rings."""
    speeds = _speeds(system.cc, system.nodes > 1)
    s = next((x for x in speeds if _channels_at(system, x) >= channels), speeds[-1])
    bw_intra = s
    if system.nodes > 1 and system.gpus_per_node == 1:
        # no NVLink to load: pass 2 raises bw_intra while it is under twice bw_inter
        i = speeds.index(s)
        while i > 0 and bw_intra < 2 * s:
            i -= 1
            bw_intra = speeds[i]
    pattern = T.PATTERN_TREE if system.gpus_per_node == 1 else T.PATTERN_BALANCED_TREE
    return bw_intra, s, pattern


def _nvls(system: NcclSystem) -> tuple[int, float, float] | None:
    """(channels, bw_intra, bw_inter) of the NVLS graph, or None where NVLS cannot run."""
    hw = system.hardware
    if not (hw.nvls and system.nvls_enabled and hw.nvlink_links and system.cc >= 90):
        return None
    if system.gpus_per_node < 2:
        return None
    speeds = _speeds(system.cc, system.nodes > 1)
    g = system.gpus_per_node
    best = None
    for i, s in enumerate(speeds):
        k = _channels_at(system, s, nvls=True)
        if system.nodes == 1 and k < min(g, T.MAX_NVLS_ARITY):
            # one node: minChannels = maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs), so every
            # GPU is a head up to 32 GPUs (search.cc lines 1126-1137)
            continue
        if k > 0 and (best is None or k > best[0] or k * s > best[0] * best[1]):
            best = (k, s)
        if best and (i == len(speeds) - 1 or speeds[i + 1] / best[1] <= 0.49):
            break
    if best is None:
        return None
    k, s = best
    # pass 2 raises bw_inter alone while it is under twice bw_intra (search.cc lines 1274-1278)
    bw_inter, i = s, speeds.index(s)
    inter_cap = min(hw.nic_bw, hw.pcie_bw) if system.nodes > 1 else math.inf
    while i > 0 and bw_inter < 2 * s and speeds[i - 1] <= inter_cap:
        i -= 1
        bw_inter = speeds[i]
    return k, s, bw_inter


def search(system: NcclSystem) -> dict[str, Graph | None]:
    """The graphs NCCL's search finds on ``system`` (see the module docstring)."""
    hw = system.hardware
    type_intra, type_inter = ("NVL" if hw.nvlink_links else "PIX"), "PIX"
    if hw.through_cpus:
        # the worst path the rings take: between the sockets when they span both
        pairs = _pair_paths(system)
        type_intra = pairs[-1].type if pairs else type_intra
        if system.nodes > 1:
            type_inter = nic_path(hw, system.sockets_used - 1).type
    k, s = _ring(system)
    ring = Graph(k, s, s, type_intra, type_inter, pattern=4)
    tree_intra, tree_inter, pattern = _tree(system, k)
    tree = Graph(k, tree_intra, tree_inter, type_intra, type_inter, pattern=pattern)
    nvls = _nvls(system)
    nvls_graph = None if nvls is None else Graph(nvls[0], nvls[1], nvls[2], "NVL", pattern=5)
    return {
        "Tree": tree,
        "Ring": ring,
        "CollNetDirect": None,  # needs a CollNet (SHARP) network plugin: none in the presets
        "CollNetChain": None,
        "NVLS": nvls_graph,
        # NVLSTree runs on the NVLS graph, PAT on the tree graph (src/init.cc lines 980-981)
        "NVLSTree": nvls_graph,
        "PAT": tree,
    }


def layout(hardware: NcclHardware, ranks: int, default_nodes: int) -> tuple[int, int]:
    """(nodes, GPUs per node) for ``ranks`` GPUs: whole nodes of ``hardware.gpus_per_node``, or
    fewer GPUs on one node. ValueError for a count that is neither."""
    g = hardware.gpus_per_node
    if ranks < 1:
        raise ValueError(f"rank count must be at least 1, got {ranks}")
    if ranks <= g and (default_nodes == 1 or ranks < g):
        return 1, ranks
    if ranks % g:
        raise ValueError(
            f"{ranks} ranks are not whole nodes of {g} GPUs; NCCL's model here needs "
            f"1..{g} ranks on one node or a multiple of {g}"
        )
    if ranks // g > 1 and not hardware.nics_per_node:
        raise ValueError(f"this preset has no network: at most {g} ranks")
    return ranks // g, g
