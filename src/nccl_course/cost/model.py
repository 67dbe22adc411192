"""Predict a collective's time, algbw and busbw on a hardware preset.

The time of a point-to-point algorithm is the cost of its simulator schedule on the preset's
topology (:func:`nccl_course.cost.topology.schedule_time`): every schedule, not a formula, so
contention on shared links (for instance the one NIC per GPU between nodes) is counted. Pipelined
algorithms are tried with k = 1, 2, 4, ..., 256 pieces and the fastest k is kept, as NCCL cuts
large buffers into chunks. On multi-node presets, ``ring`` is NCCL's set of rings, one per GPU
of a node, each crossing the network through a different NIC
(:func:`nccl_course.sim.build_node_ring_schedule`).

NVLS (in-network reduction, all-reduce only) has no point-to-point schedule: the switch adds. Each
GPU pushes its whole buffer into the switch, which returns the sum of one 1/p slice to it; each
GPU then multicasts its summed slice through the switch to everyone. Per GPU that is n + n/p bytes
out and n/p + n bytes in; the two halves overlap, so the model is 2 alpha + (1 + 1/p) n / B.

Units: bytes, seconds, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.presets import Preset, get_preset
from nccl_course.cost.topology import StepCosts, step_costs
from nccl_course.sim.registry import (
    ALGORITHMS,
    PIPELINED,
    build_node_ring_schedule,
    build_schedule,
)
from nccl_course.sim.rings_trees import MULTI_RING_COLLECTIVES

PIPELINE_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass(frozen=True)
class Prediction:
    """``time_s`` seconds; ``algbw_GBps`` and ``busbw_GBps`` as nccl-tests defines them
    (GB/s = 1e9 bytes/s); ``chunks``: the pipeline depth used (1 when not pipelined)."""

    collective: str
    algorithm: str
    preset: str
    ranks: int
    size_bytes: int
    time_s: float
    algbw_GBps: float
    busbw_GBps: float
    chunks: int = 1

    def as_dict(self) -> dict:
        return asdict(self)


def nvls_allreduce_link_bytes(size_bytes, p: int):
    """Bytes one GPU sends into the switch and receives from it in an NVLS all-reduce of
    ``size_bytes`` on p GPUs (see module doc): n + n/p each way (the same in both directions),
    against 2 (p-1)/p n each way for a ring. 0 on one GPU."""
    if p == 1:
        return np.zeros_like(np.asarray(size_bytes, dtype=float)) + 0.0
    return (1 + 1 / p) * np.asarray(size_bytes, dtype=float)


def nvls_allreduce_time(size_bytes, p: int, alpha_s: float, bandwidth_Bps: float):
    """Seconds for an NVLS (in-switch) all-reduce of ``size_bytes`` on p GPUs (see module doc)."""
    if p == 1:
        return np.zeros_like(np.asarray(size_bytes, dtype=float)) + 0.0
    return 2 * alpha_s + nvls_allreduce_link_bytes(size_bytes, p) / bandwidth_Bps


def algorithms_for(collective: str, preset: str | Preset) -> tuple[str, ...]:
    """The algorithms the model can price for ``collective`` on ``preset``."""
    preset = get_preset(preset)
    if collective not in ALGORITHMS:
        raise ValueError(f"unknown collective {collective!r}; known: {', '.join(ALGORITHMS)}")
    algos = ALGORITHMS[collective]
    if collective == "all_reduce" and preset.in_network_reduction:
        algos = algos + ("nvls",)
    return algos


#: The collectives whose ``ring`` is priced as NCCL's rings, one per NIC, on multi-node presets:
#: those whose ring is made of reduce-scatter / all-gather passes (``ring_phases`` in
#: :mod:`nccl_course.collectives`).
NODE_RINGS = MULTI_RING_COLLECTIVES


def uses_node_rings(collective: str, algorithm: str, preset: Preset, ranks: int) -> bool:
    """Whether the model prices ``ring`` as NCCL's one-ring-per-NIC channels: on multi-node
    presets with whole nodes (a single ring would squeeze all traffic through one NIC)."""
    return (
        algorithm == "ring"
        and collective in NODE_RINGS
        and preset.inter_bandwidth_Bps is not None
        and ranks > preset.ranks_per_node
        and ranks % preset.ranks_per_node == 0
    )


@lru_cache(maxsize=1024)
def _schedule(collective: str, algorithm: str, ranks: int, chunks: int):
    """One schedule per shape, shared by every preset's topology: building it is most of the
    cost of pricing it (step_costs only reads it)."""
    return build_schedule(collective, algorithm, ranks, chunks=chunks)


@lru_cache(maxsize=8192)
def _costs(collective: str, algorithm: str, preset: Preset, ranks: int, chunks: int) -> StepCosts:
    if uses_node_rings(collective, algorithm, preset, ranks):
        schedule = build_node_ring_schedule(collective, ranks, preset.ranks_per_node, chunks=chunks)
    else:
        schedule = _schedule(collective, algorithm, ranks, chunks)
    return step_costs(schedule, preset.topology(ranks))


def _depths(collective: str, algorithm: str) -> tuple[int, ...]:
    return PIPELINE_DEPTHS if (collective, algorithm) in PIPELINED else (1,)


def pipeline_depths(collective: str, algorithm: str) -> tuple[int, ...]:
    """The pipeline depths k that :func:`sweep_times` tries for this algorithm (1 when it is
    not pipelined)."""
    return _depths(collective, algorithm)


def step_costs_for(
    collective: str, algorithm: str, preset: str | Preset, ranks: int, chunks: int
) -> StepCosts:
    """The affine step costs :func:`sweep_times` prices ``algorithm`` with on ``ranks`` GPUs of
    ``preset`` at pipeline depth ``chunks`` (NCCL's rings on multi-node presets; not ``nvls``,
    which has no schedule). The book's in-page explorers evaluate these in JavaScript."""
    return _costs(collective, algorithm, get_preset(preset), int(ranks), int(chunks))


