"""Lab 04, reference solution: measuring collectives.

Run: ``nccl-course lab run 04 --solution --nproc 4``; the harness itself:
``nccl-course bench all_reduce --nproc 4 -b 8 -e 16MiB``.
"""

from __future__ import annotations

import torch.distributed as dist

from nccl_course.bench.harness import BenchConfig, measure
from nccl_course.environment import collect
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
    algbw = nbytes / seconds / 1e9
    kind = FACTOR_KINDS[collective]
    if kind == "2(p-1)/p":
        factor = 2 * (p - 1) / p
    elif kind == "(p-1)/p":
        factor = (p - 1) / p
    else:
        factor = 1.0
    return algbw, algbw * factor


# Step 2 ----------------------------------------------------------------------------------------
def fit_line(sizes: list[float], seconds: list[float]) -> tuple[float, float]:
    """Least-squares line t = a + b * size through the points, each weighted by 1/t so that a
    1 us point and a 1 s point count alike. Returns (a in seconds, b in seconds per byte)."""
    # Minimise sum(((a + b s - t) / t)^2): the normal equations of the 2x2 system.
    w = [1 / t**2 for t in seconds]
    s00 = sum(w)
    s01 = sum(wi * s for wi, s in zip(w, sizes, strict=True))
    s11 = sum(wi * s * s for wi, s in zip(w, sizes, strict=True))
    r0 = sum(wi * t for wi, t in zip(w, seconds, strict=True))
    r1 = sum(wi * s * t for wi, s, t in zip(w, sizes, seconds, strict=True))
    det = s00 * s11 - s01 * s01
    a = (r0 * s11 - r1 * s01) / det
    b = (s00 * r1 - s01 * r0) / det
    return a, b


def ring_all_reduce_alpha_beta(intercept_s: float, slope_s_per_byte: float, p: int):
    """Ring all-reduce costs 2(p-1) alpha + 2 (p-1)/p n beta (ignoring the reduction's gamma):
    read alpha (seconds per step) and beta (seconds per byte) off the fitted line."""
    return intercept_s / (2 * (p - 1)), slope_s_per_byte * p / (2 * (p - 1))


# Step 3 ----------------------------------------------------------------------------------------
def half_bandwidth_size(alpha: float, beta: float, p: int) -> float:
    """The all-reduce size (bytes) at which the latency term equals the bandwidth term:
    2(p-1) alpha = 2 (p-1)/p n beta, so n = p alpha / beta. There busbw is half its peak."""
    return p * alpha / beta


def regime(nbytes: float, alpha: float, beta: float, p: int) -> str:
    """ "latency-bound" below the half-bandwidth size, "bandwidth-bound" from it on."""
    return "latency-bound" if nbytes < half_bandwidth_size(alpha, beta, p) else "bandwidth-bound"


# Step 4 ----------------------------------------------------------------------------------------
def measure_all_reduce(sizes: list[int], iters: int = 5) -> dict:
    """Worker: measure all-reduce at ``sizes`` with the course's harness (same rows on every
    rank) and return the rows with the environment they were measured in."""
    rows = measure(BenchConfig(sizes=tuple(sizes), warmup=2, iters=iters, progress=False))
    env = collect()
    return {
        "rows": [row.as_dict() for row in rows],
        "environment": {
            "torch": env.torch,
            "nccl_version": env.nccl_version,
            "gpu_names": env.gpu_names,
            "topology_matrix": env.topology_matrix,
            "host": env.host,
            "backend": dist.get_backend(),
        },
    }


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
