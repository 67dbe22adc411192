"""What every per-collective module shares: the data types, the reductions, the input pattern, the
expected results, the count of wrong elements, and the spec that turns a size into buffers.

Input data are small integers (0..12), so sums over up to 21 ranks are exact even in bfloat16
and results can be compared with ==; average is compared with a tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.distributed as dist

from nccl_course.collectives import Collective

DTYPES = {
    "float": torch.float32,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "double": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
}
REDOPS = ("sum", "max", "min", "avg")


def reduce_op(name: str):
    """The torch.distributed reduction operator called ``name`` (one of REDOPS)."""
    return {
        "sum": dist.ReduceOp.SUM,
        "max": dist.ReduceOp.MAX,
        "min": dist.ReduceOp.MIN,
        "avg": dist.ReduceOp.AVG,
    }[name]


def pattern(rank: int, count: int, dtype: torch.dtype, device) -> torch.Tensor:
    """Rank ``rank``'s input: element i is (7 * rank + 3 * i) mod 13."""
    index = torch.arange(count, dtype=torch.int64, device=device)
    return ((7 * rank + 3 * index) % 13).to(dtype)


#: The patterns repeat every PERIOD elements ((7 * rank + 3 * i) mod 13 depends on i mod 13).
PERIOD = 13
#: Elements compared at a time: the expected values of a chunk, never of a whole 1 GiB buffer.
CHECK_CHUNK = 1 << 22


@dataclass(frozen=True)
class ReducedPattern:
    """Elements offset..offset+count-1 of the reduction of every rank's pattern, computed when
    asked for: ``expected(start, stop)`` gives elements start..stop-1 of that range as float64.

    Each rank's pattern repeats every :data:`PERIOD` elements, so the reduction does too: it is
    computed once for one period (``table``, exact in float64 for these small integers) and
    expanded chunk by chunk. Building p float64 copies of the buffer instead costs 8 p bytes per
    element: about 35 GiB per GPU for a 1 GiB all-reduce on 8 ranks.
    """

    table: torch.Tensor  # PERIOD values, float64
    count: int
    offset: int = 0

    def __call__(self, start: int, stop: int) -> torch.Tensor:
        index = torch.arange(
            self.offset + start, self.offset + stop, dtype=torch.int64, device=self.table.device
        )
        return self.table[index % PERIOD]

    def tolist(self) -> list[float]:
        return self(0, self.count).tolist()


def reduce_patterns(p: int, count: int, redop: str, device, offset: int = 0) -> ReducedPattern:
    """The reduction (``redop``) over ranks 0..p-1 of their patterns, elements
    offset..offset+count-1 (see :class:`ReducedPattern`)."""
    stack = torch.stack([pattern(r, PERIOD, torch.float64, device) for r in range(p)])
    if redop == "sum":
        table = stack.sum(0)
    elif redop == "max":
        table = stack.max(0).values
    elif redop == "min":
        table = stack.min(0).values
    elif redop == "avg":
        table = stack.mean(0)
    else:
        raise ValueError(f"unknown reduction {redop!r}; known: {', '.join(REDOPS)}")
    return ReducedPattern(table=table, count=count, offset=offset)


def count_wrong(actual: torch.Tensor, expected, redop: str = "sum") -> int:
    """Elements of ``actual`` that differ from ``expected`` (a tensor or a
    :class:`ReducedPattern`), compared in chunks of :data:`CHECK_CHUNK` elements so the check
    needs little memory beside the buffer. Exact, except average (1e-2 tolerance)."""
    got_all = actual.reshape(-1)
    if isinstance(expected, ReducedPattern):
        want_count = expected.count
        piece = expected
    else:
        flat = expected.reshape(-1)
        want_count = flat.numel()

        def piece(start: int, stop: int) -> torch.Tensor:
            return flat[start:stop]

    if got_all.numel() != want_count:
        return max(got_all.numel(), want_count)
    wrong = 0
    for start in range(0, want_count, CHECK_CHUNK):
        stop = min(start + CHECK_CHUNK, want_count)
        got = got_all[start:stop].to(torch.float64)
        want = piece(start, stop).to(torch.float64).to(got.device)
        if redop == "avg":
            ok = torch.isclose(got, want, rtol=1e-2, atol=1e-2)
        else:
            ok = got == want
        wrong += int((~ok).sum().item())
    return wrong


def torch_call(name_new: str, name_old: str):
    """torch 2.13 renamed all_gather_into_tensor/reduce_scatter_tensor to *_single and warns
    on the old names; both exist in 2.13, only the old ones before."""
    return getattr(dist, name_new, None) or getattr(dist, name_old)


@dataclass
class Prepared:
    """A collective ready to run: ``run()`` does one call on prebuilt buffers; ``check()``
    refills the inputs, runs once and returns this rank's number of wrong elements."""

    count: int  # elements, as reported (nccl-tests' count column)
    nbytes: int  # the size actually used (S rounded down to whole elements per rank)
    run: Callable[[], object]
    check: Callable[[], int]


#: ``build(count, p, rank, dtype, device, redop, root) -> (run, check)``: one per collective.
Builder = Callable[..., tuple[Callable[[], object], Callable[[], int]]]


@dataclass(frozen=True)
class CollectiveSpec:
    """A collective of the registry (``info``) with the builder of its module (``build``)."""

    info: Collective
    build: Builder

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def reduces(self) -> bool:
        """Takes a reduction operator."""
        return self.info.reduces

    @property
    def rooted(self) -> bool:
        """Has a root rank."""
        return self.info.rooted

    @property
    def total_divisible(self) -> bool:
        """S counts all ranks' blocks: the count must be a multiple of p."""
        return self.info.size_counts_all_ranks

    def prepare(self, nbytes, p, rank, dtype, device, redop="sum", root=0) -> Prepared:
        """Buffers for reported size ``nbytes`` (rounded down to whole elements, and to whole
        blocks per rank when S counts all ranks), ready to run."""
        esize = torch.empty((), dtype=dtype).element_size()
        count = nbytes // esize
        if self.total_divisible:
            count -= count % p
        count = max(count, p if self.total_divisible else 1)
        run, check = self.build(count, p, rank, dtype, device, redop, root)
        return Prepared(count=count, nbytes=count * esize, run=run, check=check)
