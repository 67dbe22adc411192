"""PAT-like schedules: Bruck's all-gather with its dimensions reversed, and its transpose, a
reduce-scatter.

NCCL's PAT (Parallel Aggregated Trees, NCCL 2.23+, all-gather and reduce-scatter with one GPU per
node, Simple protocol) connects every rank to the ranks at distance 2^d
(``ncclTransportPatConnect``, src/transport/generic.cc, NCCL 2.30.7, whose comments name the
two directions the other way round): for all-gather a rank receives from ``rank + 2^d`` and
sends to ``rank - 2^d``, the directions of Bruck's all-gather, as the peers are set in
``Primitives`` in PAT mode (src/device/prims_simple.h, lines 681 and 691); for reduce-scatter
the mirror image. Its
author describes it as a variant of Bruck's algorithm that reorders the schedule (NVIDIA/nccl
issue 1473; Jeaugey 2025, arXiv:2506.20252): the far distances go first, carrying little data,
and the data piles up on the near distances, so the step that moves the most data is the one
between neighbours. Every rank's block reaches all others along a binomial tree rooted at its
owner, and the trees of all ranks run in parallel, their blocks aggregated into one message per
step and peer.

What is built here is that schedule when buffers are unlimited: distances 2^(L-1), ..., 2, 1
(L = ceil(log2 p)), one message per rank and step. NCCL's kernel also limits how many blocks it
aggregates to what its staging buffers hold (``PatAGAlgorithm``/``PatRSAlgorithm``,
src/include/collectives.h), which splits steps into more, smaller messages for large buffers;
that limit is not modelled. These builders are not registered in
:mod:`nccl_course.sim.registry`: the textbook cost model prices every registered algorithm, and
PAT is an NCCL algorithm for one GPU per node, shown here for its structure.

Units: chunks (one block per rank, k = 1); bytes via :meth:`Schedule.bytes_sent_per_rank`.
"""

from __future__ import annotations

import numpy as np

from nccl_course.intmath import ceil_log2
from nccl_course.sim import layout
from nccl_course.sim.schedule import Schedule, StepBuilder

PAT_COLLECTIVES = ("all_gather", "reduce_scatter")


def pat_distances(p: int) -> list[int]:
    """The distances of the all-gather's steps, far first: 2^(L-1), ..., 2, 1."""
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    return [1 << i for i in reversed(range(ceil_log2(p)))]


def pat_offsets_per_step(p: int) -> list[list[int]]:
    """For each all-gather step, the offsets o of the blocks every rank sends: rank r sends
    blocks (r + o) mod p to rank r - d. Offsets that would reach p or more are left out (they
    would repeat a block), which keeps the schedule valid for any p."""
    held = [0]
    out = []
    for d in pat_distances(p):
        sent = [o for o in held if o + d < p]
        out.append(sent)
        held = held + [o + d for o in sent]
    return out


def _allgather_transfers(p: int) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """(step, src, dst, block) arrays of the all-gather."""
    ranks = np.arange(p)
    steps = []
    for step, (d, offsets) in enumerate(
        zip(pat_distances(p), pat_offsets_per_step(p), strict=True)
    ):
        off = np.asarray(offsets, dtype=np.int64)
        src = np.repeat(ranks, off.size)
        dst = (src - d) % p
        blocks = (src + np.tile(off, p)) % p
        steps.append((step, src, dst, blocks))
    return steps


def pat_schedule(collective: str, p: int) -> Schedule:
    """The PAT-like schedule of ``collective`` ("all_gather" or "reduce_scatter") on ``p`` ranks.

    The reduce-scatter is the all-gather run backwards: every transfer reversed in direction and
    in time, adding instead of copying, so each block's partial sums flow up its binomial tree
    to the block's owner (near distances first, carrying the most data).
    """
    if collective not in PAT_COLLECTIVES:
        raise ValueError(f"PAT runs {' and '.join(PAT_COLLECTIVES)}, not {collective!r}")
    layout.check_collective(collective)
    transfers = _allgather_transfers(p)
    sb = StepBuilder()
    if collective == "all_gather":
        for step, src, dst, blocks in transfers:
            sb.add(step, src, dst, blocks)
    else:
        last = len(transfers) - 1
        for step, src, dst, blocks in transfers:
            sb.add(last - step, dst, src, blocks, True)
    return Schedule(
        collective=collective,
        algorithm="pat",
        p=p,
        num_chunks=p,
        size_chunks=layout.size_chunks(collective, p, 1, p),
        step_arrays=sb.build(),
    )


__all__ = ["PAT_COLLECTIVES", "pat_distances", "pat_offsets_per_step", "pat_schedule"]
