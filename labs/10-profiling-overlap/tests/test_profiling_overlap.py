"""Lab 10 tests: a real profiler trace is recorded, its exposed communication is measured the way
the course's reader measures it, and the fixed DDP overlaps its all-reduces with backward.

One launch per world size (tests/checks.py) records both configurations on every rank. The checks
are about structure, not speed: how many all-reduces a step makes, whether any of them runs while
backward computes, and whether the learner's numbers agree with the course's reader on the same
trace. Timings on a shared CPU vary from run to run; the structure does not.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nccl_course.viz.trace_events import load_trace, overlap

CHECKS = Path(__file__).with_name("checks.py")
#: The check model's layers, one bucket each once fixed.
LAYERS = 8


@pytest.fixture(scope="module")
def trace_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("lab10-traces")


@pytest.fixture
def results(lab_file, world_size, lab_once, trace_dir):
    # One launch per (learner file, world size) in this module; every test reads its results.
    out = trace_dir / f"ranks{world_size}"
    return lab_once((str(CHECKS), "run_checks"), world_size, args=(str(lab_file), str(out)))


def _trace(res: dict, label: str, rank: int):
    recorded = res[f"{label}_trace"]
    assert recorded["error"] is None, f"rank {rank}: record_step raised {recorded['error']}"
    path = Path(recorded["value"])
    assert path.is_file(), f"rank {rank}: record_step returned {path}, which does not exist"
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        pytest.fail(f"rank {rank}: {path} is not JSON ({exc}); use prof.export_chrome_trace")
    return data, load_trace(data)


def _measured(res: dict, label: str, rank: int) -> dict:
    got = res[f"{label}_measured"]
    assert got["error"] is None, f"rank {rank}: exposed_communication raised {got['error']}"
    return got["value"]


def test_exposed_communication_on_a_small_trace(lab_module):
    def x(name, ts, dur, tid=1):
        return {"ph": "X", "cat": "cpu_op", "name": name, "ts": ts, "dur": dur, "tid": tid}

    bwd = "autograd::engine::evaluate_function: AddmmBackward0"
    acc = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"
    trace = {
        "traceEvents": [
            {"ph": "M", "name": "thread_name", "tid": 1, "args": {"name": "python"}},
            x(bwd, 0, 20),
            x(acc, 20, 5),  # not compute: an all-reduce beside it is still exposed
            x(bwd, 25, 30),
            x("gloo:all_reduce", 10, 20, tid=2),
            x("gloo:all_reduce", 15, 10, tid=3),  # inside the first one: counted once
            x("gloo:all_reduce", 50, 10, tid=2),
            x("aten::mm", 100, 50),  # neither kind
        ]
    }
    got = lab_module.exposed_communication(trace)
    want = {"calls": 3, "comm_us": 30.0, "overlapped_us": 20.0, "exposed_us": 10.0}
    for key, value in want.items():
        assert math.isclose(got[key], value), (
            f"{key}: communication covers 10-30 and 50-60 us, backward compute 0-20 and 25-55 us "
            f"(AccumulateGrad is not compute), so expected {want}, got {got}"
        )


def test_exposed_communication_on_a_gpu_trace(lab_module):
    def k(name, ts, dur):
        return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur, "tid": 7}

    trace = {
        "traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "ts": 0, "dur": 5},
            k("ampere_sgemm_128x64_nn", 0, 40),
            k("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 30, 20),
        ]
    }
    got = lab_module.exposed_communication(trace)
    assert (got["calls"], got["overlapped_us"], got["exposed_us"]) == (1, 10.0, 10.0), (
        "on a GPU trace the NCCL kernel is the communication (30-50 us) and the other kernels "
        f"the compute (0-40 us): 1 call, 10 us overlapped, 10 us exposed; got {got}"
    )


def test_record_step_writes_a_chrome_trace_of_one_step(results):
    for rank, res in enumerate(results):
        data, trace = _trace(res, "serialized", rank)
        assert isinstance(data.get("traceEvents"), list) and data["traceEvents"], (
            f"rank {rank}: a Chrome trace has a traceEvents list"
        )
        for name in ("train_step", "backward"):
            assert len(trace.named(name)) == 1, (
                f"rank {rank}: the profiled window should hold exactly one step annotated "
                f"record_function({name!r}); found {len(trace.named(name))}"
            )


def test_one_bucket_means_one_all_reduce_after_backward(results):
    for rank, res in enumerate(results):
        _, trace = _trace(res, "serialized", rank)
        seen = overlap(trace)
        assert seen.comm_calls == 1, (
            f"rank {rank}: with every gradient in one bucket DDP makes 1 all-reduce per step; the "
            f"trace has {seen.comm_calls}: did the warm-up steps run before profiling?"
        )
        assert seen.overlapped_us == 0, (
            f"rank {rank}: one bucket is ready only after the last gradient, so its all-reduce "
            f"cannot overlap backward; the trace shows {seen.overlapped_us:.0f} us of overlap"
        )


@pytest.mark.parametrize("label", ["serialized", "fixed"])
def test_your_measurement_matches_the_course_reader(results, label):
    for rank, res in enumerate(results):
        _, trace = _trace(res, label, rank)
        reference = overlap(trace)
        got = _measured(res, label, rank)
        assert got["calls"] == reference.comm_calls, (
            f"rank {rank}, {label} trace: {reference.comm_calls} communication events, "
            f"you counted {got['calls']}"
        )
        for key, value in (
            ("comm_us", reference.comm_us),
            ("overlapped_us", reference.overlapped_us),
            ("exposed_us", reference.exposed_us),
        ):
            assert math.isclose(got[key], value, rel_tol=1e-9, abs_tol=1e-3), (
                f"rank {rank}, {label} trace: {key} should be {value:.1f} us, got {got[key]}"
            )


def test_the_fix_overlaps_all_reduces_with_backward(results):
    for rank, res in enumerate(results):
        _, trace = _trace(res, "fixed", rank)
        seen = overlap(trace)
        assert seen.comm_calls >= LAYERS // 2, (
            f"rank {rank}: the fixed step still makes {seen.comm_calls} all-reduce(s); smaller "
            f"buckets (bucket_cap_mb about one layer's weight) give one per layer ({LAYERS})"
        )
        assert seen.overlapped_us > 0, (
            f"rank {rank}: none of the {seen.comm_calls} all-reduces ran while backward computed: "
            "the buckets must become ready before backward ends"
        )
