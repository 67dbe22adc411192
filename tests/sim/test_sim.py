"""The simulator: every schedule against numpy for p = 1..33, and invalid schedules rejected."""

from __future__ import annotations

import numpy as np
import pytest

from nccl_course.sim import (
    ALGORITHMS,
    PIPELINED,
    Schedule,
    ScheduleError,
    Transfer,
    build_schedule,
    check_schedule,
    make_inputs,
    reference,
    run_schedule,
    verify_schedule,
)
from nccl_course.sim.layout import ROOTED_COLLECTIVES

PAIRS = [(c, a) for c, algs in ALGORITHMS.items() for a in algs]
DTYPES = (np.float32, np.float64, np.int32, np.int8, np.float16, np.int64)


def test_algorithm_names_are_the_contract():
    assert ALGORITHMS == {
        "broadcast": ("ring", "binary_tree", "binomial_tree"),
        "reduce": ("ring", "binary_tree", "binomial_tree"),
        "all_reduce": (
            "ring",
            "double_binary_tree",
            "recursive_doubling",
            "rabenseifner",
            "reduce_broadcast",
        ),
        "all_gather": ("ring", "recursive_doubling", "bruck"),
        "reduce_scatter": ("ring", "recursive_halving"),
        "all_to_all": ("pairwise", "bruck"),
        "gather": ("direct", "binomial_tree"),
        "scatter": ("direct", "binomial_tree"),
        "send_recv": ("direct",),
        "barrier": ("dissemination",),
    }


