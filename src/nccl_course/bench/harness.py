"""The measurement loop, run on every rank inside an initialised process group.

For each size: build the buffers once, run ``warmup`` untimed calls, then time ``iters`` calls
back to back (CUDA events on a GPU, whose calls return before the GPU is done; the wall clock on
CPU, where gloo calls block until done), then check one call's result element by element. The
reported time per call is each rank's mean, averaged over ranks, as nccl-tests reports by default
(its ``-a 1``); the slowest rank decides only how many calls fit a time budget.
The timed loop holds nothing but the calls, so the harness adds no measurable cost to them.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass

import torch
import torch.distributed as dist

from nccl_course.bench.collectives import DTYPES, REDOPS, SPECS
from nccl_course.cost import algbw, busbw


@dataclass
class BenchRow:
    """One line of the table. size: bytes (as nccl-tests reports S); time_us: microseconds per
    call; algbw, busbw: GB/s (1e9 bytes/s); wrong: elements that differed from the expected
    result, summed over ranks (0 when unchecked)."""

    size: int
    count: int
    type: str
    redop: str
    root: int
    time_us: float
    algbw: float
    busbw: float
    wrong: int
    iters: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class BenchConfig:
    collective: str = "all_reduce"
    sizes: tuple[int, ...] = (8,)
    dtype: str = "float"
    redop: str = "sum"
    root: int = 0
    warmup: int = 5
    iters: int = 20
    check: bool = True
    time_budget_s: float | None = None  # cap per size: fewer iterations for slow sizes
    progress: bool = True

    def validate(self) -> None:
        if self.collective not in SPECS:
            raise ValueError(f"unknown collective {self.collective!r}; known: {', '.join(SPECS)}")
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown type {self.dtype!r}; known: {', '.join(DTYPES)}")
        if self.redop not in REDOPS:
            raise ValueError(f"unknown reduction {self.redop!r}; known: {', '.join(REDOPS)}")
        if self.iters < 1 or self.warmup < 0:
            raise ValueError("iterations must be >= 1 and warm-up iterations >= 0")


def sweep_sizes(min_bytes: int, max_bytes: int, factor: float = 2.0, step: int = 0) -> list[int]:
    """Sizes from ``min_bytes`` to ``max_bytes`` inclusive, multiplying by ``factor`` (or, when
    ``step`` > 0, adding ``step``), as nccl-tests' -b/-e/-f (and -i) options do."""
    if min_bytes < 1 or max_bytes < min_bytes:
        raise ValueError(f"need 1 <= min ({min_bytes}) <= max ({max_bytes})")
    if step > 0:
        return list(range(min_bytes, max_bytes + 1, step))
    if factor <= 1:
        raise ValueError(f"the size factor must be > 1, got {factor}")
    sizes, size = [], min_bytes
    while size <= max_bytes:
        sizes.append(int(size))
        size = size * factor
    return sizes


def _synchronize(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_loop(run, iters: int, device) -> float:
    """Seconds per call of ``run()`` over ``iters`` back-to-back calls on this rank."""
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            run()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / iters  # elapsed_time is in milliseconds
    start_s = time.perf_counter()
    for _ in range(iters):
        run()
    return (time.perf_counter() - start_s) / iters


def _max_over_ranks(value: float, device) -> float:
    t = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def _mean_over_ranks(value: float, device) -> float:
    """The mean of a value over ranks: what nccl-tests reports by default (``-a 1``)."""
    t = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return float(t.item()) / dist.get_world_size()


def _sum_over_ranks(value: int, device) -> int:
    t = torch.tensor([value], dtype=torch.int64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return int(t.item())


def measure(config: BenchConfig, device=None) -> list[BenchRow]:
    """Run the sweep on this rank; every rank returns the same rows."""
    from nccl_course.launcher import device as rank_device

    config.validate()
    device = device if device is not None else rank_device()
    spec = SPECS[config.collective]
    p, rank = dist.get_world_size(), dist.get_rank()
    dtype = DTYPES[config.dtype]
    root = config.root if spec.rooted else -1
    if spec.rooted and not 0 <= config.root < p:
        raise ValueError(f"root {config.root} is not a rank of a {p}-rank job")
    sizes = list(config.sizes)
    bar = None
    if config.progress and rank == 0:
        from tqdm import tqdm

        bar = tqdm(total=len(sizes), file=sys.stderr, desc=config.collective, unit="size")
    rows = []
    try:
        for size in sizes:
            prepared = spec.prepare(size, p, rank, dtype, device, config.redop, max(root, 0))
            for _ in range(config.warmup):
                prepared.run()
            iters = config.iters
            if config.time_budget_s is not None:
                # One probe call, agreed over ranks, decides how many calls fit the budget.
                _synchronize(device)
                probe = _max_over_ranks(timed_loop(prepared.run, 1, device), device)
                iters = max(1, min(iters, math.floor(config.time_budget_s / max(probe, 1e-9))))
            dist.barrier()
            _synchronize(device)
            # Each rank's mean time per call, averaged over ranks as nccl-tests does by default.
            seconds = _mean_over_ranks(timed_loop(prepared.run, iters, device), device)
            wrong = _sum_over_ranks(prepared.check(), device) if config.check else 0
            rows.append(
                BenchRow(
                    size=prepared.nbytes,
                    count=prepared.count,
                    type=config.dtype,
                    redop=config.redop if spec.reduces else "none",
                    root=root,
                    time_us=seconds * 1e6,
                    algbw=algbw(prepared.nbytes, seconds),
                    busbw=busbw(config.collective, prepared.nbytes, seconds, p),
                    wrong=wrong,
                    iters=iters,
                )
            )
            del prepared
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return rows


def run_benchmark(config: dict) -> dict | None:
    """Worker for :func:`nccl_course.launcher.launch`: measure, and on rank 0 return the rows, the
    world size, the backend and the environment record; other ranks return None."""
    from nccl_course.environment import collect

    cfg = BenchConfig(**config)
    rows = measure(cfg)
    if dist.get_rank() != 0:
        return None
    return {
        "collective": cfg.collective,
        "nranks": dist.get_world_size(),
        "backend": dist.get_backend(),
        "config": asdict(cfg),
        "rows": [row.as_dict() for row in rows],
        "environment": collect().as_dict(),
    }
