"""Algorithm and bus bandwidth exactly as nccl-tests defines them (doc/PERFORMANCE.md, src/*.cu).

algbw = S / t, where S is the size nccl-tests reports for the operation (for all-gather,
reduce-scatter, gather and scatter: the *total* size, count per rank x ranks).
busbw = algbw x factor(collective, p). The factor turns algbw into the rate each rank's link
must sustain for a ring/tree algorithm, so it can be compared with the link's speed. It does not
hold for in-network reductions (NVLS, SHARP): there neither number is the bytes on the wire.

Units: bytes, seconds, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

from nccl_course import collectives

#: The collectives nccl-tests defines a bus bandwidth for (all but the barrier), in course order.
BUSBW_COLLECTIVES = collectives.names(lambda c: c.busbw_formula is not None)


def busbw_factor(collective: str, p: int) -> float:
    """The factor nccl-tests multiplies algbw by, for ``p`` ranks (p >= 1): the collective's
    ``busbw_formula`` in :data:`nccl_course.collectives.COLLECTIVES`. ValueError for the barrier
    (no bus bandwidth) or an unknown name."""
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    if collective not in BUSBW_COLLECTIVES:
        raise ValueError(
            f"unknown collective {collective!r} (or one without a bus bandwidth); "
            f"known: {', '.join(BUSBW_COLLECTIVES)}"
        )
    return collectives.get(collective).busbw_factor(p)


def algbw(size_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth in GB/s (1e9 bytes/s): size / time."""
    if seconds <= 0:
        raise ValueError(f"time must be positive, got {seconds} s")
    return size_bytes / seconds / 1e9


def busbw(collective: str, size_bytes: float, seconds: float, p: int) -> float:
    """Bus bandwidth in GB/s (1e9 bytes/s), as nccl-tests prints it."""
    return algbw(size_bytes, seconds) * busbw_factor(collective, p)
