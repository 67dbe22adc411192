"""NVLink hops that take longer than NCCL's tuner counts them: Blackwell.

NCCL's tuner prices each NVLink hop of a small call with one table for every GPU generation
(``hwLat[NVLINK]``, src/graph/tuning.cc: 0.6 us for Ring/LL, 1.25 us for LL128, ...). Published
B200 runs take longer per call than that table gives, by about what its NVLink hops cost a
second time: the 8x B200 node of a ``torch.distributed`` loop takes about 9 us more per small
call than the 8x H200 node of the same loop and versions (stas00-8xb200-nvls against
stas00-8xh200-nvls), the 2 x 8 B200 nccl-tests run of dstack-lambda-2x8xb200-ib 7-17 us more
than the 2 x 8 H100 runs of the same layout (nccl-tests-309-2x8xh100-ndr,
dstack-nebius-2x8xh100-ib), and the one-GPU-per-node B200 all-gather
(dranet-gke-a4-2x1xb200-allgather), which has no NVLink hop, nothing more.

The call-cost model (:mod:`~nccl_course.cost.nccl.call_cost`) adds, on GPUs of compute
capability 10.0 and up, what NCCL's own latency formula gives with those hop latencies
scaled by :data:`BLACKWELL_NVLINK_HOP_SCALE`, less what it gives with NCCL's: a **fitted**
constant, fitted on :data:`FITTED_ON` and checked on :data:`HELD_OUT`
(:func:`nccl_course.cost.nccl.call_fit.fit_hop_scale`; ``scripts/fit_call_cost.py`` prints
both). NCCL's choice and its own estimate are unchanged.

Units: microseconds.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.releases import TunerRelease
from nccl_course.cost.nccl.system import NcclSystem

#: Fitted: NVLink hop latency on Blackwell (sm_100 and later) / NCCL's hwLat[NVLINK].
BLACKWELL_NVLINK_HOP_SCALE = 2.5

#: The sweep the scale is fitted on, and the one it is checked on.
FITTED_ON = ("stas00-8xb200-nvls",)
HELD_OUT = ("dstack-lambda-2x8xb200-ib",)


def _scaled(release: TunerRelease, scale: float) -> TunerRelease:
    hw = [list(rows) for rows in release.hw_latency_us]
    hw[T.HW_NVLINK] = [tuple(v * scale for v in row) for row in release.hw_latency_us[T.HW_NVLINK]]
    return replace(release, hw_latency_us=tuple(tuple(rows) for rows in hw))


@lru_cache(maxsize=4096)
def extra_latency_us(
    function: str,
    algorithm: str,
    protocol: str,
    system: NcclSystem,
    release: TunerRelease,
    scale: float = BLACKWELL_NVLINK_HOP_SCALE,
) -> float:
    """What the NVLink hops of one call of ``algorithm``/``protocol`` add to NCCL's latency on
    ``system`` beyond NCCL's own figure (0 before Blackwell, or for an algorithm the tuner does
    not price: all_to_all's sends and receives)."""
    from nccl_course.cost.nccl.tuner import latency_us

    if system.cc < 100 or algorithm not in T.ALGORITHMS:
        return 0.0
    graph = system.graphs.get(algorithm)
    if graph is None:
        return 0.0
    args = (function, algorithm, protocol, system, graph)
    return latency_us(*args, _scaled(release, scale)) - latency_us(*args, release)
