"""Rank bodies for test_placement.py: each is what a lab might write, placed right or wrong."""

from __future__ import annotations

import torch
import torch.distributed as dist

from nccl_course.launcher import device


def reduce_unplaced_result() -> list[float]:
    """Lab 05's old mistake: a tensor built from Python numbers without device=."""
    medians = torch.tensor([0.5, 0.25], dtype=torch.float64)
    dist.all_reduce(medians, op=dist.ReduceOp.MAX)
    return medians.tolist()


def reduce_moved_back_to_cpu() -> None:
    t = torch.ones(2, device=device()).cpu()
    dist.all_reduce(t)


def gather_into_unplaced_list() -> None:
    dev = device()
    mine = torch.ones(2, device=dev)
    out = [torch.empty(2) for _ in range(dist.get_world_size())]  # receive buffers on the CPU
    dist.all_gather(out, mine)


def send_unplaced_in_a_batch() -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    buf = torch.zeros(3)
    ops = [
        dist.P2POp(dist.isend, torch.ones(3, device=device()), (rank + 1) % world),
        dist.P2POp(dist.irecv, buf, (rank - 1) % world),
    ]
    for work in dist.batch_isend_irecv(ops):
        work.wait()


def placed_idioms() -> list[float]:
    """Everything here is on the rank's device under NCCL too, so nothing may be refused."""
    dev = device()
    total = torch.tensor([1.0, 2.0], device=dev)
    dist.all_reduce(total)
    moved = torch.zeros(3).to(dev) + 1  # built on the CPU, then moved: fine
    dist.all_reduce(moved)
    derived = (total * 2).sum().reshape(1)  # computed from a placed tensor
    dist.all_reduce(derived)
    seeded = torch.randn(4, generator=torch.Generator().manual_seed(0)).to(dev)
    dist.broadcast(seeded, src=0)
    like = torch.zeros_like(total)
    dist.all_reduce(like)
    model = torch.nn.Linear(2, 2).to(dev)
    for param in model.parameters():
        dist.all_reduce(param.data)
    objects = [None] * dist.get_world_size()
    dist.all_gather_object(objects, {"rank": dist.get_rank()})  # torch picks the device itself
    cpu_group = dist.new_group(backend="gloo")  # a CPU group by design: exempt
    counts = torch.tensor([3])
    dist.all_reduce(counts, group=cpu_group)
    rank, world = dist.get_rank(), dist.get_world_size()
    received = torch.zeros(2, device=dev)
    ops = [
        dist.P2POp(dist.isend, total.clone(), (rank + 1) % world),
        dist.P2POp(dist.irecv, received, (rank - 1) % world),
    ]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    return total.tolist() + [float(derived), float(counts)] + received.tolist()
