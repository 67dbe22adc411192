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


def reduce_patterns(p: int, count: int, redop: str, device, offset: int = 0) -> torch.Tensor:
    """The reduction over ranks 0..p-1 of their patterns, elements offset..offset+count-1,
    computed in float64 (exact for these small integers)."""
    stack = torch.stack(
        [pattern(r, offset + count, torch.float64, device)[offset:] for r in range(p)]
    )
    if redop == "sum":
        return stack.sum(0)
    if redop == "max":
        return stack.max(0).values
    if redop == "min":
        return stack.min(0).values
    if redop == "avg":
        return stack.mean(0)
    raise ValueError(f"unknown reduction {redop!r}; known: {', '.join(REDOPS)}")


def count_wrong(actual: torch.Tensor, expected: torch.Tensor, redop: str = "sum") -> int:
    """Elements of ``actual`` that differ from ``expected`` (float64); exact, except average."""
    got = actual.to(torch.float64).reshape(-1)
    want = expected.to(torch.float64).reshape(-1).to(got.device)
    if got.numel() != want.numel():
        return max(got.numel(), want.numel())
    if redop == "avg":
        ok = torch.isclose(got, want, rtol=1e-2, atol=1e-2)
    else:
        ok = got == want
    return int((~ok).sum().item())


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
