"""Closed-form alpha-beta-gamma costs of the classic collective algorithms.

Model (Hockney; Thakur, Rabenseifner & Gropp 2005): sending m bytes between two ranks costs
alpha + m * beta seconds; reducing m bytes locally costs m * gamma seconds. ``n`` is the
collective's size in bytes as nccl-tests reports it (for all-gather and reduce-scatter the total
over all ranks; for all-reduce, broadcast and reduce the buffer; for all-to-all the bytes each rank
sends in total, its own block included). ``lg p`` is ceil(log2 p).

These are the forms MPICH's sources state (src/mpi/coll/...), written exactly rather than to
leading order where the exact form is simple (e.g. pairwise all-to-all sends (p-1)/p * n, which
MPICH rounds to n), and extended to every schedule of :mod:`nccl_course.sim`, including p not a
power of two (Thakur et al.'s fold) and the pipelined trees. The network they assume is uniform
and fully connected with one full-duplex port per rank (a rank sends one message and receives one
at full speed at the same time; messages through one port share it), and steps are bulk
synchronous. Under that model the simulator's schedule cost equals these forms exactly for every
algorithm and p = 1..33: tests/cost/test_cost.py checks it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nccl_course.intmath import ceil_log2, floor_pow2


@dataclass(frozen=True)
class ClosedForm:
    """A closed form: its formula as text (LaTeX) and a function of (n, p, alpha, beta, gamma, k)."""

    collective: str
    algorithm: str
    latex: str
    time: Callable[..., float]
    note: str = ""


def _fold(p: int):
    """(lg p2, r, sum over d = 1, 2, .., p2/2 of (d + min(d, r))) for the non-power-of-two fold:
    p2 = floor_pow2(p) ranks take part, r = p - p2 pairs fold first. The sum counts the blocks
    in the largest message of each recursive doubling/halving round (a group of d participants,
    min(d, r) of which carry two blocks)."""
    p2 = floor_pow2(p)
    r = p - p2
    lg2 = p2.bit_length() - 1
    blocks = sum((1 << i) + min(1 << i, r) for i in range(lg2))
    return lg2, r, blocks


def _ring_allgather(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * b


def _doubling_allgather(n, p, a, b, g, k=1):
    lg2, r, blocks = _fold(p)
    if r == 0:
        return lg2 * a + n * (p - 1) / p * b
    # fold (one block), doubling rounds, then the odd rank returns p - 1 blocks
    return (lg2 + 2) * a + n / p * (1 + blocks + (p - 1)) * b


def _bruck_allgather(n, p, a, b, g, k=1):
    return ceil_log2(p) * a + n * (p - 1) / p * b


def _ring_reduce_scatter(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * (b + g)


def _halving_reduce_scatter(n, p, a, b, g, k=1):
    lg2, r, blocks = _fold(p)
    if r == 0:
        return lg2 * a + n * (p - 1) / p * (b + g)
    # fold (the whole input), halving rounds, then the odd rank hands back one block
    return (lg2 + 2) * a + n * (b + g) + n / p * blocks * (b + g) + n / p * b


def _ring_allreduce(n, p, a, b, g, k=1):
    return 2 * (p - 1) * a + 2 * n * (p - 1) / p * b + n * (p - 1) / p * g


def _rabenseifner_allreduce(n, p, a, b, g, k=1):
    p2 = floor_pow2(p)
    lg2 = p2.bit_length() - 1
    core = 2 * lg2 * a + 2 * n * (p2 - 1) / p2 * b + n * (p2 - 1) / p2 * g
    if p == p2:
        return core
    # Thakur et al.'s fold: exchange halves and add (a + n/2 (b+g)), send the summed half
    # (a + n/2 b); at the end the odd rank returns the whole result (a + n b).
    return core + (a + n / 2 * (b + g)) + (a + n / 2 * b) + (a + n * b)


def _doubling_allreduce(n, p, a, b, g, k=1):
    p2 = floor_pow2(p)
    lg2 = p2.bit_length() - 1
    if p == p2:
        return lg2 * (a + n * b + n * g)
    return (lg2 + 2) * (a + n * b) + (lg2 + 1) * n * g


def _reduce_broadcast_allreduce(n, p, a, b, g, k=1):
    lg = ceil_log2(p)
    return 2 * lg * (a + n * b) + lg * n * g


def _heap_depth(p: int) -> int:
    """Depth of a heap-ordered binary tree on p nodes: floor(log2 p)."""
    return p.bit_length() - 1


def _binary_tree_piece_steps(p: int, k: int) -> tuple[int, int]:
    """(steps, sum over steps of the most pieces through one port) for a pipelined binary
    tree of p >= 2 nodes and k pieces. Every step moves two pieces through some node's port
    except, when the last level holds a single node (p a power of two >= 4), one end step."""
    depth = _heap_depth(p)
    steps = depth + k - 1
    if p == 2:
        return steps, steps
    return steps, 2 * steps - (1 if p == 1 << depth else 0)


def _binary_tree_broadcast(n, p, a, b, g, k=1):
    steps, pieces = _binary_tree_piece_steps(p, k)
    return steps * a + pieces * n / k * b


def _binary_tree_reduce(n, p, a, b, g, k=1):
    steps, pieces = _binary_tree_piece_steps(p, k)
    return steps * a + pieces * n / k * (b + g)


def _double_binary_tree_allreduce(n, p, a, b, g, k=1):
    # Each tree carries half the buffer: a pipelined reduce of n/2, then a pipelined broadcast
    # of n/2. A rank is interior in at most one tree, so the two trees together put at most two
    # pieces of n/(2k) through any port per step, like one binary tree with pieces of n/(2k).
    return _binary_tree_reduce(n / 2, p, a, b, g, k) + _binary_tree_broadcast(n / 2, p, a, b, g, k)


def _pairwise_alltoall(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * b


def _bruck_alltoall(n, p, a, b, g, k=1):
    # round i moves one block for every distance 0 <= delta < p with bit i set
    lg = ceil_log2(p)
    moved = sum(sum(1 for delta in range(p) if delta >> i & 1) for i in range(lg))
    return lg * a + n / p * moved * b


def _pipelined_chain_broadcast(n, p, a, b, g, k=1):
    if p == 1:
        return 0.0
    return (p + k - 2) * (a + n / k * b)


def _pipelined_chain_reduce(n, p, a, b, g, k=1):
    if p == 1:
        return 0.0
    return (p + k - 2) * (a + n / k * (b + g))


def _binomial_broadcast(n, p, a, b, g, k=1):
    return ceil_log2(p) * (a + n * b)


def _binomial_reduce(n, p, a, b, g, k=1):
    return ceil_log2(p) * (a + n * b + n * g)


def _direct_gather(n, p, a, b, g, k=1):
    return a + n * (p - 1) / p * b


def _binomial_gather(n, p, a, b, g, k=1):
    return ceil_log2(p) * a + n * (p - 1) / p * b


def _send_recv(n, p, a, b, g, k=1):
    return a + n * b


def _dissemination_barrier(n, p, a, b, g, k=1):
    return ceil_log2(p) * a


_FOLD_NOTE = (
    "p a power of two; otherwise the exact form adds Thakur et al.'s fold (see the function)"
)

CLOSED_FORMS: dict[tuple[str, str], ClosedForm] = {
    (f.collective, f.algorithm): f
    for f in [
        ClosedForm(
            "broadcast",
            "ring",
            r"(p+k-2)\left(\alpha + \frac{n}{k}\beta\right)",
            _pipelined_chain_broadcast,
            "a pipelined chain (NCCL calls it a ring) in k chunks",
        ),
        ClosedForm(
            "broadcast",
            "binary_tree",
            r"(D+k-1)\alpha + 2(D+k-1)\frac{n}{k}\beta,\ D=\lfloor\log_2 p\rfloor",
            _binary_tree_broadcast,
            "each node sends to two children through one port; exact form in the function",
        ),
        ClosedForm(
            "broadcast",
            "binomial_tree",
            r"\lceil\log_2 p\rceil(\alpha + n\beta)",
            _binomial_broadcast,
        ),
        ClosedForm(
            "reduce",
            "ring",
            r"(p+k-2)\left(\alpha + \frac{n}{k}(\beta+\gamma)\right)",
            _pipelined_chain_reduce,
            "a pipelined chain in k chunks",
        ),
        ClosedForm(
            "reduce",
            "binary_tree",
            r"(D+k-1)\alpha + 2(D+k-1)\frac{n}{k}(\beta+\gamma),\ D=\lfloor\log_2 p\rfloor",
            _binary_tree_reduce,
            "each node receives from two children through one port; exact form in the function",
        ),
        ClosedForm(
            "reduce",
            "binomial_tree",
            r"\lceil\log_2 p\rceil(\alpha + n\beta + n\gamma)",
            _binomial_reduce,
        ),
        ClosedForm(
            "all_reduce",
            "ring",
            r"2(p-1)\alpha + 2\frac{p-1}{p} n\beta + \frac{p-1}{p} n\gamma",
            _ring_allreduce,
        ),
        ClosedForm(
            "all_reduce",
            "rabenseifner",
            r"2\log_2 p\,\alpha + 2\frac{p-1}{p} n\beta + \frac{p-1}{p} n\gamma",
            _rabenseifner_allreduce,
            _FOLD_NOTE,
        ),
        ClosedForm(
            "all_reduce",
            "recursive_doubling",
            r"\log_2 p\,(\alpha + n\beta + n\gamma)",
            _doubling_allreduce,
            _FOLD_NOTE,
        ),
        ClosedForm(
            "all_reduce",
            "double_binary_tree",
            r"2(D+k-1)\alpha + 2(D+k-1)\frac{n}{k}\beta + (D+k-1)\frac{n}{k}\gamma",
            _double_binary_tree_allreduce,
            "two pipelined binary trees, half the buffer each; exact form in the function",
        ),
        ClosedForm(
            "all_reduce",
            "reduce_broadcast",
            r"2\lceil\log_2 p\rceil(\alpha + n\beta) + \lceil\log_2 p\rceil n\gamma",
            _reduce_broadcast_allreduce,
            "binomial reduce, then binomial broadcast",
        ),
        ClosedForm("all_gather", "ring", r"(p-1)\alpha + \frac{p-1}{p} n\beta", _ring_allgather),
        ClosedForm(
            "all_gather",
            "recursive_doubling",
            r"\log_2 p\,\alpha + \frac{p-1}{p} n\beta",
            _doubling_allgather,
            _FOLD_NOTE,
        ),
        ClosedForm(
            "all_gather",
            "bruck",
            r"\lceil\log_2 p\rceil\alpha + \frac{p-1}{p} n\beta",
            _bruck_allgather,
        ),
        ClosedForm(
            "reduce_scatter",
            "ring",
            r"(p-1)\alpha + \frac{p-1}{p} n(\beta+\gamma)",
            _ring_reduce_scatter,
        ),
        ClosedForm(
            "reduce_scatter",
            "recursive_halving",
            r"\log_2 p\,\alpha + \frac{p-1}{p} n(\beta+\gamma)",
            _halving_reduce_scatter,
            _FOLD_NOTE,
        ),
        ClosedForm(
            "all_to_all",
            "pairwise",
            r"(p-1)\alpha + \frac{p-1}{p} n\beta",
            _pairwise_alltoall,
            "MPICH writes the bandwidth term as n beta, its leading order",
        ),
        ClosedForm(
            "all_to_all",
            "bruck",
            r"\lceil\log_2 p\rceil\alpha + \frac{n}{2}\lceil\log_2 p\rceil\beta",
            _bruck_alltoall,
            "p a power of two; otherwise each round moves the blocks whose distance has that bit",
        ),
        ClosedForm(
            "gather",
            "direct",
            r"\alpha + \frac{p-1}{p} n\beta",
            _direct_gather,
            "all ranks send at once; the root's port carries everything",
        ),
        ClosedForm(
            "gather",
            "binomial_tree",
            r"\lceil\log_2 p\rceil\alpha + \frac{p-1}{p} n\beta",
            _binomial_gather,
        ),
        ClosedForm(
            "scatter",
            "direct",
            r"\alpha + \frac{p-1}{p} n\beta",
            _direct_gather,
            "the root sends to all at once through its one port",
        ),
        ClosedForm(
            "scatter",
            "binomial_tree",
            r"\lceil\log_2 p\rceil\alpha + \frac{p-1}{p} n\beta",
            _binomial_gather,
        ),
        ClosedForm("send_recv", "direct", r"\alpha + n\beta", _send_recv),
        ClosedForm(
            "barrier", "dissemination", r"\lceil\log_2 p\rceil\alpha", _dissemination_barrier
        ),
    ]
}


def closed_form_time(
    collective: str,
    algorithm: str,
    n: float,
    p: int,
    alpha: float,
    beta: float,
    gamma: float = 0.0,
    k: int = 1,
) -> float:
    """Predicted time in seconds.

    n: bytes (see the module docstring for what n counts); alpha: seconds per message;
    beta: seconds per byte (1 / link bandwidth in bytes/s); gamma: seconds per reduced byte;
    k: pipeline chunks (only the pipelined chain uses it).
    """
    try:
        form = CLOSED_FORMS[(collective, algorithm)]
    except KeyError:
        known = ", ".join(f"{c}/{a}" for c, a in CLOSED_FORMS)
        raise ValueError(f"no closed form for {collective}/{algorithm}; known: {known}") from None
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    if p == 1:
        return 0.0
    return float(form.time(n, p, alpha, beta, gamma, k))


__all__ = ["CLOSED_FORMS", "ClosedForm", "closed_form_time"]
