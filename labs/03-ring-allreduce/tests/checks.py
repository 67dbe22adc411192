"""Runs on every rank: the learner's ring all-reduce, with torch's collectives disabled."""

import contextlib

import torch
import torch.distributed as dist

from nccl_course.labs.parts import run_parts
from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module

BUILT_IN = (
    "all_reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "broadcast",
    "reduce",
    "all_to_all",
    "all_to_all_single",
)
SIZES = (1, 2, 3, 7, 1001, 4099)  # below, at and above p; not multiples of p or of the chunks
CHUNKS = (1, 3, 4)


@contextlib.contextmanager
def built_in_collectives_disabled():
    saved = {name: getattr(dist, name) for name in BUILT_IN if hasattr(dist, name)}

    def refuse(name):
        def refused(*args, **kwargs):
            raise RuntimeError(f"dist.{name} called: build the all-reduce from send/recv only")

        return refused

    for name in saved:
        setattr(dist, name, refuse(name))
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(dist, name, fn)


def rank_data(n):
    """Integer-valued floats: every sum is exact, so results compare with ==."""
    return torch.arange(n, dtype=torch.float32, device=device()) % 97 + 7 * dist.get_rank()


def check_all(lab_file):
    lab = load_file_module(lab_file)

    def simple():
        return {n: lab.ring_all_reduce_simple(rank_data(n)).tolist() for n in SIZES}

    def pipelined():
        return {
            (n, chunks): lab.ring_all_reduce(rank_data(n), chunks).tolist()
            for n in SIZES
            for chunks in CHUNKS
        }

    with built_in_collectives_disabled():
        return run_parts({"simple": simple, "pipelined": pipelined}, lab_file)
