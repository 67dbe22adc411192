"""The failure and checkpoint model: closed forms checked against hand-computed values."""

from __future__ import annotations

import math
import random

import pytest

from nccl_course.cost.reliability import (
    job_mtbf_s,
    loss_per_failure_s,
    wasted_fraction,
    young_interval_s,
)
from nccl_course.quiz import GENERATORS

HOUR = 3600.0


def test_job_mtbf_divides_by_parts():
    # 50,000 h per GPU over 4,096 GPUs: 12.207 h, i.e. 43,945.3 s
    assert job_mtbf_s(50_000 * HOUR, 4096) == pytest.approx(43_945.3125)


def test_young_interval_is_sqrt_2cm():
    # C = 60 s, M = 43,945.3125 s: sqrt(5,273,437.5) = 2296.39 s
    assert young_interval_s(60, 43_945.3125) == pytest.approx(2296.3967, rel=1e-6)
    assert young_interval_s(50, 100) == pytest.approx(100.0)


def test_young_interval_minimises_the_first_order_waste():
    c, m = 60.0, 43_945.3125
    best = young_interval_s(c, m)
    waste = [wasted_fraction(t, c, m, 0, 0) for t in (best * 0.8, best, best * 1.25)]
    assert waste[1] < waste[0] and waste[1] < waste[2]
    # at the optimum both terms are equal: C/T = (T/2)/M
    assert c / best == pytest.approx(best / 2 / m)


def test_loss_per_failure_and_waste():
    assert loss_per_failure_s(1800, 600, 300) == 600 + 300 + 900
    # 60 s per 1800 s interval + 1800 s per 36,000 s between failures
    assert wasted_fraction(1800, 60, 36_000, 600, 300) == pytest.approx(60 / 1800 + 1800 / 36_000)


@pytest.mark.parametrize("bad", [0, -1])
def test_rejects_non_positive(bad):
    with pytest.raises(ValueError):
        young_interval_s(bad, 10)
    with pytest.raises(ValueError):
        job_mtbf_s(10, bad)
    with pytest.raises(ValueError):
        loss_per_failure_s(10, -1, 0)


def test_generators_recompute_from_their_params():
    for seed in range(8):
        draw = GENERATORS["young_checkpoint_interval"](random.Random(seed))
        p = draw.params
        unit = float(p["unit_mtbf_h"].replace(",", "")) * HOUR
        expected = math.sqrt(2 * p["checkpoint_s"] * unit / p["gpus"]) / 60
        assert draw.answer == pytest.approx(expected)
        draw = GENERATORS["failure_cost_minutes"](random.Random(seed))
        p = draw.params
        assert draw.answer == p["timeout_min"] + p["restart_min"] + p["interval_min"] / 2
