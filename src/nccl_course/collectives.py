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
* What a rank holds before and needs after is said in blocks of the collective's ``layout``
  (``holds``, ``needs``: keys of :data:`BLOCK_SELECTIONS`), and which ranks' inputs count and
  which ranks get an output by ``root_role``. For the entries below (the simulator,
  :mod:`nccl_course.sim.layout`, runs exactly this):

  ================  =====================  ===================================================
  collective        input per rank         output per rank
  ================  =====================  ===================================================
  all_reduce        count                  count: the element-wise sum over ranks
  reduce            count                  root only: the sum (other ranks: None)
  broadcast         count (root's used)    count: the root's input
  all_gather        count                  p * count: inputs concatenated in rank order
  reduce_scatter    p * count              count: block ``rank`` of the sum
  all_to_all        p * count              p * count: block i is block ``rank`` of rank i's input
  gather            count                  root only: p * count, inputs in rank order
  scatter           p * count (root's)     count: block ``rank`` of the root's input
  send_recv         count                  count: the input of rank (rank - 1) mod p (a ring
                                           shift, as nccl-tests' sendrecv_perf does)
  barrier           (none)                 the tokens 0..p-1: rank r holds token r at the start
                                           and must have heard from every rank at the end
  ================  =====================  ===================================================

  A block held by several input ranks is their sum for a reducing collective; a copying one
  has exactly one input rank for each block.

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

#: How many blocks each layout has on p ranks (a buffer is one block; a token is a block).
LAYOUT_BLOCKS: Mapping[str, Callable[[int], int]] = MappingProxyType(
    {
        "buffer": lambda p: 1,
        "blocks": lambda p: p,
        "pair_blocks": lambda p: p * p,
        "tokens": lambda p: p,
    }
)

#: Which blocks of its layout rank r of p holds before a collective (``holds``) or must hold
#: after it (``needs``), in the order its buffer lays them out, given the layout's n blocks.
#: Pair block (i, j), what rank i sends to rank j, is block i * p + j.
BLOCK_SELECTIONS: Mapping[str, Callable[[int, int, int], range]] = MappingProxyType(
    {
        # every block of the layout (of a buffer: its one block)
        "all": lambda r, p, n: range(n),
        # block r: the rank's own block (token)
        "own": lambda r, p, n: range(r, r + 1),
        # the block of the previous rank on the ring, (r - 1) mod p
        "previous": lambda r, p, n: range((r - 1) % p, (r - 1) % p + 1),
        # pair blocks (r, 0), ..., (r, p - 1): what rank r sends
        "sent": lambda r, p, n: range(r * p, (r + 1) * p),
        # pair blocks (0, r), ..., (p - 1, r): what rank r receives
        "received": lambda r, p, n: range(r, p * p, p),
    }
)

#: The selections each layout can use.
LAYOUT_SELECTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "buffer": ("all",),
        "blocks": ("all", "own", "previous"),
        "pair_blocks": ("all", "sent", "received"),
        "tokens": ("all", "own", "previous"),
    }
)

#: What the root of a rooted collective is: "source" (only its input counts: the other ranks'
#: inputs are ignored) or "destination" (only it gets an output); None: no root.
ROOT_ROLES = (None, "source", "destination")


@dataclass(frozen=True, kw_only=True)
class Collective:
    """One collective and what every part of the course needs to know about it.

    ``root_role``: one of :data:`ROOT_ROLES`: "source" when only the root's input counts,
    "destination" when only the root gets an output, None when there is no root (``rooted``).
    ``reduces``: combines the ranks' data with a reduction operator (sum, max, ...).
    ``layout``: one of :data:`LAYOUTS`.
    ``holds``, ``needs``: which blocks of the layout a rank holds in its input before the
    collective and must hold for its output after it: keys of :data:`BLOCK_SELECTIONS` (allowed
    for the layout by :data:`LAYOUT_SELECTIONS`). A rank's input is its held blocks in that
    order, its output its needed blocks in that order, each block ``count`` elements.
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
    root_role: str | None = None
    reduces: bool = False
    layout: str = "blocks"
    holds: str = "all"
    needs: str = "all"
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
        if self.root_role not in ROOT_ROLES:
            raise ValueError(
                f"{self.name}: root_role {self.root_role!r} is not one of {ROOT_ROLES}"
            )
        for field, selection in (("holds", self.holds), ("needs", self.needs)):
            if selection not in LAYOUT_SELECTIONS[self.layout]:
                raise ValueError(
                    f"{self.name}: {field} {selection!r} is not one of "
                    f"{LAYOUT_SELECTIONS[self.layout]} (the selections of layout {self.layout!r})"
                )

    @property
    def rooted(self) -> bool:
        """Has a root rank (the source or the destination of all data)."""
        return self.root_role is not None

    def block_count(self, p: int) -> int:
        """How many blocks the layout has on ``p`` ranks."""
        return LAYOUT_BLOCKS[self.layout](p)

    def held_blocks(self, rank: int, p: int) -> range:
        """The blocks ``rank`` holds in its input before the collective, in input order."""
        return BLOCK_SELECTIONS[self.holds](rank, p, self.block_count(p))

    def needed_blocks(self, rank: int, p: int) -> range:
        """The blocks ``rank`` must hold after the collective, in output order."""
        return BLOCK_SELECTIONS[self.needs](rank, p, self.block_count(p))

    def input_ranks(self, p: int, root: int = 0) -> range:
        """The ranks whose inputs count: the root alone when it is the source, else all."""
        return range(root, root + 1) if self.root_role == "source" else range(p)

    def output_ranks(self, p: int, root: int = 0) -> range:
        """The ranks that get an output: the root alone when it is the destination, else all."""
        return range(root, root + 1) if self.root_role == "destination" else range(p)

    def input_count(self, p: int, count: int) -> int | None:
        """Elements in each rank's input buffer on ``p`` ranks (None: no data, for tokens)."""
        if self.layout == "tokens":
            return None
        return len(self.held_blocks(0, p)) * count

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
    Collective(name="broadcast", display_name="broadcast", root_role="source", layout="buffer",
               busbw_formula="1", nccl_tests_binary="broadcast_perf",
               torch_calls=("broadcast",)),
    Collective(name="reduce", display_name="reduce", root_role="destination", reduces=True,
               layout="buffer",
               busbw_formula="1", nccl_tests_binary="reduce_perf",
               torch_calls=("reduce",)),
    Collective(name="all_reduce", display_name="all-reduce", reduces=True, layout="buffer",
               busbw_formula="2(p-1)/p", nccl_tests_binary="all_reduce_perf",
               torch_calls=("all_reduce",), ring_phases=("reduce_scatter", "all_gather")),
    Collective(name="all_gather", display_name="all-gather", holds="own", needs="all",
               size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="all_gather_perf",
               torch_calls=("all_gather_into_tensor",), ring_phases=("all_gather",)),
    Collective(name="reduce_scatter", display_name="reduce-scatter", reduces=True,
               holds="all", needs="own", size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="reduce_scatter_perf",
               torch_calls=("reduce_scatter_tensor",), ring_phases=("reduce_scatter",)),
    Collective(name="all_to_all", display_name="all-to-all", layout="pair_blocks",
               holds="sent", needs="received", size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="alltoall_perf",
               torch_calls=("all_to_all_single",)),
    Collective(name="gather", display_name="gather", root_role="destination",
               holds="own", needs="all", size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="gather_perf",
               torch_calls=("gather",)),
    Collective(name="scatter", display_name="scatter", root_role="source",
               holds="all", needs="own", size_counts_all_ranks=True,
               busbw_formula="(p-1)/p", nccl_tests_binary="scatter_perf",
               torch_calls=("scatter",)),
    Collective(name="send_recv", display_name="send/recv", holds="own", needs="previous",
               busbw_formula="1", nccl_tests_binary="sendrecv_perf",
               torch_calls=("isend", "irecv")),
    Collective(name="barrier", display_name="barrier", layout="tokens", holds="own", needs="all",
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
    "BLOCK_SELECTIONS",
    "BUSBW_FORMULAS",
    "COLLECTIVES",
    "LAYOUTS",
    "LAYOUT_BLOCKS",
    "LAYOUT_SELECTIONS",
    "ROOT_ROLES",
    "Collective",
    "display_name",
    "get",
    "names",
]
