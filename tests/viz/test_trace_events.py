"""The profiler-trace reader: intervals, which events are communication and compute, overlap,
slimming, and the traces the course keeps (recorded by lab 10's solution on gloo)."""

from __future__ import annotations

import json

import pytest

from nccl_course.viz.trace_events import (
    TraceError,
    annotation_us,
    difference,
    intersection,
    length,
    load_trace,
    main,
    overlap,
    slim,
    union,
)
from nccl_course.viz.trace_timeline import RECORDED_CONFIGS, recorded_traces

BWD = "autograd::engine::evaluate_function: AddmmBackward0"
ACC = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"


def x(name, ts, dur, tid=1, cat="cpu_op"):
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "tid": tid, "pid": 0}


def cpu_trace():
    return {
        "traceEvents": [
            {"ph": "M", "name": "thread_name", "tid": 2, "args": {"name": "pt_gloo_runloop"}},
            x("backward", 0, 70, cat="user_annotation"),
            x(BWD, 0, 20),
            x(ACC, 20, 5),
            x(BWD, 25, 30),
            x("c10d::allreduce_", 21, 2),
            x("gloo:all_reduce", 10, 20, tid=2, cat="user_annotation"),
            x("gloo:all_reduce", 15, 10, tid=3, cat="user_annotation"),
            x("gloo:all_reduce", 50, 10, tid=2, cat="user_annotation"),
            x("aten::mm", 100, 50),
        ]
    }


def test_interval_algebra():
    assert union([(5, 7), (0, 2), (1, 3), (3, 4)]) == [(0, 4), (5, 7)]
    assert length([(0, 10), (5, 15), (20, 21)]) == 16
    assert intersection([(0, 10), (20, 30)], [(5, 25)]) == [(5, 10), (20, 25)]
    assert difference([(0, 10), (20, 30)], [(5, 25)]) == [(0, 5), (25, 30)]
    assert difference([(0, 10)], []) == [(0, 10)]
    with pytest.raises(ValueError, match="ends before it starts"):
        union([(3, 1)])


def test_cpu_trace_overlap_counts_shared_time_once_and_skips_accumulate_grad():
    trace = load_trace(cpu_trace())
    assert not trace.on_gpu
    assert trace.thread_names == {"2": "pt_gloo_runloop"}
    o = overlap(trace)
    # communication 10-30 and 50-60; compute 0-20 and 25-55 (AccumulateGrad 20-25 is not compute)
    assert (o.comm_calls, o.comm_us, o.compute_us) == (3, 30, 50)
    assert (o.overlapped_us, o.exposed_us) == (20, 10)
    assert o.exposed_fraction == pytest.approx(1 / 3)
    assert annotation_us(trace, "backward") == 70


def test_gpu_trace_reads_kernels_only():
    data = {
        "traceEvents": [
            x("nccl:all_reduce", 0, 100, cat="user_annotation"),
            x(BWD, 0, 100),
            x("sm90_xmma_gemm", 0, 40, tid=7, cat="kernel"),
            x("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 30, 20, tid=8, cat="kernel"),
        ]
    }
    o = overlap(load_trace(data))
    assert (o.comm_calls, o.comm_us, o.overlapped_us, o.exposed_us) == (1, 20, 10, 10)


def test_errors_say_what_to_do(tmp_path):
    with pytest.raises(TraceError, match="export_chrome_trace"):
        load_trace({"events": []})
    with pytest.raises(TraceError, match="no such trace"):
        load_trace(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(TraceError, match="not JSON"):
        load_trace(bad)
    with pytest.raises(TraceError, match="expected one 'forward' annotation"):
        annotation_us(load_trace(cpu_trace()), "forward")


def test_slim_keeps_what_the_measurement_needs(tmp_path):
    data = cpu_trace()
    small = slim(data, {"note": "test"})
    names = [e["name"] for e in small["traceEvents"]]
    assert "aten::mm" not in names and "c10d::allreduce_" not in names
    assert "backward" in names and "thread_name" in names
    assert small["nccl_course"] == {"note": "test"}
    assert overlap(load_trace(small)) == overlap(load_trace(data))
    source, target = tmp_path / "in.json", tmp_path / "out.json"
    source.write_text(json.dumps(data))
    main([str(source), str(target), "--note", "n"])
    assert json.loads(target.read_text()) == slim(data, {"note": "n"})


@pytest.mark.parametrize("config", RECORDED_CONFIGS)
def test_recorded_traces_are_one_profiled_ddp_step_per_rank(config):
    traces = recorded_traces(config)
    assert len(traces) == 2
    for trace in traces:
        assert "Lab 10's solution" in trace.metadata["note"]
        assert len(trace.named("backward")) == 1
        o = overlap(trace)
        if config == "serialized":
            # One bucket: one all-reduce, ready only after backward's last gradient.
            assert o.comm_calls == 1 and o.overlapped_us == 0 and o.exposed_us > 0
        else:
            # One bucket per layer of the 8-layer model; the first ones run beside backward.
            assert o.comm_calls == 8 and o.overlapped_us > 0


def test_unknown_recorded_config_names_the_known_ones():
    with pytest.raises(FileNotFoundError, match="serialized, overlapped"):
        recorded_traces("tuned")
