"""Workers the lab 07 tests launch: run the learner's dispatch / combine on scenarios with uneven,
empty and one-sided splits, and return plain lists; the tests rebuild the reference on one
process."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module

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
        sent = _attempt(_send_counts, lab, dest, world)
        received = _attempt(_exchanged, lab, _counts(dest, world))
        dispatched = _attempt(_dispatched, lab, tokens.to(dev), ids.to(dev))
        output = _attempt(_output, lab, tokens.to(dev), ids.to(dev), mine)
        out[name] = {"sent": sent, "received": received, "dispatched": dispatched, "output": output}
    return out


def _counts(dest: torch.Tensor, world: int) -> list[int]:
    """Our own counts, so exchange_counts is checked even when send_counts is not done yet."""
    return [int((dest == j).sum()) for j in range(world)]


def _send_counts(lab, dest, world) -> list[int]:
    return [int(c) for c in lab.send_counts(dest, world)]


def _exchanged(lab, counts) -> list[int]:
    return [int(c) for c in lab.exchange_counts(counts)]


def _output(lab, tokens, ids, experts) -> list:
    return lab.moe_forward(tokens, ids, EXPERTS_PER_RANK, experts).cpu().tolist()


def _dispatched(lab, tokens, ids) -> dict:
    got_tokens, local_ids, _plan = lab.dispatch(tokens, ids, EXPERTS_PER_RANK)
    return {"tokens": got_tokens.cpu().tolist(), "local_ids": local_ids.cpu().tolist()}


def _attempt(fn, *args) -> dict:
    """Run one part; keep going when it raises, so each test reports its own step. (Every rank
    raises the same TODO error at the same point, so no rank is left waiting.)"""
    try:
        return {"value": fn(*args), "error": None}
    except Exception as exc:
        return {"value": None, "error": f"{type(exc).__name__}: {exc}"}
