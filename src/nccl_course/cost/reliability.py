"""Failures and checkpoints: how often a large job fails and how much work each failure costs.

A first-order model (Young 1974, "A first order approximation to the optimum checkpoint
interval", Communications of the ACM 17(9)): a job that needs every one of ``units`` parts fails
as soon as any part fails, so with independent parts its mean time between failures (MTBF) is the
part's MTBF divided by ``units``. Checkpointing every ``interval`` seconds costs ``checkpoint``
seconds each time; a failure costs the time to notice it, the time to restart, and the work done
since the last checkpoint (half an interval on average). Young's interval sqrt(2 C M) minimises
the sum to first order (valid while C and the interval are much shorter than M).

Every time is in seconds.
"""

from __future__ import annotations

import math


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")


def job_mtbf_s(unit_mtbf_s: float, units: int) -> float:
    """MTBF (s) of a job that stops when any of ``units`` independent parts fails."""
    _check_positive(unit_mtbf_s=unit_mtbf_s, units=units)
    return unit_mtbf_s / units


def young_interval_s(checkpoint_s: float, mtbf_s: float) -> float:
    """Young's checkpoint interval sqrt(2 C M) (s), for checkpoint cost C and job MTBF M."""
    _check_positive(checkpoint_s=checkpoint_s, mtbf_s=mtbf_s)
    return math.sqrt(2 * checkpoint_s * mtbf_s)


def loss_per_failure_s(interval_s: float, detect_s: float, restart_s: float) -> float:
    """Expected time (s) one failure costs: detection + restart + half an interval of redone work."""
    _check_positive(interval_s=interval_s)
    if detect_s < 0 or restart_s < 0:
        raise ValueError("detect_s and restart_s must not be negative")
    return detect_s + restart_s + interval_s / 2


def wasted_fraction(
    interval_s: float, checkpoint_s: float, mtbf_s: float, detect_s: float, restart_s: float
) -> float:
    """Share of wall time not spent on new work, to first order: checkpoints + failures.

    ``checkpoint_s / interval_s`` goes to writing checkpoints and
    ``loss_per_failure_s(...) / mtbf_s`` to failures (one every ``mtbf_s`` seconds on average).
    """
    _check_positive(interval_s=interval_s, checkpoint_s=checkpoint_s, mtbf_s=mtbf_s)
    return checkpoint_s / interval_s + loss_per_failure_s(interval_s, detect_s, restart_s) / mtbf_s
