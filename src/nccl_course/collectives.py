"""The collectives of the course, one record each: the registry every other part derives from.

The simulator (:mod:`nccl_course.sim`), the cost model (:mod:`nccl_course.cost`), the benchmark
(:mod:`nccl_course.bench`) and the quiz generators take their lists of collectives, and what they
need to know about each one, from :data:`COLLECTIVES`; tests/test_collectives.py checks that they
do. This module imports nothing but the standard library, so anything may import it.

Conventions
-----------
* ``name`` is the identifier used everywhere in code ("all_reduce"); ``display_name`` is how the
  text writes it ("all-reduce").
* Sizes follow nccl-tests (src/*.cu, doc/PERFORMANCE.md). ``count`` is the elements per rank in
  the smaller buffer; S is the size nccl-tests reports. When ``size_counts_all_ranks`` is true,
  S is made of one block of ``count`` elements per rank, so S is p * count and a multiple of p:
  all-gather and gather (the blocks of every rank's input), reduce-scatter and scatter (the input
  that holds one output block per rank) and all-to-all (the p blocks each rank sends, one to every
  rank, its own included). Otherwise S is one rank's buffer (count elements).
* The bus-bandwidth factor is nccl-tests': busbw = algbw x factor(p), algbw = S / t. nccl-tests
  defines it for every collective here but the barrier (which moves no data).
* ``torch_calls`` are the ``torch.distributed`` functions that run the collective in the
  benchmark (send_recv is an isend to the next rank and an irecv from the previous one, posted
  together, as nccl-tests' sendrecv_perf does).

>>> get("all_gather").busbw_factor(4)
0.75
>>> names(lambda c: c.rooted)
('broadcast', 'reduce', 'gather', 'scatter')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

#: The bus-bandwidth factors nccl-tests uses, by the formula the text writes for them.
BUSBW_FORMULAS: Mapping[str, Callable[[int], float]] = MappingProxyType(
    {
        "2(p-1)/p": lambda p: 2 * (p - 1) / p,
        "(p-1)/p": lambda p: (p - 1) / p,
        "1": lambda p: 1.0,
    }
)

#: How a collective's data is cut into pieces (the simulator's chunk ids follow it):
#: "buffer": one buffer of ``count`` elements per rank; "blocks": p blocks of ``count`` elements,
#: block b belonging to rank b; "pair_blocks": p x p blocks, one for each (sender, receiver);
#: "tokens": no data, one token per rank (the barrier).
LAYOUTS = ("buffer", "blocks", "pair_blocks", "tokens")


@dataclass(frozen=True, kw_only=True)
class Collective:
    """One collective and what every part of the course needs to know about it.

    ``rooted``: has a root rank (the source or the destination of all data).
    ``reduces``: combines the ranks' data with a reduction operator (sum, max, ...).
    ``layout``: one of :data:`LAYOUTS`.
    ``size_counts_all_ranks``: the size S nccl-tests reports is p blocks, one per rank (see the
    module docstring); otherwise it is one rank's buffer.
    ``busbw_formula``: the key of :data:`BUSBW_FORMULAS` nccl-tests uses, None when it defines
    no bus bandwidth.
    ``nccl_tests_binary``: the nccl-tests program that measures it, None when there is none.
    ``torch_calls``: the ``torch.distributed`` functions that run it.
    ``ring_phases``: the ring passes (``"reduce_scatter"``, ``"all_gather"``) its ring
    algorithm is made of, in order; empty when its ring algorithm is not built from them. NCCL
    runs these as one ring per channel, each ring on its share of the data.
    """

    name: str
    display_name: str
    rooted: bool = False
    reduces: bool = False
    layout: str = "blocks"
    size_counts_all_ranks: bool = False
    busbw_formula: str | None
    nccl_tests_binary: str | None
    torch_calls: tuple[str, ...]
    ring_phases: tuple[str, ...] = ()

    def __post_init__(self):
        if self.layout not in LAYOUTS:
            raise ValueError(f"{self.name}: layout {self.layout!r} is not one of {LAYOUTS}")
        if self.busbw_formula is not None and self.busbw_formula not in BUSBW_FORMULAS:
            raise ValueError(f"{self.name}: no bus-bandwidth formula {self.busbw_formula!r}")

    def busbw_factor(self, p: int) -> float:
        """The factor nccl-tests multiplies algbw by on ``p`` ranks (p >= 1).

        Raises ValueError when nccl-tests defines no bus bandwidth for this collective.
        """
        if p < 1:
            raise ValueError(f"rank count must be at least 1, got {p}")
        if self.busbw_formula is None:
            raise ValueError(f"nccl-tests defines no bus bandwidth for {self.name}")
        return BUSBW_FORMULAS[self.busbw_formula](p)


# fmt: off
_TABLE = (
    Collective(name="broadcast", display_name="broadcast", rooted=True, layout="buffer",
               busbw_formula="1", nccl_tests_binary="broadcast_perf",
               torch_calls=("broadcast",)),
    Collective(name="reduce", display_name="reduce", rooted=True, reduces=True, layout="buffer",
               busbw_formula="1", nccl_tests_binary="reduce_perf",
               torch_calls=("reduce",)),
    Collective(name="all_reduce", display_name="all-reduce", reduces=True, layout="buffer",
               busbw_formula="2(p-1)/p", nccl_tests_binary="all_reduce_perf",
               torch_calls=("all_reduce",), ring_phases=("reduce_scatter", "all_gather")),
    Collective(name="all_gather", display_name="all-gather", size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="all_gather_perf",
               torch_calls=("all_gather_into_tensor",), ring_phases=("all_gather",)),
    Collective(name="reduce_scatter", display_name="reduce-scatter", reduces=True,
               size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="reduce_scatter_perf",
               torch_calls=("reduce_scatter_tensor",), ring_phases=("reduce_scatter",)),
    Collective(name="all_to_all", display_name="all-to-all", layout="pair_blocks",
               size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="alltoall_perf",
               torch_calls=("all_to_all_single",)),
    Collective(name="gather", display_name="gather", rooted=True, size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="gather_perf",
               torch_calls=("gather",)),
    Collective(name="scatter", display_name="scatter", rooted=True, size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="scatter_perf",
               torch_calls=("scatter",)),
    Collective(name="send_recv", display_name="send/recv",
               busbw_formula="1", nccl_tests_binary="sendrecv_perf",
               torch_calls=("isend", "irecv")),
    Collective(name="barrier", display_name="barrier", layout="tokens",
               busbw_formula=None, nccl_tests_binary=None,
               torch_calls=("barrier",)),
)
# fmt: on

#: Every collective, by name, in the order the course teaches them (a read-only mapping).
COLLECTIVES: Mapping[str, Collective] = MappingProxyType({c.name: c for c in _TABLE})


def get(name: str) -> Collective:
    """The collective called ``name``; ValueError listing the known names if there is none."""
    try:
        return COLLECTIVES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown collective {name!r}; known: {', '.join(COLLECTIVES)}") from None


def names(predicate: Callable[[Collective], object] | None = None) -> tuple[str, ...]:
    """The names of the collectives for which ``predicate`` is true (all without one), in
    registry order."""
    return tuple(n for n, c in COLLECTIVES.items() if predicate is None or predicate(c))


def display_name(name: str) -> str:
    """How the text writes collective ``name`` ("all_reduce" -> "all-reduce")."""
    return get(name).display_name


__all__ = [
    "BUSBW_FORMULAS",
    "COLLECTIVES",
    "LAYOUTS",
    "Collective",
    "display_name",
    "get",
    "names",
]