@pytest.mark.parametrize(("collective", "algorithm"), PAIRS, ids=[f"{c}-{a}" for c, a in PAIRS])
def test_schedule_matches_numpy_for_every_world_size(collective, algorithm):
    for p in range(1, 34):
        k = (1, 2, 3)[p % 3]
        dtype = DTYPES[p % len(DTYPES)]
        # rooted: the first and last rank for odd p, the middle one for even p
        roots = ({0, p - 1} if p % 2 else {p // 2}) if collective in ROOTED_COLLECTIVES else {0}
        for root in roots:
            schedule = build_schedule(collective, algorithm, p, chunks=k, root=root)
            problem = check_schedule(schedule, dtype=dtype, seed=p)
            assert problem is None, f"p={p} k={k} root={root} {dtype.__name__}: {problem}"


@pytest.mark.parametrize(("collective", "algorithm"), sorted(PIPELINED))
@pytest.mark.parametrize("k", [1, 4, 7])
def test_pipelined_schedules_for_many_chunk_counts(collective, algorithm, k):
    for p in (2, 3, 5, 8, 13, 16, 33):
        schedule = build_schedule(collective, algorithm, p, chunks=k, root=p // 3)
        assert verify_schedule(schedule, count=5 * k + 3, dtype=np.float64, seed=k), (p, k)


def test_non_divisible_counts_are_padded_and_exact():
    schedule = build_schedule("all_reduce", "ring", 7, chunks=2)
    for count in (1, 13, 14, 15, 100):
        assert verify_schedule(schedule, count=count)


def test_reference_definitions_on_a_small_example():
    inputs = [np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])]
    assert [o.tolist() for o in reference("all_reduce", inputs)] == [[11, 22, 33, 44]] * 2
    assert [o.tolist() for o in reference("reduce_scatter", inputs)] == [[11, 22], [33, 44]]
    assert [o.tolist() for o in reference("all_to_all", inputs)] == [[1, 2, 10, 20], [3, 4, 30, 40]]
    assert reference("reduce", inputs, root=1)[0] is None
    assert [o.tolist() for o in reference("all_gather", [np.array([5]), np.array([6])])] == [
        [5, 6],
        [5, 6],
    ]
    assert [o.tolist() for o in reference("send_recv", inputs)] == [[10, 20, 30, 40], [1, 2, 3, 4]]


def test_run_schedule_returns_numpy_outputs():
    schedule = build_schedule("all_gather", "bruck", 5)
    inputs = [np.full(2, r, dtype=np.int32) for r in range(5)]
    outputs = run_schedule(schedule, inputs)
    for out in outputs:
        assert out.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


@pytest.mark.parametrize(
    ("collective", "algorithm", "steps"),
    [
        ("all_reduce", "ring", lambda p: 2 * (p - 1)),
        ("all_gather", "ring", lambda p: p - 1),
        ("all_gather", "bruck", lambda p: (p - 1).bit_length()),
        ("all_to_all", "pairwise", lambda p: p - 1),
        ("broadcast", "binomial_tree", lambda p: (p - 1).bit_length()),
        ("barrier", "dissemination", lambda p: (p - 1).bit_length()),
        # p not a power of two: fold, lg p' rounds, unfold
        (
            "all_reduce",
            "recursive_doubling",
            lambda p: (p.bit_length() - 1) + (0 if p & (p - 1) == 0 else 2),
        ),
    ],
)
def test_step_counts(collective, algorithm, steps):
    for p in range(2, 34):
        assert build_schedule(collective, algorithm, p).num_steps == steps(p), p


def test_pipelined_chain_takes_p_plus_k_minus_2_steps():
    for p, k in [(2, 1), (5, 4), (8, 16)]:
        assert build_schedule("broadcast", "ring", p, chunks=k).num_steps == p + k - 2


def test_bytes_sent_per_rank():
    n = 8 * 1024 * 1024
    for p in (2, 3, 8, 12):
        ring = build_schedule("all_reduce", "ring", p, chunks=2)
        assert ring.bytes_sent_per_rank(n) == [round(2 * (p - 1) * n / p)] * p
        ag = build_schedule("all_gather", "ring", p)
        assert ag.bytes_sent_per_rank(n) == [round((p - 1) * n / p)] * p
        bcast = build_schedule("broadcast", "binomial_tree", p, root=1)
        sent = bcast.bytes_sent_per_rank(n)
        assert sum(sent) == (p - 1) * n  # every rank but the root receives n once
        assert sent[1] == (p - 1).bit_length() * n  # the root sends in every round
    a2a = build_schedule("all_to_all", "pairwise", 4)
    assert a2a.bytes_sent_per_rank(4000) == [3000] * 4  # own block stays


def test_double_binary_tree_no_rank_is_interior_in_both_trees():
    for p in range(2, 34):
        schedule = build_schedule("all_reduce", "double_binary_tree", p, chunks=1)
        k = schedule.chunks
        children = [set(), set()]  # ranks that receive a reduction, per tree
        for step in schedule.steps:
            for t in step:
                if t.reduce:
                    children[t.chunk // k].add(t.dst)
        assert not (children[0] & children[1]), p


def test_steps_are_lists_of_transfers():
    schedule = build_schedule("all_reduce", "ring", 3)
    assert schedule.steps[0] == [
        Transfer(0, 1, 0, True),
        Transfer(1, 2, 1, True),
        Transfer(2, 0, 2, True),
    ]
    assert schedule.p == 3 and schedule.collective == "all_reduce" and schedule.algorithm == "ring"


def _hand_schedule(steps, collective="all_gather", p=2, num_chunks=2):
    return Schedule.from_steps(collective, "hand", p, steps, num_chunks=num_chunks)


def test_sending_a_chunk_not_held_is_an_error():
    bad = _hand_schedule([[Transfer(0, 1, 1)]])  # rank 0 holds only chunk 0
    with pytest.raises(ScheduleError, match="rank 0 .* does not hold"):
        verify_schedule(bad)


def test_two_writes_to_one_chunk_in_a_step_is_an_error():
    steps = [[Transfer(0, 2, 0), Transfer(1, 2, 1)], [Transfer(0, 1, 0), Transfer(2, 1, 0)]]
    bad = _hand_schedule(steps, p=3, num_chunks=3)
    with pytest.raises(ScheduleError, match="two transfers write chunk 0 of rank 1"):
        verify_schedule(bad)


def test_out_of_range_rank_and_missing_output_are_errors():
    with pytest.raises(ScheduleError, match="ranks are 0..1"):
        verify_schedule(_hand_schedule([[Transfer(0, 2, 0)]]))
    with pytest.raises(ScheduleError, match="still lacks chunk"):
        verify_schedule(_hand_schedule([[Transfer(0, 1, 0)]]))  # rank 0 never gets chunk 1


def test_reducing_into_a_chunk_not_held_is_an_error():
    bad = _hand_schedule([[Transfer(0, 1, 0, True)]])
    with pytest.raises(ScheduleError, match="reduce into chunk 0"):
        verify_schedule(bad)


def test_wrong_data_returns_false():
    good = build_schedule("all_reduce", "ring", 4)
    assert verify_schedule(good)
    # Turn one reduction of the reduce-scatter phase into a copy: a contribution is lost.
    steps = [list(s) for s in good.steps]
    steps[1][0] = steps[1][0]._replace(reduce=False)
    broken = Schedule.from_steps("all_reduce", "ring", 4, steps, num_chunks=4)
    assert verify_schedule(broken) is False
    assert "expected" in check_schedule(broken)


def test_broadcast_ignores_non_root_inputs():
    inputs = make_inputs("broadcast", 4, 6, root=2)
    assert (inputs[0] == -1).all() and (inputs[2] > 0).all()
    outputs = run_schedule(build_schedule("broadcast", "ring", 4, chunks=3, root=2), inputs)
    assert all((o == inputs[2]).all() for o in outputs)


def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match="choose one of"):
        build_schedule("all_reduce", "nope", 4)
    with pytest.raises(ValueError, match="unknown collective"):
        build_schedule("allreduce", "ring", 4)
    with pytest.raises(ValueError, match="root must be"):
        build_schedule("broadcast", "ring", 4, root=4)


@pytest.mark.parametrize("collective", ["all_reduce", "all_gather", "reduce_scatter"])
def test_node_rings_match_numpy_and_use_every_nic(collective):
    from nccl_course.sim import build_node_ring_schedule

    for nodes, per_node in [(1, 4), (2, 2), (2, 8), (3, 4)]:
        for k in (1, 2):
            schedule = build_node_ring_schedule(collective, nodes * per_node, per_node, chunks=k)
            assert check_schedule(schedule, dtype=np.int32) is None, (nodes, per_node, k)
    # 2 nodes x 4: 4 rings, each crossing twice; every GPU's NIC sends and receives once
    schedule = build_node_ring_schedule(collective, 8, 4)
    crossing = [(t.src, t.dst) for t in schedule.steps[0] if t.src // 4 != t.dst // 4]
    assert len(crossing) == 8
    assert sorted(s for s, _ in crossing) == list(range(8))
    assert sorted(d for _, d in crossing) == list(range(8))