def sweep_times(
    collective: str,
    algorithm: str,
    sizes,
    preset: str | Preset,
    *,
    ranks: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(seconds, best pipeline depth) for every size in ``sizes`` (bytes)."""
    preset = get_preset(preset)
    p = preset.ranks if ranks is None else int(ranks)
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.float64))
    if algorithm == "nvls":
        if collective != "all_reduce" or not preset.in_network_reduction:
            raise ValueError("nvls is an all_reduce algorithm of the *-nvls presets only")
        return nvls_allreduce_time(sizes, p, preset.alpha_s, preset.bandwidth_Bps), np.ones(
            sizes.size, dtype=int
        )
    if algorithm not in ALGORITHMS.get(collective, ()):
        raise ValueError(
            f"no algorithm {algorithm!r} for {collective}; choose one of: "
            f"{', '.join(algorithms_for(collective, preset))}"
        )
    depths = _depths(collective, algorithm)
    table = np.stack([_costs(collective, algorithm, preset, p, k).time(sizes) for k in depths])
    best = np.argmin(table, axis=0)
    return table[best, np.arange(sizes.size)], np.asarray(depths)[best]


def predict(
    collective: str,
    size_bytes: int,
    preset: str | Preset,
    *,
    ranks: int | None = None,
    algorithm: str | None = None,
) -> Prediction:
    """Predicted time, algbw and busbw of ``collective`` with nccl-tests size ``size_bytes`` on
    ``preset`` (a name from PRESETS or a Preset). ``algorithm=None``: the fastest the model
    knows for this size (NCCL's own tuner may choose differently)."""
    preset = get_preset(preset)
    p = preset.ranks if ranks is None else int(ranks)
    if p < 1:
        raise ValueError(f"rank count must be at least 1, got {p}")
    if size_bytes < 0:
        raise ValueError(f"size must be non-negative, got {size_bytes}")
    candidates = (algorithm,) if algorithm else algorithms_for(collective, preset)
    best = None
    for algo in candidates:
        times, depth = sweep_times(collective, algo, [size_bytes], preset, ranks=p)
        if best is None or times[0] < best[1]:
            best = (algo, float(times[0]), int(depth[0]))
    algo, seconds, depth = best
    if collective == "barrier" or seconds <= 0 or size_bytes == 0:
        algbw = busbw = 0.0  # nothing moves (barrier, one rank, empty buffer)
    else:
        algbw = size_bytes / seconds / 1e9
        busbw = algbw * busbw_factor(collective, p)
    return Prediction(
        collective=collective,
        algorithm=algo,
        preset=preset.name,
        ranks=p,
        size_bytes=int(size_bytes),
        time_s=seconds,
        algbw_GBps=algbw,
        busbw_GBps=busbw,
        chunks=depth,
    )


def crossovers(sizes, times_a, times_b) -> list[float]:
    """Sizes (bytes, interpolated on a log scale) where algorithm a and b swap places."""
    sizes = np.asarray(sizes, dtype=float)
    diff = np.asarray(times_a) - np.asarray(times_b)
    points = []
    for i in np.flatnonzero(np.sign(diff[:-1]) * np.sign(diff[1:]) < 0):
        x0, x1 = np.log(sizes[i]), np.log(sizes[i + 1])
        y0, y1 = diff[i], diff[i + 1]
        points.append(float(np.exp(x0 - y0 * (x1 - x0) / (y1 - y0))))
    return points
