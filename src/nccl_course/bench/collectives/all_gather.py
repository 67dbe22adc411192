"""all_gather_perf: count is the total, p blocks; every rank ends with all ranks' blocks in rank
order."""

from __future__ import annotations

import torch

from nccl_course.bench.collectives.common import count_wrong, pattern, torch_call


def build(count, p, rank, dtype, device, redop, root):
    block = count // p
    inp = torch.zeros(block, dtype=dtype, device=device)
    out = torch.zeros(count, dtype=dtype, device=device)
    gather = torch_call("all_gather_single", "all_gather_into_tensor")

    def run():
        gather(out, inp)

    def check():
        inp.copy_(pattern(rank, block, dtype, device))
        run()
        want = torch.cat([pattern(r, block, torch.float64, device) for r in range(p)])
        return count_wrong(out, want)

    return run, check
