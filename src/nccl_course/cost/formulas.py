"""Closed-form alpha-beta-gamma costs of the classic collective algorithms.

Model (Hockney; Thakur, Rabenseifner & Gropp 2005): sending m bytes between two ranks costs
alpha + m * beta seconds; reducing m bytes locally costs m * gamma seconds. ``n`` is the
collective's size in bytes as nccl-tests reports it (for all-gather and reduce-scatter the total
over all ranks; for all-reduce, broadcast and reduce the buffer; for all-to-all the bytes each rank
sends in total, its own block included). ``lg p`` is ceil(log2 p).

These are the forms MPICH's sources state (src/mpi/coll/...), written exactly rather than to
leading order where the exact form is simple (e.g. pairwise all-to-all sends (p-1)/p * n, which
MPICH rounds to n). The simulator's schedule cost must equal these on a uniform fully connected
topology; tests check that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def ceil_log2(p: int) -> int:
    """Number of rounds of a doubling algorithm on p ranks: ceil(log2 p), 0 for p = 1."""
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    return (p - 1).bit_length()


@dataclass(frozen=True)
class ClosedForm:
    """A closed form: its formula as text (LaTeX) and a function of (n, p, alpha, beta, gamma, k)."""

    collective: str
    algorithm: str
    latex: str
    time: Callable[..., float]
    note: str = ""


def _ring_allgather(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * b


def _doubling_allgather(n, p, a, b, g, k=1):
    return ceil_log2(p) * a + n * (p - 1) / p * b


def _ring_reduce_scatter(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * (b + g)


def _halving_reduce_scatter(n, p, a, b, g, k=1):
    return ceil_log2(p) * a + n * (p - 1) / p * (b + g)


def _ring_allreduce(n, p, a, b, g, k=1):
    return 2 * (p - 1) * a + 2 * n * (p - 1) / p * b + n * (p - 1) / p * g


def _rabenseifner_allreduce(n, p, a, b, g, k=1):
    return 2 * ceil_log2(p) * a + 2 * n * (p - 1) / p * b + n * (p - 1) / p * g


def _doubling_allreduce(n, p, a, b, g, k=1):
    lg = ceil_log2(p)
    return lg * a + n * lg * b + n * lg * g


def _pairwise_alltoall(n, p, a, b, g, k=1):
    return (p - 1) * a + n * (p - 1) / p * b


def _bruck_alltoall(n, p, a, b, g, k=1):
    return ceil_log2(p) * a + n / 2 * ceil_log2(p) * b


def _pipelined_chain_broadcast(n, p, a, b, g, k=1):
    if p == 1:
        return 0.0
    return (p + k - 2) * (a + n / k * b)


def _binomial_broadcast(n, p, a, b, g, k=1):
    return ceil_log2(p) * (a + n * b)


def _binomial_reduce(n, p, a, b, g, k=1):
    return ceil_log2(p) * (a + n * b + n * g)


CLOSED_FORMS: dict[tuple[str, str], ClosedForm] = {
    (f.collective, f.algorithm): f
    for f in [
        ClosedForm("all_gather", "ring", r"(p-1)\alpha + \frac{p-1}{p} n\beta", _ring_allgather),
        ClosedForm(
            "all_gather",
            "recursive_doubling",
            r"\lceil\log_2 p\rceil\alpha + \frac{p-1}{p} n\beta",
            _doubling_allgather,
            "p a power of two",
        ),
        ClosedForm(
            "all_gather",
            "bruck",
            r"\lceil\log_2 p\rceil\alpha + \frac{p-1}{p} n\beta",
            _doubling_allgather,
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
            "p a power of two",
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
            "p a power of two",
        ),
        ClosedForm(
            "all_reduce",
            "recursive_doubling",
            r"\log_2 p\,(\alpha + n\beta + n\gamma)",
            _doubling_allreduce,
            "p a power of two",
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
            r"\log_2 p\,\alpha + \frac{n}{2}\log_2 p\,\beta",
            _bruck_alltoall,
            "p a power of two",
        ),
        ClosedForm(
            "broadcast",
            "ring",
            r"(p+k-2)\left(\alpha + \frac{n}{k}\beta\right)",
            _pipelined_chain_broadcast,
            "a pipelined chain (NCCL calls it a ring) in k chunks",
        ),
        ClosedForm(
            "broadcast",
            "binomial_tree",
            r"\lceil\log_2 p\rceil(\alpha + n\beta)",
            _binomial_broadcast,
        ),
        ClosedForm(
            "reduce",
            "binomial_tree",
            r"\lceil\log_2 p\rceil(\alpha + n\beta + n\gamma)",
            _binomial_reduce,
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


__all__ = ["CLOSED_FORMS", "ClosedForm", "ceil_log2", "closed_form_time"]
