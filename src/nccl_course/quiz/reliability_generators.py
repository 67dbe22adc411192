"""Generators for the parameterized questions of ``quizzes/fault-tolerance.yml``.

Registered by name like the ones in :mod:`nccl_course.quiz.generators` (``nccl_course.quiz``
imports this module). Answers come from :mod:`nccl_course.cost.reliability`; the mistakes are
what a learner gets by leaving out one step.
"""

from __future__ import annotations

import math
import random

from nccl_course.cost.reliability import job_mtbf_s, loss_per_failure_s, young_interval_s
from nccl_course.quiz.generators import Draw, generator

_GPUS = [1024, 2048, 4096, 8192, 16384]
_UNIT_MTBF_H = [20_000, 50_000, 100_000]  # hours between failures of one GPU with its share
_CHECKPOINT_S = [30, 60, 120]
_HOUR = 3600.0


@generator("young_checkpoint_interval")
def young_checkpoint_interval(rng: random.Random) -> Draw:
    """Young's checkpoint interval in minutes for a job on ``gpus`` GPUs.

    Params: gpus, unit_mtbf_h, checkpoint_s, job_mtbf_min."""
    gpus = rng.choice(_GPUS)
    unit_mtbf_h = rng.choice(_UNIT_MTBF_H)
    checkpoint_s = rng.choice(_CHECKPOINT_S)
    mtbf = job_mtbf_s(unit_mtbf_h * _HOUR, gpus)
    answer = young_interval_s(checkpoint_s, mtbf) / 60
    mistakes = [
        (
            young_interval_s(checkpoint_s, unit_mtbf_h * _HOUR) / 60,
            "That uses one GPU's MTBF. The job stops when any GPU fails: divide by the GPU count.",
        ),
        (
            math.sqrt(checkpoint_s * mtbf) / 60,
            "The factor 2 is missing: Young's interval is sqrt(2 C M).",
        ),
    ]
    shown = {
        "gpus": gpus,
        "unit_mtbf_h": f"{unit_mtbf_h:,}",
        "checkpoint_s": checkpoint_s,
        "job_mtbf_min": f"{mtbf / 60:.0f}",
    }
    return Draw(shown, answer, mistakes)


@generator("failure_cost_minutes")
def failure_cost_minutes(rng: random.Random) -> Draw:
    """Expected minutes one failure costs: timeout + restart + half a checkpoint interval.

    Params: timeout_min, restart_min, interval_min."""
    timeout_min = rng.choice([5, 10, 30])
    restart_min = rng.choice([3, 5, 8])
    interval_min = rng.choice([20, 30, 60, 90])
    answer = loss_per_failure_s(interval_min * 60, timeout_min * 60, restart_min * 60) / 60
    mistakes = [
        (
            timeout_min + restart_min + interval_min,
            "A failure lands on average half-way through an "
            "interval, so half an interval of work is lost, not a whole one.",
        ),
        (timeout_min + restart_min, "The work done since the last checkpoint is lost too."),
        (
            restart_min + interval_min / 2,
            "The hang is not noticed until the timeout fires: add it.",
        ),
    ]
    shown = {"timeout_min": timeout_min, "restart_min": restart_min, "interval_min": interval_min}
    return Draw(shown, answer, mistakes)
