"""One small spec per collective, as nccl-tests has one small file per collective.

Each spec says how big the buffers are for a reported size S (bytes, as nccl-tests reports it:
for all-gather, reduce-scatter, gather and scatter the total over all ranks; for all-to-all what
each rank sends in all; otherwise the buffer), which torch.distributed call runs it, and what
every rank must hold afterwards. The harness owns timing, checking and output.

Input data are small integers (0..12), so sums over up to 21 ranks are exact even in bfloat16
and results can be compared with ==; average is compared with a tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.distributed as dist

DTYPES = {
    "float": torch.float32,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "double": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
}
REDOPS = ("sum", "max", "min", "avg")


def _redop(name: str):
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


def _single(name_new: str, name_old: str):
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


@dataclass(frozen=True)
class CollectiveSpec:
    name: str
    reduces: bool  # takes a reduction operator
    rooted: bool  # has a root rank
    total_divisible: bool  # S counts all ranks' blocks: the count must be a multiple of p

    def prepare(self, nbytes, p, rank, dtype, device, redop="sum", root=0) -> Prepared:
        esize = torch.empty((), dtype=dtype).element_size()
        count = nbytes // esize
        if self.total_divisible:
            count -= count % p
        count = max(count, p if self.total_divisible else 1)
        builder = getattr(self, f"_{self.name}")
        run, check = builder(count, p, rank, dtype, device, redop, root)
        return Prepared(count=count, nbytes=count * esize, run=run, check=check)

    # -- the collectives --------------------------------------------------------------------
    def _all_reduce(self, count, p, rank, dtype, device, redop, root):
        buf = torch.zeros(count, dtype=dtype, device=device)
        op = _redop(redop)

        def run():
            dist.all_reduce(buf, op=op)

        def check():
            buf.copy_(pattern(rank, count, dtype, device))
            run()
            return count_wrong(buf, reduce_patterns(p, count, redop, device), redop)

        return run, check

    def _broadcast(self, count, p, rank, dtype, device, redop, root):
        buf = torch.zeros(count, dtype=dtype, device=device)

        def run():
            dist.broadcast(buf, src=root)

        def check():
            buf.copy_(pattern(rank, count, dtype, device))
            run()
            return count_wrong(buf, pattern(root, count, torch.float64, device))

        return run, check

    def _reduce(self, count, p, rank, dtype, device, redop, root):
        buf = torch.zeros(count, dtype=dtype, device=device)
        op = _redop(redop)

        def run():
            dist.reduce(buf, dst=root, op=op)

        def check():
            buf.copy_(pattern(rank, count, dtype, device))
            run()
            if rank != root:
                return 0  # only the root's buffer is defined afterwards
            return count_wrong(buf, reduce_patterns(p, count, redop, device), redop)

        return run, check

    def _all_gather(self, count, p, rank, dtype, device, redop, root):
        block = count // p
        inp = torch.zeros(block, dtype=dtype, device=device)
        out = torch.zeros(count, dtype=dtype, device=device)
        gather = _single("all_gather_single", "all_gather_into_tensor")

        def run():
            gather(out, inp)

        def check():
            inp.copy_(pattern(rank, block, dtype, device))
            run()
            want = torch.cat([pattern(r, block, torch.float64, device) for r in range(p)])
            return count_wrong(out, want)

        return run, check

    def _reduce_scatter(self, count, p, rank, dtype, device, redop, root):
        block = count // p
        inp = torch.zeros(count, dtype=dtype, device=device)
        out = torch.zeros(block, dtype=dtype, device=device)
        op = _redop(redop)
        scatter = _single("reduce_scatter_single", "reduce_scatter_tensor")

        def run():
            scatter(out, inp, op=op)

        def check():
            inp.copy_(pattern(rank, count, dtype, device))
            run()
            want = reduce_patterns(p, block, redop, device, offset=rank * block)
            return count_wrong(out, want, redop)

        return run, check

    def _all_to_all(self, count, p, rank, dtype, device, redop, root):
        block = count // p
        inp = torch.zeros(count, dtype=dtype, device=device)
        out = torch.zeros(count, dtype=dtype, device=device)

        def run():
            dist.all_to_all_single(out, inp)

        def check():
            inp.copy_(pattern(rank, count, dtype, device))
            run()
            # Block j of this rank's output is block `rank` of rank j's input.
            want = torch.cat(
                [
                    pattern(j, count, torch.float64, device)[rank * block : (rank + 1) * block]
                    for j in range(p)
                ]
            )
            return count_wrong(out, want)

        return run, check

    def _gather(self, count, p, rank, dtype, device, redop, root):
        block = count // p
        inp = torch.zeros(block, dtype=dtype, device=device)
        outs = [torch.zeros(block, dtype=dtype, device=device) for _ in range(p)]

        def run():
            dist.gather(inp, gather_list=outs if rank == root else None, dst=root)

        def check():
            inp.copy_(pattern(rank, block, dtype, device))
            run()
            if rank != root:
                return 0
            want = torch.cat([pattern(r, block, torch.float64, device) for r in range(p)])
            return count_wrong(torch.cat(outs), want)

        return run, check

    def _scatter(self, count, p, rank, dtype, device, redop, root):
        block = count // p
        ins = [torch.zeros(block, dtype=dtype, device=device) for _ in range(p)]
        out = torch.zeros(block, dtype=dtype, device=device)

        def run():
            dist.scatter(out, scatter_list=ins if rank == root else None, src=root)

        def check():
            for j in range(p):
                ins[j].copy_(pattern(root, count, dtype, device)[j * block : (j + 1) * block])
            run()
            want = pattern(root, count, torch.float64, device)[rank * block : (rank + 1) * block]
            return count_wrong(out, want)

        return run, check

    def _send_recv(self, count, p, rank, dtype, device, redop, root):
        # As nccl-tests' sendrecv: every rank sends to rank+1 and receives from rank-1.
        send = torch.zeros(count, dtype=dtype, device=device)
        recv = torch.zeros(count, dtype=dtype, device=device)
        nxt, prv = (rank + 1) % p, (rank - 1) % p

        def run():
            ops = [dist.P2POp(dist.isend, send, nxt), dist.P2POp(dist.irecv, recv, prv)]
            for request in dist.batch_isend_irecv(ops):
                request.wait()

        def check():
            send.copy_(pattern(rank, count, dtype, device))
            run()
            return count_wrong(recv, pattern(prv, count, torch.float64, device))

        return run, check


SPECS: dict[str, CollectiveSpec] = {
    spec.name: spec
    for spec in [
        CollectiveSpec("all_reduce", reduces=True, rooted=False, total_divisible=False),
        CollectiveSpec("broadcast", reduces=False, rooted=True, total_divisible=False),
        CollectiveSpec("reduce", reduces=True, rooted=True, total_divisible=False),
        CollectiveSpec("all_gather", reduces=False, rooted=False, total_divisible=True),
        CollectiveSpec("reduce_scatter", reduces=True, rooted=False, total_divisible=True),
        CollectiveSpec("all_to_all", reduces=False, rooted=False, total_divisible=True),
        CollectiveSpec("gather", reduces=False, rooted=True, total_divisible=True),
        CollectiveSpec("scatter", reduces=False, rooted=True, total_divisible=True),
        CollectiveSpec("send_recv", reduces=False, rooted=False, total_divisible=False),
    ]
}
