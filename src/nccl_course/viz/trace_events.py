"""A PyTorch profiler trace (Chrome trace JSON) read as intervals: communication, compute, overlap.

``torch.profiler.profile(...).export_chrome_trace(path)`` writes a JSON object whose
``traceEvents`` are Chrome trace events; a complete event (``"ph": "X"``) has a name, a category
(``cat``), a start ``ts`` and a duration ``dur``, both in microseconds, and the thread (``tid``)
it ran on. This module picks out two kinds of events and measures how much of the communication
ran beside compute:

- **communication**: on a CPU (gloo) trace, the ``gloo:<collective>`` annotations ProcessGroupGloo
  records on its worker thread while the collective runs (PyTorch 2.13); on a GPU trace, the
  kernels whose name starts with ``nccl`` (``ncclDevKernel_AllReduce_Sum_f32_RING_LL``, ...);
- **compute**: on a CPU trace, the autograd engine's ``autograd::engine::evaluate_function: ...``
  events of backward, except ``AccumulateGrad`` (which only adds a gradient into ``.grad``, and
  where DistributedDataParallel's hook launches a bucket's all-reduce); on a GPU trace, every other
  kernel.

A trace with GPU kernels (``cat`` ``kernel``) is read the GPU way, any other the CPU way. The
**exposed** communication is the time some communication runs and no compute does: the length of
the union of communication intervals minus its overlap with the union of compute intervals. All
times are microseconds, as in the trace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Name prefixes of the events ProcessGroupGloo and ProcessGroupNCCL record on the CPU.
CPU_COMM_PREFIXES = ("gloo:", "nccl:")
#: Name prefix of the autograd engine's events, one per backward node.
AUTOGRAD_PREFIX = "autograd::engine::evaluate_function: "
#: The backward node that only accumulates a gradient (and runs DDP's hooks).
ACCUMULATE_GRAD = "AccumulateGrad"
#: Annotations a trace keeps when slimmed, beside communication and compute.
STEP_ANNOTATIONS = ("train_step", "forward", "backward", "DistributedDataParallel.forward")

Interval = tuple[float, float]


class TraceError(ValueError):
    """A file or object that is not a Chrome trace this module can read."""


@dataclass(frozen=True)
class Event:
    """One complete (``X``) event: name, category, thread, start and duration in microseconds."""

    name: str
    cat: str
    tid: str
    start_us: float
    dur_us: float

    @property
    def end_us(self) -> float:
        return self.start_us + self.dur_us

    @property
    def interval(self) -> Interval:
        return (self.start_us, self.end_us)


@dataclass(frozen=True)
class Trace:
    """A trace's complete events (sorted by start), its thread names and its extra metadata."""

    events: tuple[Event, ...]
    thread_names: dict[str, str]
    metadata: dict

    @property
    def on_gpu(self) -> bool:
        return any(e.cat == "kernel" for e in self.events)

    def named(self, name: str) -> list[Event]:
        return [e for e in self.events if e.name == name]


@dataclass(frozen=True)
class Overlap:
    """How a trace's communication sits beside its compute (microseconds)."""

    comm_calls: int  #: communication events (collective calls on CPU, kernels on GPU)
    comm_us: float  #: length of the union of communication intervals
    compute_us: float  #: length of the union of compute intervals
    overlapped_us: float  #: communication time with compute running beside it
    exposed_us: float  #: communication time with no compute beside it

    @property
    def exposed_fraction(self) -> float:
        """Share of the communication time that is exposed (0 when there is no communication)."""
        return self.exposed_us / self.comm_us if self.comm_us else 0.0


def _read(source: str | Path | dict) -> dict:
    if isinstance(source, dict):
        return source
    path = Path(source)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise TraceError(
            f"{path}: no such trace; record one with torch.profiler and export_chrome_trace"
        ) from None
    except json.JSONDecodeError as exc:
        raise TraceError(f"{path}: not JSON ({exc}); is it a Chrome trace?") from None
    if not isinstance(data, dict):
        raise TraceError(f"{path}: a Chrome trace is a JSON object with traceEvents")
    return data


def load_trace(source: str | Path | dict) -> Trace:
    """A Chrome trace (a path, or the parsed JSON object) as a :class:`Trace`."""
    data = _read(source)
    raw = data.get("traceEvents")
    if not isinstance(raw, list):
        raise TraceError(
            "not a Chrome trace: no traceEvents list (export it with "
            "torch.profiler.profile(...).export_chrome_trace(path))"
        )
    events, threads = [], {}
    for e in raw:
        if not isinstance(e, dict):
            continue
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[str(e.get("tid"))] = str(e.get("args", {}).get("name", ""))
        if e.get("ph") != "X" or "dur" not in e or "ts" not in e:
            continue
        events.append(
            Event(
                name=str(e.get("name", "")),
                cat=str(e.get("cat", "")),
                tid=str(e.get("tid", "")),
                start_us=float(e["ts"]),
                dur_us=float(e["dur"]),
            )
        )
    events.sort(key=lambda e: (e.start_us, -e.dur_us))
    return Trace(tuple(events), threads, dict(data.get("nccl_course", {})))


