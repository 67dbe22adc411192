"""gather_perf: count is the total, p blocks; the root ends with all ranks' blocks in rank order."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern


def build(count, p, rank, dtype, device, redop, root):
    block = count // p
    inp = torch.zeros(block, dtype=dtype, device=device)
    outs = [torch.zeros(block, dtype=dtype, device=device) for _ in range(p)]

    def run():
        dist.gather(inp, gather_list=outs if rank == root else None, dst=root)

    def check():
        inp.copy_(pattern(rank, block, dtype, device))
        run()
        if rank != root:
            return 0
        want = torch.cat([pattern(r, block, torch.float64, device) for r in range(p)])
        return count_wrong(torch.cat(outs), want)

    return run, check
