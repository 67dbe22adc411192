"""Workers the lab 07 tests launch: run the learner's dispatch / combine on scenarios with uneven,
empty and one-sided splits, and return plain lists; the tests rebuild the reference on one process."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.dist import device
from nccl_course.dist.launch import load_file_module

DIM = 4
EXPERTS_PER_RANK = 2
SCENARIOS = ("uneven", "all_to_rank0", "rank0_empty")


def experts(world_size: int):
    """Expert e is (W, b) with entries that are multiples of 1/8: products are exact."""
    gen = torch.Generator().manual_seed(42)
    return [
        (
            torch.randint(-4, 5, (DIM, DIM), generator=gen).to(torch.float64) / 8,
            torch.randint(-4, 5, (DIM,), generator=gen).to(torch.float64) / 8,
        )
        for _ in range(EXPERTS_PER_RANK * world_size)
    ]


def scenario(name: str, rank: int, world_size: int):
    """(tokens, expert ids) of one rank in one scenario."""
    gen = torch.Generator().manual_seed(1000 * SCENARIOS.index(name) + rank)
    count = {
        "uneven": 3 + 2 * rank,
        "all_to_rank0": 2 + rank,
        "rank0_empty": 0 if rank == 0 else 4,
    }[name]
    tokens = torch.randint(-8, 9, (count, DIM), generator=gen).to(torch.float64) / 4
    if name == "all_to_rank0":
        ids = torch.arange(count) % EXPERTS_PER_RANK  # experts 0 and 1 live on rank 0
    else:
        ids = torch.randint(0, EXPERTS_PER_RANK * world_size, (count,), generator=gen)
    return tokens, ids


def run_checks(lab_file: str) -> dict:
    lab = load_file_module(lab_file)
    dev = device()
    rank, world = dist.get_rank(), dist.get_world_size()
    all_experts = experts(world)
    mine = [
        (w.to(dev), b.to(dev))
        for w, b in all_experts[rank * EXPERTS_PER_RANK : (rank + 1) * EXPERTS_PER_RANK]
    ]
    out: dict = {}
    for name in SCENARIOS:
        tokens, ids = scenario(name, rank, world)
        dest = torch.div(ids, EXPERTS_PER_RANK, rounding_mode="floor")
        sent = lab.send_counts(dest, world)
        received = lab.exchange_counts(sent)
        got_tokens, local_ids, _plan = lab.dispatch(tokens.to(dev), ids.to(dev), EXPERTS_PER_RANK)
        result = lab.moe_forward(tokens.to(dev), ids.to(dev), EXPERTS_PER_RANK, mine)
        out[name] = {
            "sent": [int(c) for c in sent],
            "received": [int(c) for c in received],
            "dispatched_tokens": got_tokens.cpu().tolist(),
            "dispatched_local_ids": local_ids.cpu().tolist(),
            "output": result.cpu().tolist(),
        }
    return out
