"""``predict``: NCCL 2.30.7's own estimate for one collective on a preset, the algorithm and
protocol it would pick, and the table it picked from.

Unlike the textbook model (:func:`nccl_course.cost.predict`: closed forms, the fastest of the
classic algorithms), this is the model NCCL runs at every call to choose how to run it: the
same constants, graphs and rules (see :mod:`~nccl_course.cost.nccl.tuner` and
:mod:`~nccl_course.cost.nccl.select`). Its times are NCCL's *estimates*, which NCCL tunes to
choose well, not to predict well; compare them with measurements in
:mod:`nccl_course.cost.published`.

all_to_all is not a function of NCCL's tuner: NCCL runs it as grouped point-to-point sends and
receives, chosen without the tuner. :func:`predict` prices it with the course's model of how
NCCL runs those (:mod:`~nccl_course.cost.nccl.p2p`: algorithm "P2P", protocol LL or Simple);
send_recv, gather and scatter are not priced and raise a ValueError.

``nccl_version`` prices with an older release's tuner rules
(:mod:`~nccl_course.cost.nccl.releases`: 2.22.3, 2.21.5, 2.20.5, 2.20.3) on the graphs of the
2.30.7 search rules; forcing algorithms is modelled for 2.30.7 only, because older releases
fell back to Ring where a forced algorithm could not run.

Units: bytes; ``time_s`` seconds; GB/s = 1e9 bytes/s; ``candidates`` in microseconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from functools import lru_cache

from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.nccl import p2p
from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.call_cost import DEFAULT_HARNESS, call_cost
from nccl_course.cost.nccl.call_cost import harness as get_harness
from nccl_course.cost.nccl.hop_latency import extra_latency_us
from nccl_course.cost.nccl.overrides import Enablement, NcclInvalidUsage
from nccl_course.cost.nccl.releases import CURRENT, release
from nccl_course.cost.nccl.select import choose
from nccl_course.cost.nccl.system import NcclHardware, NcclSystem, layout
from nccl_course.cost.nccl.tuner import CostTable, cost_table
from nccl_course.cost.presets import Preset, get_preset


@dataclass(frozen=True)
class NcclPrediction:
    """NCCL's choice and estimate. ``algorithm`` and ``protocol`` are NCCL's names;
    ``channels`` the channels it runs on; ``time_s`` its estimate in seconds; ``algbw_GBps``
    = size / time and ``busbw_GBps`` = algbw x nccl-tests' factor (GB/s = 1e9 bytes/s);
    ``candidates``: {"Algorithm/Protocol": microseconds, -1 if disabled}, as the cost table
    NCCL chooses from (NCCL_DEBUG_SUBSYS=TUNING prints its latencies and bandwidths).
    ``call_time_s``, ``call_algbw_GBps``, ``call_busbw_GBps``: what the call costs as
    ``harness`` times it (:mod:`~nccl_course.cost.nccl.call_cost`), which is what a
    measurement shows; ``call_terms_us`` its terms; ``network_bound``: the network sets the
    algorithm's bandwidth (so the network's achievable share slowed the call)."""

    collective: str
    preset: str
    ranks: int
    nodes: int
    size_bytes: int
    algorithm: str
    protocol: str
    channels: int
    threads: int
    time_s: float
    algbw_GBps: float
    busbw_GBps: float
    candidates: dict
    nccl_version: str = T.NCCL_VERSION
    harness: str = DEFAULT_HARNESS
    call_time_s: float = 0.0
    call_algbw_GBps: float = 0.0
    call_busbw_GBps: float = 0.0
    call_terms_us: dict | None = None
    network_bound: bool = False

    def as_dict(self) -> dict:
        """The fields as a dict, the nested tables copied (what ``dataclasses.asdict`` gives,
        without its recursion into every float: a tenth of the time)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["candidates"] = dict(self.candidates)
        if self.call_terms_us is not None:
            data["call_terms_us"] = dict(self.call_terms_us)
        return data


