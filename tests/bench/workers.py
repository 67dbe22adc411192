"""Rank functions for the harness tests."""

import torch.distributed as dist

from nccl_course.bench.collectives import SPECS
from nccl_course.bench.harness import BenchConfig, measure


def every_collective(sizes):
    out = {}
    for name in SPECS:
        config = BenchConfig(
            collective=name, sizes=tuple(sizes), warmup=1, iters=2, root=1, progress=False
        )
        out[name] = [row.as_dict() for row in measure(config)]
    return out


def with_broken_all_reduce(sizes):
    """An all-reduce that forgets to add the last rank's contribution: the check must see it."""
    real = dist.all_reduce

    def broken(tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
        contribution = tensor.clone()
        if dist.get_rank() == dist.get_world_size() - 1:
            tensor.zero_()
        real(tensor, op=op)
        if dist.get_rank() == dist.get_world_size() - 1:
            tensor.copy_(contribution + tensor - contribution)  # same wrong sum on every rank

    dist.all_reduce = broken
    try:
        config = BenchConfig(sizes=tuple(sizes), warmup=0, iters=1, progress=False)
        rows = measure(config)
    finally:
        dist.all_reduce = real
    return [row.as_dict() for row in rows]


def mean_of_rank_numbers():
    """Rank r offers r + 1: the harness's reduction over ranks must give their mean."""
    import torch

    from nccl_course.bench.harness import _mean_over_ranks

    return _mean_over_ranks(float(dist.get_rank() + 1), torch.device("cpu"))
