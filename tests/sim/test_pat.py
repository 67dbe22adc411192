"""PAT-like schedules (dimension-reversed Bruck): correct data, step counts, bytes, and the
property PAT is built for: the large messages go to near ranks."""

from __future__ import annotations

import numpy as np
import pytest

from nccl_course.sim import ScheduleError, build_schedule, check_schedule, verify_schedule
from nccl_course.sim.pat import pat_distances, pat_offsets_per_step, pat_schedule
from nccl_course.sim.schedule import Schedule

SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 31, 64]


@pytest.mark.parametrize("p", SIZES)
@pytest.mark.parametrize("collective", ["all_gather", "reduce_scatter"])
def test_pat_moves_the_right_data(collective, p):
    s = pat_schedule(collective, p)
    for dtype in (np.float64, np.int32):
        assert check_schedule(s, dtype=dtype) is None


@pytest.mark.parametrize("p", SIZES)
def test_steps_and_bytes_match_bruck(p):
    n = 1000 * p
    pat = pat_schedule("all_gather", p)
    bruck = build_schedule("all_gather", "bruck", p)
    steps = int(np.ceil(np.log2(p))) if p > 1 else 0
    assert pat.num_steps == bruck.num_steps == steps
    assert pat.bytes_sent_per_rank(n) == [(p - 1) * 1000] * p
    assert pat.bytes_received_per_rank(n) == [(p - 1) * 1000] * p
    rs = pat_schedule("reduce_scatter", p)
    assert rs.bytes_sent_per_rank(n) == [(p - 1) * 1000] * p


def test_distances_and_offsets_by_hand():
    assert pat_distances(8) == [4, 2, 1]
    assert pat_offsets_per_step(8) == [[0], [0, 4], [0, 4, 2, 6]]
    # p = 6: offset 4 + 2 = 6 would be block r again, so it is left out
    assert pat_distances(6) == [4, 2, 1]
    assert pat_offsets_per_step(6) == [[0], [0], [0, 4, 2]]
    assert pat_distances(1) == []


def test_directions_are_nccls():
    # NCCL 2.30.7, src/transport/generic.cc: all-gather sends to rank - 2^d and receives from
    # rank + 2^d; reduce-scatter the reverse.
    p = 8
    ag = pat_schedule("all_gather", p)
    for d, step in zip([4, 2, 1], ag.steps, strict=True):
        assert {(t.dst - t.src) % p for t in step} == {(-d) % p}
    rs = pat_schedule("reduce_scatter", p)
    for d, step in zip([1, 2, 4], rs.steps, strict=True):
        assert {(t.dst - t.src) % p for t in step} == {d}
        assert all(t.reduce for t in step)


def test_far_steps_carry_little_near_steps_carry_most():
    # Per rank and step: PAT sends 1, 2, 4 blocks at distances 4, 2, 1; Bruck 1, 2, 4 at 1, 2, 4.
    p = 8

    def blocks_by_distance(s: Schedule) -> dict[int, int]:
        out = {}
        for step in s.steps:
            d = (step[0].src - step[0].dst) % p
            out[d] = sum(1 for t in step if t.src == 0)
        return out

    assert blocks_by_distance(pat_schedule("all_gather", p)) == {4: 1, 2: 2, 1: 4}
    assert blocks_by_distance(build_schedule("all_gather", "bruck", p)) == {1: 1, 2: 2, 4: 4}


def test_a_wrong_order_is_caught():
    # Sending the near step first without the data it forwards must fail in the simulator.
    s = pat_schedule("all_gather", 8)
    wrong = Schedule.from_steps(
        "all_gather", "pat", 8, list(reversed(s.steps)), num_chunks=8, size_chunks=8
    )
    with pytest.raises(ScheduleError):
        verify_schedule(wrong)


def test_only_all_gather_and_reduce_scatter():
    with pytest.raises(ValueError, match="all_gather and reduce_scatter"):
        pat_schedule("all_reduce", 8)
    with pytest.raises(ValueError):
        pat_distances(0)