#: The collective :func:`predict` prices as grouped sends and receives
#: (:mod:`~nccl_course.cost.nccl.p2p`), beside the tuner's functions.
P2P_COLLECTIVES = ("all_to_all",)

#: Every collective :func:`predict` prices: the tuner's five, then all_to_all.
PRICED_COLLECTIVES = (*T.COURSE_TO_FUNCTION, *P2P_COLLECTIVES)


def function_name(collective: str) -> str:
    """NCCL's tuner function for a course collective name; ValueError for what its tuner never
    sees (all_to_all included: :func:`predict` prices it without the tuner)."""
    try:
        return T.COURSE_TO_FUNCTION[collective]
    except KeyError:
        raise ValueError(
            f"NCCL's tuner does not price {collective!r}: it covers "
            f"{', '.join(T.COURSE_TO_FUNCTION)}; NCCL runs all_to_all, send_recv, gather and "
            "scatter as grouped point-to-point operations (ncclSend/ncclRecv), chosen without "
            "the tuner. predict() prices all_to_all with the course's model of those; use the "
            "textbook model (without --nccl) for send_recv, gather and scatter."
        ) from None


def nccl_hardware(preset: Preset) -> NcclHardware:
    """The preset's NCCL description; ValueError if it has none."""
    if preset.nccl is None:
        raise ValueError(f"preset {preset.name!r} has no NCCL system description")
    return preset.nccl


def system_for(preset: str | Preset, ranks: int | None = None) -> NcclSystem:
    """The communicator NCCL tunes for ``ranks`` GPUs of ``preset`` (default: its own count)."""
    preset = get_preset(preset)
    hw = nccl_hardware(preset)
    if preset.ranks_per_node != hw.gpus_per_node:
        # A preset edited to fewer GPUs per node (e.g. one rank per node) must say so in its
        # NCCL description too, or NCCL's model would lay the ranks out on one NVLink node.
        raise ValueError(
            f"preset {preset.name!r} has {preset.ranks_per_node} ranks per node but its NCCL "
            f"description {hw.gpus_per_node} GPUs per node; for one GPU per node use "
            "nccl_course.cost.presets.one_gpu_per_node(preset, nodes)"
        )
    p = preset.ranks if ranks is None else int(ranks)
    nodes, per_node = layout(hw, p, preset.nodes)
    return _system(hw, nodes, per_node)


@lru_cache(maxsize=256)
def _system(hw: NcclHardware, nodes: int, per_node: int) -> NcclSystem:
    return NcclSystem(hw, nodes, per_node)


@lru_cache(maxsize=1024)
def _table(
    system: NcclSystem, algo: str | None, proto: str | None, version: str = CURRENT.version
) -> CostTable:
    return cost_table(system, Enablement.parse(algo, proto), release(version))


def node_nvls_busbw(system: NcclSystem, version: str = CURRENT.version) -> float:
    """The bus bandwidth (GB/s) NCCL's tuner gives NVLS all-reduce inside one node of
    ``system``'s GPUs, for a system of two nodes; 0 otherwise, or for GPUs without NVLink SHARP.

    An NVLSTree all-reduce on two nodes reduces inside each node with NVLink SHARP and sends
    only the node's share over the network (NCCL doubles the network's figure for it). Where
    NCCL's formula finds NVLink SHARP slower than the network (:meth:`CostTable.is_network_bound`
    false), the call runs as fast as NVLS does in one node: the tuner's own NVLSTree figure
    there comes from the multi-node graph (on B200, 8 channels at the NIC's PCIe speed, 62 GB/s
    each), and it is about 30 % under what published 2-node B200 runs measure; on H100 the two
    figures are within 3 %. Beyond two nodes the tree between nodes has more levels and NCCL's
    figure matches the published 4-node H100 run, so it is kept. The call cost uses this
    figure; NCCL's choice and estimate keep the tuner's."""
    if system.nodes != 2:
        return 0.0
    one_node = _system(system.hardware, 1, system.gpus_per_node)
    if not one_node.nvls_support:
        return 0.0
    table = _table(one_node, None, None, version)
    algbw = table.bandwidth_GBps[T.FUNCTIONS.index("AllReduce")][T.ALGORITHMS.index("NVLS")][
        T.PROTOCOLS.index("Simple")
    ]
    return algbw * busbw_factor("all_reduce", one_node.ranks)


