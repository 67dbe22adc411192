"""The registry of collectives (nccl_course.collectives) and every list derived from it.

The registry is checked against a table written out here from nccl-tests (src/*.cu,
doc/PERFORMANCE.md) and torch.distributed; then every part of the course that knows collectives
(the simulator, the cost model, the benchmark, the quiz generators) is checked to know exactly the
registry's, and the bus-bandwidth factors against the bytes the simulator's schedules move.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import random

import numpy as np
import pytest

from nccl_course import collectives
from nccl_course.collectives import COLLECTIVES, Collective, get, names

# name: (display, rooted, reduces, layout, S counts all ranks, busbw, nccl-tests binary,
#        torch.distributed calls, ring phases)
EXPECTED = {
    "broadcast": ("broadcast", True, False, "buffer", False, "1", "broadcast_perf",
                  ("broadcast",), ()),
    "reduce": ("reduce", True, True, "buffer", False, "1", "reduce_perf", ("reduce",), ()),
    "all_reduce": ("all-reduce", False, True, "buffer", False, "2(p-1)/p", "all_reduce_perf",
                   ("all_reduce",), ("reduce_scatter", "all_gather")),
    "all_gather": ("all-gather", False, False, "blocks", True, "(p-1)/p", "all_gather_perf",
                   ("all_gather_into_tensor",), ("all_gather",)),
    "reduce_scatter": ("reduce-scatter", False, True, "blocks", True, "(p-1)/p",
                       "reduce_scatter_perf", ("reduce_scatter_tensor",), ("reduce_scatter",)),
    "all_to_all": ("all-to-all", False, False, "pair_blocks", True, "(p-1)/p", "alltoall_perf",
                   ("all_to_all_single",), ()),
    "gather": ("gather", True, False, "blocks", True, "(p-1)/p", "gather_perf", ("gather",), ()),
    "scatter": ("scatter", True, False, "blocks", True, "(p-1)/p", "scatter_perf",
                ("scatter",), ()),
    "send_recv": ("send/recv", False, False, "blocks", False, "1", "sendrecv_perf",
                  ("isend", "irecv"), ()),
    "barrier": ("barrier", False, False, "tokens", False, None, None, ("barrier",), ()),
}  # fmt: skip

# S / count: how many per-rank blocks of ``count`` elements the size nccl-tests reports holds.
SIZE_IN_COUNTS = {
    "broadcast": 1, "reduce": 1, "all_reduce": 1, "send_recv": 1, "barrier": 0,
    "all_gather": "p", "reduce_scatter": "p", "all_to_all": "p", "gather": "p", "scatter": "p",
}  # fmt: skip

BUSBW = [n for n, row in EXPECTED.items() if row[5] is not None]


def row(c: Collective) -> tuple:
    return (
        c.display_name,
        c.rooted,
        c.reduces,
        c.layout,
        c.size_counts_all_ranks,
        c.busbw_formula,
        c.nccl_tests_binary,
        c.torch_calls,
        c.ring_phases,
    )


def test_registry_is_the_expected_table_in_course_order():
    assert list(COLLECTIVES) == list(EXPECTED)
    assert {name: row(c) for name, c in COLLECTIVES.items()} == EXPECTED
    assert all(c.name == name for name, c in COLLECTIVES.items())


def test_registry_helpers():
    assert get("all_to_all") is COLLECTIVES["all_to_all"]
    with pytest.raises(ValueError, match="unknown collective 'allreduce'; known: broadcast, "):
        get("allreduce")
    with pytest.raises(ValueError, match="unknown collective"):
        get(None)
    assert names() == tuple(EXPECTED)
    assert names(lambda c: c.rooted) == ("broadcast", "reduce", "gather", "scatter")
    assert names(lambda c: c.reduces) == ("reduce", "all_reduce", "reduce_scatter")
    assert collectives.display_name("reduce_scatter") == "reduce-scatter"
    with pytest.raises(TypeError):
        COLLECTIVES["x"] = COLLECTIVES["barrier"]  # read-only
    with pytest.raises(ValueError, match="no bus bandwidth"):
        get("barrier").busbw_factor(4)
    with pytest.raises(ValueError, match="at least 1"):
        get("all_reduce").busbw_factor(0)
    with pytest.raises(ValueError, match="layout"):
        Collective(name="x", display_name="x", layout="ring", busbw_formula=None,
                   nccl_tests_binary=None, torch_calls=())  # fmt: skip


def test_registry_imports_only_the_standard_library():
    tree = ast.parse(inspect.getsource(collectives))
    imported = {
        alias.name for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names
    }
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"__future__", "collections.abc", "dataclasses", "types"}, imported


# ----------------------------------------------------------------------------------- simulator


def test_simulator_lists_are_registry_selections():
    from nccl_course import sim
    from nccl_course.sim import layout
    from nccl_course.sim.registry import BUILDERS

    assert sim.SIMULATED_COLLECTIVES == layout.SIMULATED_COLLECTIVES == tuple(EXPECTED)
    assert tuple(sim.ALGORITHMS) == tuple(EXPECTED)  # every collective has an algorithm
    assert {c for c, _ in BUILDERS} == set(EXPECTED)
    assert layout.BUFFER_COLLECTIVES == ("broadcast", "reduce", "all_reduce")
    assert layout.BUFFER_COLLECTIVES == names(lambda c: c.layout == "buffer")
    assert layout.BLOCK_COLLECTIVES == (
        "all_gather", "reduce_scatter", "gather", "scatter", "send_recv",
    )  # fmt: skip
    assert layout.BLOCK_COLLECTIVES == names(lambda c: c.layout == "blocks")
    assert layout.REDUCING_COLLECTIVES == names(lambda c: c.reduces)
    assert set(layout.REDUCING_COLLECTIVES) == {"all_reduce", "reduce", "reduce_scatter"}
    assert layout.ROOTED_COLLECTIVES == names(lambda c: c.rooted)
    assert set(layout.ROOTED_COLLECTIVES) == {"broadcast", "reduce", "gather", "scatter"}
    with pytest.raises(ValueError, match="unknown collective"):
        sim.build_schedule("allreduce", "ring", 4)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_simulated_size_is_the_size_nccl_tests_reports(name):
    p, k = 4, 3
    schedule = sim_schedule(name, p, k)
    # One chunk is count / num_chunks elements for a buffer, count / k for a block.
    per_count = schedule.num_chunks if name in ("broadcast", "reduce", "all_reduce") else k
    want = p if SIZE_IN_COUNTS[name] == "p" else SIZE_IN_COUNTS[name]
    assert schedule.size_chunks == want * per_count


def test_rooted_collectives_honour_the_root_and_the_others_ignore_it():
    from nccl_course.sim import ALGORITHMS, build_schedule

    for name in EXPECTED:
        schedule = build_schedule(name, ALGORITHMS[name][0], 4, root=2)
        assert schedule.root == (2 if EXPECTED[name][1] else 0), name


def test_multi_ring_and_node_rings_are_the_collectives_with_ring_phases():
    from nccl_course.cost.model import NODE_RINGS
    from nccl_course.sim import build_node_ring_schedule, verify_schedule
    from nccl_course.sim.rings_trees import MULTI_RING_COLLECTIVES

    assert NODE_RINGS == MULTI_RING_COLLECTIVES == ("all_reduce", "all_gather", "reduce_scatter")
    assert MULTI_RING_COLLECTIVES == names(lambda c: c.ring_phases)
    for name in EXPECTED:
        if name in MULTI_RING_COLLECTIVES:
            assert verify_schedule(build_node_ring_schedule(name, 8, 4)), name
        else:
            with pytest.raises(ValueError, match="multi-ring schedules exist for"):
                build_node_ring_schedule(name, 8, 4)


# ---------------------------------------------------------------------------------- cost model


def test_cost_model_lists_are_registry_selections():
    from nccl_course import cost
    from nccl_course.cost.busbw import BUSBW_COLLECTIVES
    from nccl_course.cost.formulas import CLOSED_FORMS

    assert cost.BUSBW_COLLECTIVES is BUSBW_COLLECTIVES
    assert BUSBW_COLLECTIVES == tuple(BUSBW) == names(lambda c: c.busbw_formula is not None)
    assert "barrier" not in BUSBW_COLLECTIVES
    for bad in ("barrier", "allreduce"):
        with pytest.raises(ValueError, match="unknown collective"):
            cost.busbw_factor(bad, 4)
    assert {form.collective for form in CLOSED_FORMS.values()} <= set(EXPECTED)


def _sim_algorithm(name: str) -> str:
    """The algorithm nccl-tests' factor describes: a ring (or chain) where there is one, else the
    direct/pairwise exchange."""
    from nccl_course.sim import ALGORITHMS

    for algorithm in ("ring", "pairwise", "direct"):
        if algorithm in ALGORITHMS[name]:
            return algorithm
    raise AssertionError(name)


def sim_schedule(name: str, p: int, k: int):
    from nccl_course.sim import ALGORITHMS, build_schedule

    algorithm = _sim_algorithm(name) if name in BUSBW else ALGORITHMS[name][0]
    return build_schedule(name, algorithm, p, chunks=k)


@pytest.mark.parametrize("name", BUSBW)
@pytest.mark.parametrize("p", [2, 3, 4, 7, 8, 16])
def test_busbw_factor_is_the_busiest_ranks_traffic_over_s(name, p):
    """nccl-tests' factor, recomputed: the chunks the busiest rank sends or receives in the
    ring/direct schedule, over the chunks S is made of (counted here from the layout, not taken
    from the schedule)."""
    from nccl_course.cost import busbw_factor

    k = 2
    schedule = sim_schedule(name, p, k)
    sent = np.zeros(p, dtype=np.int64)
    received = np.zeros(p, dtype=np.int64)
    for step in schedule.step_arrays:
        np.add.at(sent, step.src, 1)
        np.add.at(received, step.dst, 1)
    per_count = schedule.num_chunks if EXPECTED[name][3] == "buffer" else k
    s_chunks = (p if SIZE_IN_COUNTS[name] == "p" else SIZE_IN_COUNTS[name]) * per_count
    busiest = max(sent.max(), received.max()) / s_chunks
    assert busbw_factor(name, p) == pytest.approx(busiest, rel=1e-12), (name, p)


def test_busbw_factors_at_one_rank():
    from nccl_course.cost import busbw_factor

    assert {n: busbw_factor(n, 1) for n in BUSBW} == {
        n: (1.0 if EXPECTED[n][5] == "1" else 0.0) for n in BUSBW
    }


# ----------------------------------------------------------------------------- benchmark, quiz


def test_bench_cli_offers_the_collectives_with_a_busbw():
    from nccl_course.bench.cli import COLLECTIVE_NAMES

    assert tuple(COLLECTIVE_NAMES) == tuple(BUSBW)


def test_bench_has_one_module_per_nccl_tests_binary():
    pytest.importorskip("torch")
    import torch.distributed as dist

    from nccl_course.bench.collectives import SPECS

    assert list(SPECS) == [n for n, r in EXPECTED.items() if r[6] is not None] == BUSBW
    for name, spec in SPECS.items():
        display, rooted, reduces, _, counts_all, *_ = EXPECTED[name]
        assert (spec.name, spec.rooted, spec.reduces) == (name, rooted, reduces)
        assert spec.total_divisible == counts_all
        module = importlib.import_module(f"nccl_course.bench.collectives.{name}")
        assert spec.build is module.build
        source = inspect.getsource(module)
        for call in get(name).torch_calls:
            assert call in source, f"{name}'s module does not use torch.distributed.{call}"
            assert hasattr(dist, call), call
    assert hasattr(dist, "barrier")


@pytest.mark.parametrize(
    "generator", ["collective_time_from_busbw", "busbw_from_time", "ring_bytes_sent_per_rank"]
)
def test_quiz_generators_take_every_collective_with_a_busbw(generator):
    from nccl_course.quiz import generators

    assert tuple(generators._COLLECTIVE_WORDS) == tuple(BUSBW)
    for name in BUSBW:
        draw = generators.GENERATORS[generator](random.Random(7), collective=name)
        assert draw.params["collective"] == EXPECTED[name][0]
        assert draw.answer > 0
    with pytest.raises(ValueError, match="unknown collective"):
        generators.GENERATORS[generator](random.Random(7), collective="barrier")
