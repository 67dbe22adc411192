"""NCCL's cost table: for every function x algorithm x protocol, a latency (us) and a bandwidth
(GB/s of *algorithm* bandwidth), and the time of one operation of n bytes, NCCL 2.30.7.

This is ``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime`` (src/graph/tuning.cc lines 243-618
and 630-655) rewritten in Python from the source, rule by rule:

* bandwidth: the graph's channels x per-channel speed (``bw_intra`` on up to two nodes,
  ``bw_inter`` beyond), then per algorithm and protocol: Ring/LL half of it capped at
  ``LL_MAX_BW``, Ring/LL128 x 0.92 capped per channel, Tree all-reduce x 0.92 capped per channel,
  Tree/LL / 3.8, Tree/LL128 x 7/9 (one node) or 120/128, Tree x 0.85 with the plain TREE
  pattern, PAT x 0.75, NVLS from the NVSwitch's efficiency (x 2 for all-reduce, which pipelines
  two operations); last, bus bandwidth to algorithm bandwidth: x nRanks / nsteps for rings and
  NVLS, x 0.5 for trees, unchanged for non-ring all-gather / reduce-scatter (lines 300-385);
* latency: a base per algorithm and protocol plus per-hop latencies of the link type: ring
  steps (2(p-1) for all-reduce, p-1 for all-gather / reduce-scatter, p for broadcast / reduce),
  tree depth, NVLS one switch hop, PAT log2(nodes) network hops + 2.8 us per rank
  (lines 386-436);
* enablement: algorithm x function (broadcast and reduce: ring only; all-gather and
  reduce-scatter: ring, PAT, NVLS, CollNetDirect; PAT never for all-reduce, and only with one
  GPU per node), NVLS/NVLSTree Simple only, LL128 by GPU generation and path types, NVLSTree off
  on one node, CollNet off without a CollNet plugin, then the NCCL_ALGO / NCCL_PROTO overrides
  (lines 293-304, 440-541);
* time = latency + bytes / (1000 x bandwidth) us, with the tree correction factors and the ring
  plateau factor between nodes (lines 630-655).

Older releases (2.20, 2.21-2.22) differ in some numbers and rules; :func:`cost_table` takes
a :class:`~nccl_course.cost.nccl.releases.TunerRelease` to reproduce their tables, which is how
the model is checked against public logs.

Units: us and GB/s in the table (as NCCL prints them); ``time_us`` returns microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.overrides import Enablement
from nccl_course.cost.nccl.releases import CURRENT, TunerRelease
from nccl_course.cost.nccl.system import Graph, NcclSystem

A = {name: i for i, name in enumerate(T.ALGORITHMS)}
P = {name: i for i, name in enumerate(T.PROTOCOLS)}
F = {name: i for i, name in enumerate(T.FUNCTIONS)}
_NO_GRAPH = Graph(0, 0.0, 0.0, "LOC", "PIX")


def log2i(n: int) -> int:
    """floor(log2(n)), -1 for 0 (NCCL's log2i)."""
    return n.bit_length() - 1


@dataclass(frozen=True)
class CostTable:
    """``latency_us[f][a][p]`` and ``bandwidth_GBps[f][a][p]`` (0: disabled), with the threads
    NCCL would use (``max_threads[a][p]``) and bytes per thread before it adds more
    (``thread_threshold[a][p]``), for one system, as NCCL ``release`` computes them."""

    system: NcclSystem
    latency_us: tuple
    bandwidth_GBps: tuple
    max_threads: tuple
    thread_threshold: tuple
    release: TunerRelease = CURRENT
    #: ``network_bound[f][a]``: the network sets algorithm a's bandwidth for function f (so
    #: the network's achievable share applies to the call; call_cost.Network.efficiency)
    network_bound: tuple = ()

    def is_network_bound(self, function: str, algorithm: str) -> bool:
        """Whether the network sets ``algorithm``'s bandwidth for ``function`` here."""
        return bool(self.network_bound) and self.network_bound[F[function]][A[algorithm]]

    def time_us(self, function: str, algorithm: str, protocol: str, n_bytes: int) -> float:
        """Microseconds for one operation of ``n_bytes`` (NCCL's nBytes), -1 when disabled."""
        f, a, p = F[function], A[algorithm], P[protocol]
        bw = self.bandwidth_GBps[f][a][p]
        lat = self.latency_us[f][a][p]
        if bw == 0:
            return -1.0
        system, release = self.system, self.release
        log_size = log2i(n_bytes >> 6)
        if algorithm == "Tree" and function == "AllReduce" and 0 <= log_size < 23:
            bw *= T.TREE_CORRECTION[p][log_size]
        if (
            algorithm == "NVLSTree"
            and function == "AllReduce"
            and 0 <= log_size < 24
            and system.cc >= 100
            and release.nvls_tree_correction
        ):
            bw *= T.TREE_CORRECTION[p][log_size]  # presets are x86 machines
        if (
            algorithm == "Ring"
            and protocol == "Simple"
            and system.nodes > 1
            and function == "AllReduce"
            and n_bytes // (system.comm_channels * system.ranks) >= 64
        ):
            lat *= 1.9 if system.cc < 80 else 1.4  # ring plateau between nodes
        return lat + n_bytes / (1000 * bw)


def _max_threads(system: NcclSystem) -> tuple:
    ring = system.graphs["Ring"]
    t = [[0, 0, 0] for _ in T.ALGORITHMS]
    ring_simple = 256 if ring.bw_intra * ring.n_channels <= T.PCI_BW else T.SIMPLE_MAX_NTHREADS
    t[A["Ring"]][P["Simple"]] = ring_simple
    t[A["Tree"]][P["Simple"]] = T.SIMPLE_MAX_NTHREADS
    for algo in ("CollNetDirect", "CollNetChain", "NVLS", "NVLSTree"):
        t[A[algo]][P["Simple"]] = T.MAX_NTHREADS
    for algo in ("Ring", "Tree"):
        t[A[algo]][P["LL"]] = T.LL_MAX_NTHREADS
        t[A[algo]][P["LL128"]] = T.LL128_MAX_NTHREADS
    return tuple(tuple(row) for row in t)  # PAT keeps 0, as NCCL 2.30.7 leaves it


def _thresholds(system: NcclSystem) -> tuple:
    base = (T.LL_THREAD_THRESHOLD, T.LL128_THREAD_THRESHOLD, T.SIMPLE_THREAD_THRESHOLD)
    t = [list(base) for _ in T.ALGORITHMS]
    t[A["Ring"]][P["LL"]] *= system.ranks
    t[A["CollNetDirect"]][P["Simple"]] = 512
    t[A["CollNetChain"]][P["Simple"]] = 512
    return tuple(tuple(row) for row in t)


def _pat_enabled(system: NcclSystem) -> bool:
    return system.cc >= 60 and system.nodes == system.ranks


def _skip(function: str, algorithm: str, protocol: str, system: NcclSystem, release) -> bool:
    """The (function, algorithm, protocol) NCCL never prices (tuning.cc lines 294-304)."""
    if algorithm == "PAT" and not release.pat:
        return True
    if function in ("Broadcast", "Reduce") and algorithm != "Ring":
        return True
    if function in ("ReduceScatter", "AllGather") and algorithm not in (
        "PAT",
        "Ring",
        "NVLS",
        "CollNetDirect",
    ):
        return True
    if function == "AllReduce" and algorithm == "PAT":
        return True
    if algorithm in ("NVLS", "NVLSTree") and protocol != "Simple":
        return True
    if algorithm == "PAT" and (protocol != "Simple" or not _pat_enabled(system)):
        return True
    return False


def _legacy_nvls_limits(algorithm: str, nodes: int, g: Graph) -> dict:
    """NVLS / NVLSTree per-channel GB/s before 2.28, by what limits it: the graph's speed in the
    node (``intra``) and between nodes (``inter``, halved for NVLSTree beyond 2 nodes); NCCL
    takes the slower."""
    inter = g.bw_inter if algorithm == "NVLS" or nodes <= 2 else g.bw_inter / 2
    return {"intra": g.bw_intra, "inter": inter}


def _nvls_limits(function: str, algorithm: str, system: NcclSystem, g: Graph, release) -> dict:
    """NVLS / NVLSTree per-channel GB/s from 2.28, by what limits it: ``intra`` (NVLink SHARP
    in the node, NVLS_EFFICIENCY of the graph's speed), ``inter`` (the network) and, for
    NVLSTree, ``cap`` (perChMaxNVLSTreeBw); NCCL takes the smallest (tuning.cc, the NVLS
    branch of ncclTopoTuneModel)."""
    nodes = system.nodes
    gen = T.generation_index(system.cc)
    ppn = system.ranks / nodes
    intra = g.bw_intra * T.NVLS_EFFICIENCY[gen] * (g.n_channels - 1) / g.n_channels
    intra *= 2.0 if function == "AllReduce" else (ppn - 1) / ppn
    limits = {
        "intra": intra,
        "inter": g.bw_inter * (2 if nodes <= 2 and algorithm == "NVLSTree" else 1),
    }
    if algorithm == "NVLSTree" and release.nvls_tree_cap:
        limits["cap"] = T.PER_CH_MAX_NVLS_TREE_BW[gen][nodes - 1 if nodes <= 2 else 2]
    return limits


def _network_bound(function: str, algorithm: str, system: NcclSystem, g: Graph, release) -> bool:
    """Whether the network sets the bandwidth NCCL's tuner gives ``algorithm`` on ``system``:
    every algorithm between nodes, except NVLS / NVLSTree where NVLink SHARP inside the node
    (or NVLSTree's per-channel cap) is slower than the network's figure."""
    if system.nodes == 1:
        return False
    if algorithm not in ("NVLS", "NVLSTree") or g.n_channels < 2:
        return True
    if release.nvls_efficiency_model:
        limits = _nvls_limits(function, algorithm, system, g, release)
    else:
        limits = _legacy_nvls_limits(algorithm, system.nodes, g)
    return limits["inter"] <= min(limits.values())


def _ring_ll(bus: float, ll_max: float, function: str, nodes: int, release) -> float:
    """Ring/LL bus bandwidth from the ring's (tuning.cc line 327; line 181 of 2.20.5)."""
    if release.ring_ll == "half":
        return min(ll_max, bus * 0.5)
    quarter = nodes > 1 or function in ("AllReduce", "Reduce")
    return min(ll_max, bus * (1.0 / 4.0 if quarter else 1.0 / 3.0))


def _bandwidth(function: str, algorithm: str, protocol: str, system: NcclSystem, g: Graph, release):
    """Algorithm bandwidth in GB/s before enablement, None where NCCL skips the entry."""
    nodes, ranks = system.nodes, system.ranks
    gen = T.generation_index(system.cc)
    idx2 = nodes - 1 if nodes <= 2 else 2
    idx1 = gen if nodes == 1 else (1 if system.hardware.cpu_vendor == "AMD" else 0)
    ll_max = release.ll_max_bw[idx1][idx2]
    ppn = ranks / nodes
    nsteps = _nsteps(function, ranks)
    collnet = algorithm in ("CollNetDirect", "CollNetChain")
    bw = g.bw_intra if nodes <= 2 or collnet else g.bw_inter
    if algorithm in ("NVLS", "NVLSTree") and not release.nvls_efficiency_model:
        bw = min(_legacy_nvls_limits(algorithm, nodes, g).values())
    elif algorithm in ("NVLS", "NVLSTree"):
        if g.n_channels < 2:
            return None
        bw = min(_nvls_limits(function, algorithm, system, g, release).values())
    bus = g.n_channels * bw
    if algorithm == "Ring" and protocol == "LL":
        bus = _ring_ll(bus, ll_max, function, nodes, release)
    if algorithm == "Ring" and protocol == "LL128":
        factor = release.ring_ll128_one_gpu_per_node if ppn < 2 else 0.92
        bus = min(bus * factor, g.n_channels * T.PER_CH_MAX_RING_LL128_BW[gen][idx2])
    if algorithm == "Tree" and function == "AllReduce":
        bus = min(bus * 0.92, g.n_channels * T.PER_CH_MAX_TREE_BW[gen][idx2])
    if algorithm == "Tree" and protocol == "LL":
        bus = min(bus / 3.8, ll_max)
    if algorithm == "Tree" and protocol == "LL128":
        factor = 7.0 / 9.0 if nodes == 1 else 120.0 / 128.0
        bus = min(bus * factor, g.n_channels * T.PER_CH_MAX_TREE_LL128_BW[gen][idx2])
    if algorithm == "Tree" and g.pattern == T.PATTERN_TREE:
        bus *= 0.85
    if algorithm == "PAT":
        bus *= 0.75
    if collnet and protocol != "Simple":
        bus = 0.0
    if algorithm in ("NVLS", "CollNetDirect") and function in ("AllGather", "ReduceScatter"):
        if nodes > 1:
            bus = 0.0  # needs a CollNet plugin with all-gather / reduce-scatter: none here
    if not release.nvls_efficiency_model:
        # before 2.28: NVLS converted by 5/6, and every algorithm but CollNetDirect converted
        # for all-gather / reduce-scatter (v2.22.3-1 tuning.cc lines 210-217)
        if not (algorithm == "CollNetDirect" and function in _GATHERS):
            ring = algorithm == "Ring"
            nvls = algorithm in ("NVLS", "NVLSTree")
            bus *= ranks / nsteps if ring else (5.0 / 6.0 if nvls else 0.5)
        return bus
    if not (algorithm != "Ring" and function in _GATHERS):
        ratio = ranks / nsteps if algorithm in ("Ring", "NVLS", "NVLSTree") else 0.5
        bus *= ratio
    return bus


_GATHERS = ("AllGather", "ReduceScatter")


def _nsteps(function: str, ranks: int) -> int:
    if function == "AllReduce":
        return 2 * (ranks - 1)
    if function in ("ReduceScatter", "AllGather"):
        return ranks - 1
    return ranks


def latency_us(function: str, algorithm: str, protocol: str, system: NcclSystem, g: Graph, release):
    """NCCL's latency (us) of ``algorithm``/``protocol`` for ``function`` on ``system`` with
    graph ``g``, as ``release`` computes it (tuning.cc, the latency half of ncclTopoTuneModel)."""
    a, p = A[algorithm], P[protocol]
    nodes, ranks = system.nodes, system.ranks
    ppn = ranks / nodes
    hw_lat = release.hw_latency_us
    intra_hw = T.HW_NVLINK if g.type_intra == "NVL" else T.HW_PCI
    hw = intra_hw if nodes == 1 else T.HW_NET
    lat = release.base_latency_us[a][p]
    intra = hw_lat[intra_hw][a][p]
    net_algo = A["Tree"] if ppn == 1 and release.one_gpu_per_node_tree_latency else a
    inter = hw_lat[T.HW_NET][net_algo][p] + g.latency_inter
    if protocol == "Simple":
        inter += g.latency_inter  # the flush
    nsteps = _nsteps(function, ranks)
    local = ranks // nodes
    if algorithm == "Ring":
        hop = hw_lat[hw][a][p]
        if function in ("Reduce", "Broadcast"):
            if g.same_channels:
                return lat + hop
            if protocol == "Simple":
                hop = hw_lat[hw][A["Tree"]][p]
            return lat + nsteps * hop
        overhead = 0.0
        if nodes > 1:
            overhead = 2.0 if system.hardware.cpu_vendor == "AMD" else 1.0
            if protocol == "Simple":
                overhead *= 3
        intra = max(intra, overhead)
        per_node = release.all_reduce_network_steps_per_node  # 2 nodes before 2.23
        all_reduce_steps = 2 * nodes if per_node else 2 * (nodes - 1)
        inter_steps = (
            0 if nodes == 1 else (all_reduce_steps if function == "AllReduce" else nodes - 1)
        )
        return lat + (nsteps - inter_steps) * intra + inter_steps * inter
    if algorithm == "Tree":
        if function == "AllReduce":
            lat += 2 * ((local - 1) * intra + log2i(nodes) * inter)
        return lat
    if algorithm == "CollNetDirect":
        return lat + 2 * (min(1, local - 1) * intra + (local - 1) * 0.4) + inter
    if algorithm == "CollNetChain":
        return lat + 2 * (local - 1) * intra + inter
    if algorithm == "NVLS":
        return intra + (inter if nodes > 1 else 0.0)
    if algorithm == "NVLSTree":
        return lat + intra + 2 * log2i(nodes) * inter
    if function in ("AllGather", "ReduceScatter"):  # PAT
        lat += log2i(nodes) * (inter / 3.5) + ranks * 2.8
    return lat


def _ll128_allowed(system: NcclSystem, g: Graph, release) -> bool:
    """LL128's default enablement (tuning.cc lines 518-535; NCCL_LL128_C2C at its default).
    Before 2.23 only Volta, Ampere and Hopper (v2.22.3-1 tuning.cc lines 306-318)."""
    ok = T.PATH[g.type_inter] <= (T.PATH["PXN"] if system.cc >= 90 else T.PATH["PXB"])
    ok = ok and T.PATH[g.type_intra] <= T.PATH["NVB"]
    if release.ll128_volta_to_hopper_only and system.cc not in (70, 80, 90):
        return False
    return ok and system.cc >= 70


def cost_table(
    system: NcclSystem, enable: Enablement | None = None, release: TunerRelease = CURRENT
) -> CostTable:
    """NCCL's latency and bandwidth table on ``system`` with the overrides of ``enable``
    (default: none, NCCL's own choices), as NCCL ``release`` (default 2.30.7) computes it."""
    enable = enable or Enablement.defaults()
    n = len(T.FUNCTIONS), len(T.ALGORITHMS), len(T.PROTOCOLS)
    lat = [[[0.0] * n[2] for _ in range(n[1])] for _ in range(n[0])]
    bw = [[[0.0] * n[2] for _ in range(n[1])] for _ in range(n[0])]
    bound = [[False] * n[1] for _ in range(n[0])]
    if system.ranks > 1:
        for function in T.FUNCTIONS:
            for algorithm in T.ALGORITHMS:
                g = system.graphs.get(algorithm) or _NO_GRAPH
                bound[F[function]][A[algorithm]] = _network_bound(
                    function, algorithm, system, g, release
                )
                for protocol in T.PROTOCOLS:
                    if _skip(function, algorithm, protocol, system, release):
                        continue
                    busbw = _bandwidth(function, algorithm, protocol, system, g, release)
                    if busbw is None:
                        continue
                    f, a, p = F[function], A[algorithm], P[protocol]
                    bw[f][a][p] = busbw
                    lat[f][a][p] = latency_us(function, algorithm, protocol, system, g, release)
        _apply_enablement(system, enable, bw, release)
    return CostTable(
        system,
        tuple(tuple(tuple(r) for r in f) for f in lat),
        tuple(tuple(tuple(r) for r in f) for f in bw),
        _max_threads(system),
        _thresholds(system),
        release,
        tuple(tuple(row) for row in bound),
    )


def _apply_enablement(system: NcclSystem, enable: Enablement, bw, release) -> None:
    for function in T.FUNCTIONS:
        f = F[function]
        for algorithm in T.ALGORITHMS:
            a = A[algorithm]
            on = enable.algorithm(function, algorithm)
            if system.nodes == 1 and algorithm == "NVLSTree":
                on = False
            if algorithm in ("CollNetDirect", "CollNetChain") or (
                algorithm == "NVLS" and system.nodes > 1
            ):
                on = False  # NCCL_COLLNET_ENABLE is 0 by default: no CollNet
            g = system.graphs.get(algorithm) or _NO_GRAPH
            for protocol in T.PROTOCOLS:
                p = P[protocol]
                proto_on = enable.protocol(function, protocol)
                if proto_on == 2:
                    proto_on = _ll128_allowed(system, g, release)
                if not proto_on or not on:
                    bw[f][a][p] = 0.0
