"""scatter_perf: count is the total, p blocks of the root's input; rank r ends with block r."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern


def build(count, p, rank, dtype, device, redop, root):
    block = count // p
    ins = [torch.zeros(block, dtype=dtype, device=device) for _ in range(p)]
    out = torch.zeros(block, dtype=dtype, device=device)

    def run():
        dist.scatter(out, scatter_list=ins if rank == root else None, src=root)

    def check():
        for j in range(p):
            ins[j].copy_(pattern(root, count, dtype, device)[j * block : (j + 1) * block])
        run()
        want = pattern(root, count, torch.float64, device)[rank * block : (rank + 1) * block]
        return count_wrong(out, want)

    return run, check