def is_communication(event: Event, on_gpu: bool) -> bool:
    """Whether ``event`` is a collective running (see the module docstring)."""
    if on_gpu:
        return event.cat == "kernel" and event.name.lower().startswith("nccl")
    return event.name.startswith(CPU_COMM_PREFIXES) and event.cat != "kernel"


def is_compute(event: Event, on_gpu: bool) -> bool:
    """Whether ``event`` is backward compute (CPU) or a compute kernel (GPU)."""
    if on_gpu:
        return event.cat == "kernel" and not event.name.lower().startswith("nccl")
    return event.name.startswith(AUTOGRAD_PREFIX) and ACCUMULATE_GRAD not in event.name


def communication(trace: Trace) -> list[Event]:
    gpu = trace.on_gpu
    return [e for e in trace.events if is_communication(e, gpu)]


def compute(trace: Trace) -> list[Event]:
    gpu = trace.on_gpu
    return [e for e in trace.events if is_compute(e, gpu)]


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """The intervals merged where they overlap or touch, sorted."""
    merged: list[list[float]] = []
    for start, end in sorted(intervals):
        if end < start:
            raise ValueError(f"interval ({start}, {end}) ends before it starts")
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def length(intervals: Iterable[Interval]) -> float:
    """Total time covered by ``intervals`` (overlaps counted once)."""
    return sum(e - s for s, e in union(intervals))


def intersection(a: Iterable[Interval], b: Iterable[Interval]) -> list[Interval]:
    """The time covered by both ``a`` and ``b``, as sorted disjoint intervals."""
    ua, ub = union(a), union(b)
    out, i, j = [], 0, 0
    while i < len(ua) and j < len(ub):
        start, end = max(ua[i][0], ub[j][0]), min(ua[i][1], ub[j][1])
        if start < end:
            out.append((start, end))
        if ua[i][1] < ub[j][1]:
            i += 1
        else:
            j += 1
    return out


def difference(a: Iterable[Interval], b: Iterable[Interval]) -> list[Interval]:
    """The time covered by ``a`` and not by ``b``, as sorted disjoint intervals."""
    out = []
    cut = union(b)
    for start, end in union(a):
        cursor = start
        for s, e in cut:
            if e <= cursor or s >= end:
                continue
            if s > cursor:
                out.append((cursor, s))
            cursor = max(cursor, e)
        if cursor < end:
            out.append((cursor, end))
    return out


def overlap(trace: Trace) -> Overlap:
    """Communication, compute, and how much of the communication compute hides."""
    comm = [e.interval for e in communication(trace)]
    work = [e.interval for e in compute(trace)]
    comm_us = length(comm)
    overlapped = length(intersection(comm, work))
    return Overlap(
        comm_calls=len(comm),
        comm_us=comm_us,
        compute_us=length(work),
        overlapped_us=overlapped,
        exposed_us=comm_us - overlapped,
    )


def slim(source: str | Path | dict, metadata: dict | None = None) -> dict:
    """A small Chrome trace with only what :func:`overlap` and the timeline need: communication,
    compute, the step annotations and thread names, plus ``metadata`` under ``nccl_course``.
    It still opens in chrome://tracing and Perfetto."""
    data = _read(source)
    trace = load_trace(data)
    gpu = trace.on_gpu
    kept = []
    for e in data["traceEvents"]:
        if not isinstance(e, dict):
            continue
        if e.get("ph") == "M" and e.get("name") in ("thread_name", "process_name"):
            kept.append(e)
            continue
        if e.get("ph") != "X" or "dur" not in e:
            continue
        ev = Event(str(e.get("name", "")), str(e.get("cat", "")), "", 0.0, 0.0)
        if is_communication(ev, gpu) or is_compute(ev, gpu) or ev.name in STEP_ANNOTATIONS:
            kept.append(
                {k: e[k] for k in ("ph", "cat", "name", "pid", "tid", "ts", "dur") if k in e}
            )
    out = {"traceEvents": kept, "displayTimeUnit": data.get("displayTimeUnit", "ms")}
    if metadata:
        out["nccl_course"] = metadata
    return out


def relative_to(events: Sequence[Event], origin_us: float) -> list[Interval]:
    """The events' intervals shifted so that ``origin_us`` is 0 (microseconds)."""
    return [(e.start_us - origin_us, e.end_us - origin_us) for e in events]


def annotation_us(trace: Trace, name: str) -> float:
    """Duration of the one ``record_function(name)`` annotation of a trace (microseconds)."""
    found = trace.named(name)
    if len(found) != 1:
        raise TraceError(f"expected one {name!r} annotation in the trace, found {len(found)}")
    return found[0].dur_us


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m nccl_course.viz.trace_events IN OUT [--note TEXT]``: write a slimmed copy of
    the Chrome trace IN to OUT, with TEXT as its ``nccl_course.note``, and print its overlap."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--note", default="")
    options = parser.parse_args(argv)
    out = slim(options.source, {"note": options.note} if options.note else None)
    Path(options.target).write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(overlap(load_trace(out)))


if __name__ == "__main__":
    main()
