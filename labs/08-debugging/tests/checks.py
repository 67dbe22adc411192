"""The worker the lab 08 tests launch. Each scenario creates its own group with a short timeout
(a failed group is never reused), catches what the learner's code raises, and records the value,
the error and how long it took, so the tests can say which step failed and how fast."""

from __future__ import annotations

import time

import torch
import torch.distributed as dist

from nccl_course.launcher.launch import load_file_module


def _timed(fn, *args) -> dict:
    start = time.monotonic()
    try:
        value, error = fn(*args), None
    except Exception as exc:
        value, error = None, f"{type(exc).__name__}: {exc}"[:2000]
    return {"value": value, "error": error, "elapsed_s": time.monotonic() - start}


def shapes_differ(group):
    dist.all_reduce(torch.ones(5 if dist.get_rank() == 1 else 4), group=group)


def op_differs(group):
    if dist.get_rank() == 1:
        dist.broadcast(torch.ones(4), src=dist.get_global_rank(group, 0), group=group)
    else:
        dist.all_reduce(torch.ones(4), group=group)


def consistent(group):
    dist.all_reduce(torch.ones(4), group=group)
    dist.broadcast(torch.ones(2), src=dist.get_global_rank(group, 0), group=group)


def run_checks(lab_file: str) -> dict:
    lab = load_file_module(lab_file)
    rank, world = dist.get_rank(), dist.get_world_size()
    last = world - 1
    out: dict = {}

    group = lab.debug_group(5.0)
    if rank != last:  # the last rank never arrives
        out["missing"] = _timed(lab.find_missing_ranks, group, 2.0)
    else:
        time.sleep(3.0)
        out["missing"] = None
    group = lab.debug_group(5.0)
    out["all_present"] = _timed(lab.find_missing_ranks, group, 10.0)

    out["shape_mismatch"] = _timed(lab.detect_collective_mismatch, shapes_differ)
    out["op_mismatch"] = _timed(lab.detect_collective_mismatch, op_differs)
    out["consistent"] = _timed(lab.detect_collective_mismatch, consistent)

    group = lab.debug_group(2.0)
    dist.all_reduce(torch.ones(2), group=group)
    if rank != last:  # the last rank skips the second all-reduce; the others time out
        _timed(dist.all_reduce, torch.ones(3), dist.ReduceOp.SUM, group)
    records = lab.flight_records(group)
    out["records"] = None if records is None else [list(r) for r in records]

    group = lab.debug_group(3.0)
    out["mean_loss"] = _timed(lab.global_mean_loss, float(2 * rank + 1), group)
    # DETAIL-checked: an all_gather of unequal shapes on plain gloo aborts the process
    # ("Received data size doesn't match expected size"), which would take every other check
    # down with it; the wrapper turns it into a RuntimeError first.
    group = lab.debug_group(5.0, detail=True)
    values = torch.arange(3 + rank, dtype=torch.float64) * (rank + 1)
    out["gathered"] = _timed(lab.gather_variable_length, values, group)
    group = lab.debug_group(5.0)
    tensors = [torch.full((k + 1,), float(rank + k), dtype=torch.float64) for k in range(3)]
    averaged = _timed(lab.average_async, tensors, group)
    if averaged["value"] is not None:
        averaged["value"] = [t.tolist() for t in averaged["value"]]
    out["average"] = averaged

    group = lab.debug_group(2.0)
    out["buggy"] = _timed(lab.buggy_global_mean_loss, 1.0, group)
    # The others returned at once; if they exited now, rank 0 would see "connection closed"
    # instead of its timeout. Meet on the default group once rank 0 has given up.
    dist.barrier()
    return out
