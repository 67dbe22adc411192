"""sendrecv_perf: every rank sends its buffer (count elements) to rank + 1 and receives rank - 1's,
an isend and an irecv posted together."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.bench.collectives.common import count_wrong, pattern


def build(count, p, rank, dtype, device, redop, root):
    send = torch.zeros(count, dtype=dtype, device=device)
    recv = torch.zeros(count, dtype=dtype, device=device)
    nxt, prv = (rank + 1) % p, (rank - 1) % p

    def run():
        ops = [dist.P2POp(dist.isend, send, nxt), dist.P2POp(dist.irecv, recv, prv)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()

    def check():
        send.copy_(pattern(rank, count, dtype, device))
        run()
        return count_wrong(recv, pattern(prv, count, torch.float64, device))

    return run, check
