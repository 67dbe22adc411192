"""reduce_scatter_perf: count is the total, p blocks; rank r ends with block r of the reduction
of all ranks' inputs."""

from __future__ import annotations

import torch

from nccl_course.bench.collectives.common import (
    count_wrong,
    pattern,
    reduce_op,
    reduce_patterns,
    torch_call,
)


def build(count, p, rank, dtype, device, redop, root):
    block = count // p
    inp = torch.zeros(count, dtype=dtype, device=device)
    out = torch.zeros(block, dtype=dtype, device=device)
    op = reduce_op(redop)
    scatter = torch_call("reduce_scatter_single", "reduce_scatter_tensor")

    def run():
        scatter(out, inp, op=op)

    def check():
        inp.copy_(pattern(rank, count, dtype, device))
        run()
        want = reduce_patterns(p, block, redop, device, offset=rank * block)
        return count_wrong(out, want, redop)

    return run, check
