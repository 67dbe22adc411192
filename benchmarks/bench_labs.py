"""Figures for the labs and the benchmark harness, measured on this machine with gloo.

1. Lab 03: busbw of the reference pipelined ring all-reduce against dist.all_reduce at 64 MiB on
   4 gloo ranks, measured alternately in one run (median of several runs each).
2. Harness overhead: the harness's timed loop (nccl_course.bench.harness.timed_loop on a
   prepared all-reduce) against a bare ``for`` loop of dist.all_reduce on the same buffer, timed
   alternately; the ratio of their medians.

Run: ``.venv/bin/python benchmarks/bench_labs.py [--repeats N] [--skip-ring]``. Prints figures;
exits 0 (these are measurements, not pass/fail tests, because a shared machine's load moves them).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAB03 = REPO / "labs" / "03-ring-allreduce" / "solution.py"


def harness_overhead(sizes, iters, repeats):
    """Worker: per size, median seconds per call of the harness loop and of a bare loop."""
    import torch
    import torch.distributed as dist

    from nccl_course.bench.collectives import SPECS
    from nccl_course.bench.harness import timed_loop
    from nccl_course.launcher import device

    dev = device()
    out = {}
    for size in sizes:
        prepared = SPECS["all_reduce"].prepare(
            size, dist.get_world_size(), dist.get_rank(), torch.float32, dev
        )
        bare_buffer = torch.zeros(prepared.count, dtype=torch.float32, device=dev)
        for _ in range(3):
            prepared.run()
            dist.all_reduce(bare_buffer)
        harness, bare = [], []
        for _ in range(repeats):
            dist.barrier()
            harness.append(timed_loop(prepared.run, iters, dev))
            dist.barrier()
            start = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(bare_buffer)
            bare.append((time.perf_counter() - start) / iters)
        out[size] = {"harness_s": statistics.median(harness), "bare_s": statistics.median(bare)}
    # What the harness adds per call, free of the collective's noise: the same two loops with
    # dist.all_reduce replaced by a function that does nothing.
    real = dist.all_reduce
    dist.all_reduce = lambda *args, **kwargs: None
    try:
        prepared = SPECS["all_reduce"].prepare(4096, 1, 0, torch.float32, dev)
        calls = 200_000
        harness_noop = min(timed_loop(prepared.run, calls, dev) for _ in range(5))
        noop_times = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                dist.all_reduce(bare_buffer)
            noop_times.append((time.perf_counter() - start) / calls)
    finally:
        dist.all_reduce = real
    out["added_per_call_s"] = harness_noop - min(noop_times)
    return out


def main() -> int:
    from nccl_course.launcher import launch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--skip-ring", action="store_true")
    args = parser.parse_args()

    if not args.skip_ring:
        nbytes = 64 * 2**20
        result = launch(
            (str(LAB03), "compare_busbw"),
            4,
            args=(nbytes, 3, args.repeats, 2),
            backend="gloo",
            timeout_s=1800,
        )[0]
        ratio = result["ring_busbw"] / result["all_reduce_busbw"]
        print("lab 03 ring all-reduce vs dist.all_reduce, 64 MiB float32, 4 gloo ranks")
        print(f"  runs (busbw GB/s) ring:       {[round(x, 4) for x in result['ring_runs']]}")
        print(f"  runs (busbw GB/s) all_reduce: {[round(x, 4) for x in result['all_reduce_runs']]}")
        print(
            f"  median busbw: ring {result['ring_busbw']:.4f} GB/s, "
            f"dist.all_reduce {result['all_reduce_busbw']:.4f} GB/s, ratio {ratio:.3f} "
            f"(target >= 0.9)"
        )

    sizes = [4096, 2**20, 16 * 2**20]
    overhead = launch(
        (__file__, "harness_overhead"),
        4,
        args=(sizes, 10, args.repeats),
        backend="gloo",
        timeout_s=1800,
    )[0]
    added = overhead.pop("added_per_call_s")
    print("harness timed loop vs bare loop of dist.all_reduce, 4 gloo ranks (rank 0's medians)")
    for size, t in overhead.items():
        ratio = t["harness_s"] / t["bare_s"]
        print(
            f"  {size:>10} B: harness {t['harness_s'] * 1e6:10.1f} us, bare "
            f"{t['bare_s'] * 1e6:10.1f} us, harness/bare {ratio:.3f} (target within 5%), "
            f"harness's own share {added / t['bare_s']:.2e}"
        )
    print(
        f"  the harness adds {added * 1e9:.0f} ns per call (its closure; measured with the "
        "collective replaced by a no-op); the rest of any difference above is run-to-run noise"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
