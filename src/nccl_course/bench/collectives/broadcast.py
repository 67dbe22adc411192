"""broadcast_perf: every rank ends with the root's buffer (count elements)."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern


def build(count, p, rank, dtype, device, redop, root):
    buf = torch.zeros(count, dtype=dtype, device=device)

    def run():
        dist.broadcast(buf, src=root)

    def check():
        buf.copy_(pattern(rank, count, dtype, device))
        run()
        return count_wrong(buf, pattern(root, count, torch.float64, device))

    return run, check
