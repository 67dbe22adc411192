"""A benchmark's measurements next to NCCL's tuner model, size by size.

The error is the model's, relative to the measurement, as everywhere in the course
(:mod:`nccl_course.cost.sweeps`): (model busbw - measured busbw) / measured busbw, in percent;
None where the measured busbw is 0 or not a finite number (a size too small for the printed
precision, a broken record). busbw is nccl-tests' (:mod:`nccl_course.cost.busbw`) on both
sides, with the same size and factor, so the error equals measured time / model time - 1: a
positive error is a model faster than the machine.

Units: bytes, microseconds, GB/s (1e9 bytes/s), percent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nccl_course.results.bundle import BenchRecord, Measurement
from nccl_course.results.model_choice import ModelPoint, PricedModel


@dataclass(frozen=True)
class ComparedSize:
    """One size: the measurement, the model there (None: no model), the error in percent and
    what NCCL logged for this size ("Algorithm/Protocol", None if the log has no such call)."""

    measured: Measurement
    model: ModelPoint | None
    error_pct: float | None
    logged: str | None


def busbw_error_pct(model_busbw: float | None, measured_busbw: float) -> float | None:
    """(model - measured) / measured x 100; None where it is undefined."""
    if model_busbw is None or not math.isfinite(measured_busbw) or measured_busbw <= 0:
        return None
    return (model_busbw - measured_busbw) / measured_busbw * 100.0


def compare(bench: BenchRecord, model: PricedModel | None) -> list[ComparedSize]:
    """Every measured size of ``bench`` with the model's numbers (if any)."""
    rows = []
    for m in bench.rows:
        point = model.at(m.size) if model is not None else None
        rows.append(
            ComparedSize(
                measured=m,
                model=point,
                error_pct=busbw_error_pct(point.busbw_GBps if point else None, m.busbw),
                logged=model.logged.get(m.size) if model is not None else None,
            )
        )
    return rows
