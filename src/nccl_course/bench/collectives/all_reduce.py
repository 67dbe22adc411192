"""all_reduce_perf: every rank ends with the reduction of all ranks' buffers (count elements)."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern, reduce_op, reduce_patterns


def build(count, p, rank, dtype, device, redop, root):
    buf = torch.zeros(count, dtype=dtype, device=device)
    op = reduce_op(redop)

    def run():
        dist.all_reduce(buf, op=op)

    def check():
        buf.copy_(pattern(rank, count, dtype, device))
        run()
        return count_wrong(buf, reduce_patterns(p, count, redop, device), redop)

    return run, check
