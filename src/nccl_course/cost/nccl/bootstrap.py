"""The delay NCCL's bootstrap adds before ranks contact their root, NCCL 2.23 to 2.30.7.

``bootstrapInit`` (src/bootstrap.cc) spreads a communicator's ranks over its unique ids' roots
(one root for ``ncclCommInitRank``, ``nId`` for ``ncclCommInitRankScalable``), as evenly as the
division allows. When a root has more than ``NCCL_UID_STAGGER_THRESHOLD`` (256) ranks, each of
them sleeps ``local id / NCCL_UID_STAGGER_RATE`` seconds (7000 messages per second) before
sending its address, so that the root's socket is not flooded. The last rank of the busiest
root waits longest; that wait is a floor on the bootstrap's time.

Units: seconds.
"""

from __future__ import annotations

#: NCCL_UID_STAGGER_THRESHOLD and NCCL_UID_STAGGER_RATE defaults (src/bootstrap.cc, 2.23+).
STAGGER_THRESHOLD = 256
STAGGER_RATE_PER_S = 7000


def ranks_per_root(ranks: int, roots: int = 1) -> int:
    """The most ranks any one root handles (NCCL gives the first ``ranks % roots`` one more)."""
    if ranks < 1 or not 1 <= roots <= ranks:
        raise ValueError(
            f"ranks={ranks}, roots={roots}: need at least one rank and 1 <= roots <= ranks "
            "(ncclCommInitRankScalable refuses more unique ids than ranks)"
        )
    return -(-ranks // roots)


def stagger_delay_s(ranks: int, roots: int = 1) -> float:
    """Seconds the last rank of the busiest root sleeps before contacting it (0 at or under the
    threshold)."""
    n = ranks_per_root(ranks, roots)
    if n <= STAGGER_THRESHOLD:
        return 0.0
    return (n - 1) / STAGGER_RATE_PER_S