def _checked_version(nccl_version: str | None, algo: str | None, proto: str | None) -> str:
    """The release to price with; ValueError for overrides the older releases read otherwise."""
    version = release(nccl_version).version if nccl_version else CURRENT.version
    if version != CURRENT.version:
        if algo:
            raise NcclInvalidUsage(
                f"forcing an algorithm is modelled for NCCL {CURRENT.version} only: NCCL "
                f"{version} fell back to Ring where the forced algorithm could not run; "
                "drop --algo or the NCCL version"
            )
        if proto and ":" in proto:
            raise NcclInvalidUsage(
                f"NCCL {version} has no per-collective NCCL_PROTO (2.24 added "
                f"'function:protocol'); give a plain list such as Simple or ^LL"
            )
    return version


def table_for(
    preset: str | Preset, ranks=None, *, algo=None, proto=None, nccl_version=None
) -> CostTable:
    """NCCL's cost table (latency, bandwidth per function x algorithm x protocol)."""
    version = _checked_version(nccl_version, algo, proto)
    return _table(system_for(preset, ranks), algo, proto, version)


def predict(
    collective: str,
    size_bytes: int,
    preset: str | Preset,
    *,
    ranks: int | None = None,
    algo: str | None = None,
    proto: str | None = None,
    nccl_version: str | None = None,
    harness: str | None = None,
) -> NcclPrediction:
    """NCCL's pick and time for ``collective`` of ``size_bytes`` (nccl-tests' size, which is
    NCCL's nBytes for the tuner's five collectives; for all_to_all every rank's whole send
    buffer) on ``preset``. ``algo`` / ``proto``: NCCL_ALGO /
    NCCL_PROTO strings ("ring", "allreduce:tree", "^NVLS"). Raises NcclInvalidUsage (a
    ValueError) with NCCL's message for a bad string or one that leaves no algorithm.
    ``nccl_version``: price with that release's tuner (default 2.30.7; see the module doc).
    ``harness``: who times the call, for the call's cost (default nccl-tests, one process per
    GPU; :data:`~nccl_course.cost.nccl.call_cost.HARNESSES`)."""
    if collective in P2P_COLLECTIVES:
        return _predict_p2p(
            collective, size_bytes, preset, ranks, algo, proto, nccl_version, harness
        )
    function = function_name(collective)
    if size_bytes < 0:
        raise ValueError(f"size must be non-negative, got {size_bytes}")
    version = _checked_version(nccl_version, algo, proto)
    preset = get_preset(preset)
    system = system_for(preset, ranks)
    table = _table(system, algo, proto, version)
    harness = get_harness(harness).name
    choice = choose(table, function, int(size_bytes), algo=algo, proto=proto)
    return _prediction(
        collective,
        size_bytes,
        preset,
        system,
        harness,
        version,
        algorithm=choice.algorithm,
        protocol=choice.protocol,
        channels=choice.channels,
        threads=choice.threads,
        latency_us=table.time_us(function, choice.algorithm, choice.protocol, 0),
        estimate_us=choice.time_us,
        candidates=choice.candidates,
        network_bound=table.is_network_bound(function, choice.algorithm),
    )


