"""The worker the lab 09 tests launch: every rank reaches three reductions on two groups, odd
ranks in another order across the groups than even ranks, and calls the lab's reduce_in_order.
The value, the error and the time taken come back per rank."""

from __future__ import annotations

import time

import torch
import torch.distributed as dist

from nccl_course.labs.parts import describe_error
from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module


def calls_of(rank: int) -> list[tuple[str, str]]:
    """Rank ``rank``'s (group, label) pairs in its program order. Inside "grads" every rank has
    the same order (last layer first, as backward produces them); across groups odd ranks put
    the metric first."""
    grads = [("grads", "layer1"), ("grads", "layer0")]
    metric = [("metrics", "loss")]
    return metric + grads if rank % 2 else grads + metric


def value_of(rank: int, label: str) -> list[float]:
    """What rank ``rank`` contributes to ``label``: distinct per rank and per label."""
    base = {"layer1": 1.0, "layer0": 10.0, "loss": 100.0}[label]
    return [base * (rank + 1) + i for i in range(3)]


def run_checks(lab_file: str, timeout_s: float) -> dict:
    lab = load_file_module(lab_file)
    rank = dist.get_rank()
    calls = calls_of(rank)
    # Names in this rank's own order: make_groups must not depend on it.
    groups = lab.make_groups([name for name, _ in calls], timeout_s)
    pending = [
        (name, label, torch.tensor(value_of(rank, label), device=device())) for name, label in calls
    ]
    start = time.monotonic()
    try:
        result = lab.reduce_in_order(groups, pending)
        value, error = {label: t.tolist() for label, t in result.items()}, None
    except Exception as exc:  # a deadlock cut short by the group timeout is feedback
        value, error = None, describe_error(exc, lab_file)
    return {
        "calls": calls,
        "value": value,
        "error": error,
        "elapsed_s": time.monotonic() - start,
    }
