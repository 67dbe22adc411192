"""Lab 04, starter: measuring collectives. Fill in the TODOs in order.

Run: ``nccl-course lab run 04 --nproc 4``; check: ``nccl-course lab check 04``; the harness:
``nccl-course bench all_reduce --nproc 4 -b 8 -e 16MiB``.
"""

from __future__ import annotations

import torch.distributed as dist

from nccl_course.bench.harness import BenchConfig, measure  # noqa: F401  (step 4)
from nccl_course.environment import collect  # noqa: F401  (step 4)
from nccl_course.launcher import script_main

FACTOR_KINDS = {
    "all_reduce": "2(p-1)/p",
    "reduce_scatter": "(p-1)/p",
    "all_gather": "(p-1)/p",
    "all_to_all": "(p-1)/p",
    "broadcast": "1",
    "reduce": "1",
}


# Step 1 ----------------------------------------------------------------------------------------
def algbw_busbw(collective: str, nbytes: int, seconds: float, p: int) -> tuple[float, float]:
    """(algbw, busbw) in GB/s (1e9 bytes/s) of a collective of ``nbytes`` (as nccl-tests counts
    it) that took ``seconds`` on ``p`` ranks."""
    # TODO(step 1): algbw = size / time in GB/s; busbw = algbw * the factor FACTOR_KINDS names
    # for the collective (nccl-tests' definitions).
    raise NotImplementedError("TODO(step 1): algbw and busbw")


# Step 2 ----------------------------------------------------------------------------------------
def fit_line(sizes: list[float], seconds: list[float]) -> tuple[float, float]:
    """Least-squares line t = a + b * size through the points, each weighted by 1/t so that a
    1 us point and a 1 s point count alike. Returns (a in seconds, b in seconds per byte)."""
    # TODO(step 2a): weighted least squares with weights 1/t^2: solve the 2x2 normal equations
    # [sum w, sum w s; sum w s, sum w s^2] [a, b] = [sum w t, sum w s t].
    raise NotImplementedError("TODO(step 2a): fit a line to (size, time)")


def ring_all_reduce_alpha_beta(intercept_s: float, slope_s_per_byte: float, p: int):
    """Ring all-reduce costs 2(p-1) alpha + 2 (p-1)/p n beta (ignoring the reduction's gamma):
    read alpha (seconds per step) and beta (seconds per byte) off the fitted line."""
    # TODO(step 2b): intercept = 2(p-1) alpha and slope = 2(p-1)/p beta; solve for both.
    raise NotImplementedError("TODO(step 2b): alpha and beta from the line")


# Step 3 ----------------------------------------------------------------------------------------
def half_bandwidth_size(alpha: float, beta: float, p: int) -> float:
    """The all-reduce size (bytes) at which the latency term equals the bandwidth term:
    2(p-1) alpha = 2 (p-1)/p n beta, so n = p alpha / beta. There busbw is half its peak."""
    # TODO(step 3a): solve 2(p-1) alpha = 2 (p-1)/p n beta for n.
    raise NotImplementedError("TODO(step 3a): the half-bandwidth size")


def regime(nbytes: float, alpha: float, beta: float, p: int) -> str:
    """ "latency-bound" below the half-bandwidth size, "bandwidth-bound" from it on."""
    # TODO(step 3b): compare nbytes with half_bandwidth_size(...).
    raise NotImplementedError("TODO(step 3b): latency- or bandwidth-bound")


# Step 4 ----------------------------------------------------------------------------------------
def measure_all_reduce(sizes: list[int], iters: int = 5) -> dict:
    """Worker: measure all-reduce at ``sizes`` with the course's harness (same rows on every
    rank) and return the rows with the environment they were measured in."""
    # TODO(step 4): rows = measure(BenchConfig(sizes=tuple(sizes), warmup=2, iters=iters,
    # progress=False)); env = collect(); return {"rows": [row.as_dict() for row in rows],
    # "environment": {"torch", "nccl_version", "gpu_names", "topology_matrix", "host" from env,
    # and "backend": dist.get_backend()}}.
    raise NotImplementedError("TODO(step 4): measure with the harness and record the environment")


def main() -> None:
    """Measure all-reduce from 8 B to 4 MiB, fit alpha and beta, say which sizes are which."""
    p = dist.get_world_size()
    sizes = [8 * 4**k for k in range(10)]  # 8 B .. 2 MiB
    result = measure_all_reduce(sizes)
    if dist.get_rank() != 0:
        return
    rows = result["rows"]
    env = result["environment"]
    print(f"torch {env['torch']}, backend {env['backend']}, NCCL {env['nccl_version']}, {p} ranks")
    if p < 2:
        print("one rank: nothing travels, so there is no alpha or beta to fit; use 2 or more")
        return
    a, b = fit_line([r["size"] for r in rows], [r["time_us"] * 1e-6 for r in rows])
    alpha, beta = ring_all_reduce_alpha_beta(a, b, p)
    print(f"fit: alpha = {alpha * 1e6:.1f} us per step, 1/beta = {1 / beta / 1e9:.3f} GB/s")
    print(f"half-bandwidth size: {half_bandwidth_size(alpha, beta, p):.0f} bytes")
    for r in rows:
        _, bus = algbw_busbw("all_reduce", r["size"], r["time_us"] * 1e-6, p)
        print(
            f"{r['size']:>10} B  {r['time_us']:>10.1f} us  busbw {bus:7.3f} GB/s  "
            f"{regime(r['size'], alpha, beta, p)}"
        )


if __name__ == "__main__":
    script_main(main)