def _predict_p2p(collective, size_bytes, preset, ranks, algo, proto, nccl_version, harness):
    """:func:`predict` for all_to_all: the plan of :func:`nccl_course.cost.nccl.p2p.plan` and the
    call's cost on top, as for the tuner's collectives. ``candidates`` holds the one way NCCL
    runs it."""
    if algo or proto:
        raise NcclInvalidUsage(
            f"NCCL_ALGO and NCCL_PROTO choose among the tuner's algorithms; {collective} runs as "
            "grouped sends and receives (LL or Simple by size), which they do not change: "
            "drop --algo / --proto"
        )
    version = release(nccl_version).version if nccl_version else CURRENT.version
    if version != CURRENT.version:
        raise ValueError(
            f"{collective} is modelled from NCCL {CURRENT.version}'s point-to-point rules only; "
            "drop the NCCL version"
        )
    preset = get_preset(preset)
    system = system_for(preset, ranks)
    harness = get_harness(harness).name
    run = p2p.plan(system, int(size_bytes))
    return _prediction(
        collective,
        size_bytes,
        preset,
        system,
        harness,
        version,
        algorithm="P2P",
        protocol=run.protocol,
        channels=run.channels,
        threads=T.MAX_NTHREADS,
        latency_us=run.latency_us,
        estimate_us=run.estimate_us,
        candidates={f"P2P/{run.protocol}": run.estimate_us},
    )


def _prediction(
    collective: str,
    size_bytes: int,
    preset: Preset,
    system: NcclSystem,
    harness: str,
    version: str,
    *,
    algorithm: str,
    protocol: str,
    channels: int,
    threads: int,
    latency_us: float,
    estimate_us: float,
    candidates: dict,
    network_bound: bool = True,
) -> NcclPrediction:
    """The prediction of a call NCCL runs as ``algorithm``/``protocol`` on ``channels``, which
    it estimates at ``estimate_us`` (``latency_us`` at 0 bytes): its bandwidths, and the cost of
    the call as ``harness`` times it on top (:func:`~nccl_course.cost.nccl.call_cost.call_cost`).
    An NVLSTree call that NVLink SHARP bounds moves its bytes at :func:`node_nvls_busbw`."""
    factor = busbw_factor(collective, system.ranks)
    transfer_us = None
    if algorithm == "NVLSTree" and not network_bound:
        if (node_busbw := node_nvls_busbw(system, version)) > 0:
            transfer_us = size_bytes * factor / (1e3 * node_busbw)  # bytes / (GB/s x 1e3) = us
    # Blackwell's NVLink hops take longer than NCCL's table says (hop_latency): the call's
    # latency, not NCCL's estimate, carries the difference
    hops = 0.0
    if algorithm != "P2P":
        hops = extra_latency_us(
            function_name(collective), algorithm, protocol, system, release(version)
        )
    cost = call_cost(
        n_bytes=int(size_bytes),
        protocol=protocol,
        channels=channels,
        latency_us=latency_us + hops,
        estimate_us=estimate_us + hops,
        nodes=system.nodes,
        harness_name=harness,
        network_name=preset.network,
        calibration=preset.calibration,
        network_bound=network_bound,
        transfer_us=transfer_us,
    )
    seconds = estimate_us * 1e-6
    algbw, busbw = _bandwidths(size_bytes, seconds, factor)
    call_seconds = cost.total_us * 1e-6
    call_algbw, call_busbw = _bandwidths(size_bytes, call_seconds, factor)
    return NcclPrediction(
        collective=collective,
        preset=preset.name,
        ranks=system.ranks,
        nodes=system.nodes,
        size_bytes=int(size_bytes),
        algorithm=algorithm,
        protocol=protocol,
        channels=channels,
        threads=threads,
        time_s=seconds,
        algbw_GBps=algbw,
        busbw_GBps=busbw,
        candidates=candidates,
        nccl_version=version,
        harness=harness,
        call_time_s=call_seconds,
        call_algbw_GBps=call_algbw,
        call_busbw_GBps=call_busbw,
        call_terms_us=asdict(cost),
        network_bound=network_bound and system.nodes > 1,
    )


def _bandwidths(size_bytes: int, seconds: float, factor: float) -> tuple[float, float]:
    """(algbw, busbw) in GB/s of ``size_bytes`` in ``seconds``; 0 for an empty call."""
    if seconds > 0 and size_bytes > 0:
        algbw = size_bytes / seconds / 1e9
        return algbw, algbw * factor
    return 0.0, 0.0
