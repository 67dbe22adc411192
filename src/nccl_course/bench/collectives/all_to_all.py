"""alltoall_perf: count is what each rank sends in all, p blocks; block j of rank r's output is
block r of rank j's input."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern


def build(count, p, rank, dtype, device, redop, root):
    block = count // p
    inp = torch.zeros(count, dtype=dtype, device=device)
    out = torch.zeros(count, dtype=dtype, device=device)

    def run():
        dist.all_to_all_single(out, inp)

    def check():
        inp.copy_(pattern(rank, count, dtype, device))
        run()
        want = torch.cat(
            [
                pattern(j, count, torch.float64, device)[rank * block : (rank + 1) * block]
                for j in range(p)
            ]
        )
        return count_wrong(out, want)

    return run, check
