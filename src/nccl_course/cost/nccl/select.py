"""How NCCL 2.30.7 picks an algorithm, a protocol, channels and threads for one collective
(src/enqueue.cc: ``updateCollCostTable`` lines 1989-2026, ``topoGetAlgoInfo`` lines 2028-2118,
``ncclGetAlgoInfo`` lines 2123-2176).

1. The cost table: every (algorithm, protocol) gets the time of
   :meth:`~nccl_course.cost.nccl.tuner.CostTable.time_us`, or -1 when it is disabled or
   ignored here (CollNet without a CollNet network, NVLS without NVLink SHARP, NVLS between
   nodes without CollNet). With one rank only Ring/Simple is priced, at 0.
2. A tuner plugin (``NCCL_TUNER_PLUGIN``) may then rewrite that table (``getCollInfo``); the
   course models NCCL's internal tuner only, as with no plugin loaded.
3. The smallest non-negative time wins; ties go to the first in NCCL's order (Tree, Ring, ...;
   LL, LL128, Simple). None left: NCCL's "No algorithm/protocol available" error.
4. Channels: NVLS uses its own count (``nvlsChannels``); Ring and Tree start from the
   communicator's channels and drop one while the bytes are fewer than channels x threads x
   a per-thread threshold (8 B for LL and LL128, 64 for Simple; Ring/LL x nRanks). Then threads
   halve the same way while a multiple of 128.

nBytes is the largest of the send and receive buffers (``ncclFuncMaxSendRecvCount``,
src/include/enqueue.h lines 39-41): for all-gather and reduce-scatter the whole gathered or
scattered buffer, p x count, which is the size nccl-tests reports; for the others one buffer.
So NCCL's nBytes equals nccl-tests' size for the five collectives.

Units: bytes, microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.overrides import NcclInvalidUsage
from nccl_course.cost.nccl.tuner import CostTable


@dataclass(frozen=True)
class Choice:
    """The winner: ``time_us`` NCCL's estimate in us; ``channels`` and ``threads`` per channel;
    ``candidates``: {"Algorithm/Protocol": us or -1} for every pair, in NCCL's order."""

    algorithm: str
    protocol: str
    time_us: float
    channels: int
    threads: int
    candidates: dict


def candidate_times(table: CostTable, function: str, n_bytes: int) -> dict[str, float]:
    """{"Algorithm/Protocol": us} for every pair, -1 where NCCL will not use it."""
    system = table.system
    out = {}
    for algorithm in T.ALGORITHMS:
        for protocol in T.PROTOCOLS:
            key = f"{algorithm}/{protocol}"
            if system.ranks == 1:
                out[key] = 0.0 if key == "Ring/Simple" else -1.0
                continue
            ignored = (
                algorithm in ("CollNetDirect", "CollNetChain")
                or (algorithm in ("NVLS", "NVLSTree") and not system.nvls_support)
                or (
                    algorithm in ("NVLS", "NVLSTree")
                    and function != "AllReduce"
                    and system.gpus_per_node > T.MAX_NVLS_ARITY
                )
                or (algorithm == "NVLS" and system.nodes > 1)
            )
            out[key] = -1.0 if ignored else table.time_us(function, algorithm, protocol, n_bytes)
    return out


def choose(table: CostTable, function: str, n_bytes: int, *, algo=None, proto=None) -> Choice:
    """NCCL's choice for ``function`` (NCCL's name) of ``n_bytes`` on the table's system.
    ``algo`` / ``proto``: the NCCL_ALGO / NCCL_PROTO strings the table was built with, only
    for the error message."""
    times = candidate_times(table, function, n_bytes)
    best, best_time = None, float("inf")
    for key, t in times.items():
        if 0.0 <= t < best_time:
            best, best_time = key, t
    if best is None:
        message = (
            f"No algorithm/protocol available for function {function} with datatype ncclFloat32."
        )
        if algo:
            message += f" NCCL_ALGO was set to {algo}."
        if proto:
            message += f" NCCL_PROTO was set to {proto}."
        raise NcclInvalidUsage(message)
    algorithm, protocol = best.split("/")
    channels, threads = _channels_threads(table, algorithm, protocol, n_bytes)
    return Choice(algorithm, protocol, best_time, channels, threads, times)


def _channels_threads(table: CostTable, algorithm: str, protocol: str, n_bytes: int):
    system = table.system
    a, p = T.ALGORITHMS.index(algorithm), T.PROTOCOLS.index(protocol)
    nc = system.comm_channels
    nt = table.max_threads[a][p]
    threshold = table.thread_threshold[a][p]
    if algorithm in ("NVLS", "NVLSTree"):
        nc = system.nvls_channels
        if system.nodes > 1 and algorithm == "NVLS":
            nc = min(system.nvls_channels, system.comm_channels)
    else:
        while n_bytes < nc * nt * threshold and nc >= 2:
            nc -= 1
        while n_bytes < nc * nt * threshold and nt % 128 == 0 and nt:
            nt //= 2
    if protocol == "Simple":
        nt += {"Ring": T.WARP_SIZE, "Tree": 4 * T.WARP_SIZE}.get(algorithm, 0)
    nt = max(nt, 3 * T.WARP_SIZE)
    if algorithm in ("Tree", "PAT"):
        nt = T.MAX_NTHREADS
    return nc, nt
