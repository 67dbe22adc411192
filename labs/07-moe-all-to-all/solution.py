"""Lab 07 (solution): mixture-of-experts token dispatch with all-to-all and uneven splits.

Each rank holds some tokens and some experts. A router picks one expert per token; tokens travel
to the rank that owns their expert (all-to-all with per-destination counts, which differ from rank
to rank and step to step), the experts are applied there, and the results travel back
(all-to-all with the counts swapped) to their original positions.

Run it:  torchrun --nproc-per-node 4 labs/07-moe-all-to-all/solution.py
    or:  python labs/07-moe-all-to-all/solution.py --nproc 4      (gloo on CPU without GPUs)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main


def send_counts(dest_ranks: torch.Tensor, world_size: int) -> list[int]:
    """How many tokens go to each rank: ``counts[j]`` = number of entries equal to j."""
    if dest_ranks.numel() and (dest_ranks.min() < 0 or dest_ranks.max() >= world_size):
        raise ValueError(f"destination ranks must be in [0, {world_size}), got {dest_ranks}")
    return torch.bincount(dest_ranks.cpu(), minlength=world_size).tolist()


def exchange_counts(counts: list[int], group=None) -> list[int]:
    """Tell every rank how many tokens it will receive from each rank: an all-to-all of one
    integer per pair. ``received[i]`` = what rank i sends to this rank."""
    dev = device()
    send = torch.tensor(counts, dtype=torch.int64, device=dev)
    recv = torch.empty_like(send)
    dist.all_to_all_single(recv, send, group=group)
    # .tolist() copies to the host: on a GPU this waits for the exchange (a sync point that
    # real MoE implementations work hard to hide).
    return recv.tolist()


@dataclass
class DispatchPlan:
    """What ``combine`` needs to send results back: the permutation that sorted this rank's
    tokens by destination and the counts in both directions."""

    order: torch.Tensor
    sent: list[int]
    received: list[int]


def dispatch(tokens: torch.Tensor, expert_ids: torch.Tensor, experts_per_rank: int, group=None):
    """Send every token (and its expert id) to the rank that owns its expert.

    Returns (received tokens, their expert ids local to this rank, plan). Tokens from rank 0
    come first, then rank 1's, each in their sender's order.
    """
    world = dist.get_world_size(group)
    dest = torch.div(expert_ids, experts_per_rank, rounding_mode="floor")
    # A stable sort keeps tokens bound for the same rank in their original order.
    order = torch.argsort(dest, stable=True)
    sent = send_counts(dest, world)
    received = exchange_counts(sent, group)
    out_tokens = tokens.new_empty((sum(received), tokens.shape[1]))
    dist.all_to_all_single(
        out_tokens,
        tokens[order].contiguous(),
        output_split_sizes=received,
        input_split_sizes=sent,
        group=group,
    )
    out_ids = expert_ids.new_empty(sum(received))
    dist.all_to_all_single(
        out_ids,
        expert_ids[order].contiguous(),
        output_split_sizes=received,
        input_split_sizes=sent,
        group=group,
    )
    return out_tokens, out_ids % experts_per_rank, DispatchPlan(order, sent, received)


def apply_experts(tokens: torch.Tensor, local_ids: torch.Tensor, experts) -> torch.Tensor:
    """Apply local expert k (a pair (W, b): y = x @ W + b) to the tokens routed to it, one
    matrix multiply per expert."""
    out = torch.empty_like(tokens)
    for k, (weight, bias) in enumerate(experts):
        rows = (local_ids == k).nonzero(as_tuple=True)[0]
        if rows.numel():
            out[rows] = tokens[rows] @ weight + bias
    return out


def combine(results: torch.Tensor, plan: DispatchPlan, group=None) -> torch.Tensor:
    """Send results back (the counts swap roles) and undo the sort by destination."""
    back = results.new_empty((sum(plan.sent), results.shape[1]))
    dist.all_to_all_single(
        back,
        results.contiguous(),
        output_split_sizes=plan.sent,
        input_split_sizes=plan.received,
        group=group,
    )
    out = torch.empty_like(back)
    out[plan.order] = back
    return out


def moe_forward(tokens, expert_ids, experts_per_rank: int, local_experts, group=None):
    """The expert part of an MoE layer: dispatch, apply this rank's experts, combine."""
    received, local_ids, plan = dispatch(tokens, expert_ids, experts_per_rank, group)
    return combine(apply_experts(received, local_ids, local_experts), plan, group)


# --- data for main(): values on a grid of 1/8, so every product is exact ---------------------


def route(tokens: torch.Tensor, router_weight: torch.Tensor) -> torch.Tensor:
    """Top-1 routing: the expert with the largest score (ties go to the lower index).
    Real MoE layers also scale the output by the router's probability; that is a local
    multiply, left out here so the comparison stays exact."""
    return torch.argmax(tokens @ router_weight, dim=1)


def make_experts(num_experts: int, dim: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return [
        (
            torch.randint(-4, 5, (dim, dim), generator=gen).to(torch.float64) / 8,
            torch.randint(-4, 5, (dim,), generator=gen).to(torch.float64) / 8,
        )
        for _ in range(num_experts)
    ]


def make_tokens(rank: int, count: int, dim: int):
    gen = torch.Generator().manual_seed(500 + rank)
    return torch.randint(-8, 9, (count, dim), generator=gen).to(torch.float64) / 8


def main() -> None:
    """Route uneven numbers of tokens to experts on all ranks and back; check on one rank."""
    dev = device()
    rank, world = dist.get_rank(), dist.get_world_size()
    dim, experts_per_rank = 8, 2
    num_experts = experts_per_rank * world
    experts = make_experts(num_experts, dim)
    router = torch.Generator().manual_seed(1)
    router_weight = torch.randint(-4, 5, (dim, num_experts), generator=router).double() / 8
    count = 16 + 5 * rank  # ranks hold different numbers of tokens
    tokens = make_tokens(rank, count, dim)
    expert_ids = route(tokens, router_weight)
    mine = [
        (w.to(dev), b.to(dev)) for w, b in experts[rank * experts_per_rank :][:experts_per_rank]
    ]
    out = moe_forward(tokens.to(dev), expert_ids.to(dev), experts_per_rank, mine)
    want = torch.stack(
        [tokens[i] @ experts[e][0] + experts[e][1] for i, e in enumerate(expert_ids)]
    )
    dest = torch.div(expert_ids, experts_per_rank, rounding_mode="floor")
    sent = send_counts(dest, world)
    table = torch.tensor(sent, device=dev)
    rows = [torch.empty_like(table) for _ in range(world)]
    dist.all_gather(rows, table)
    same = torch.tensor([int(torch.equal(out.cpu(), want))], device=dev)
    dist.all_reduce(same, op=dist.ReduceOp.MIN)
    if rank == 0:
        print(
            f"{world} ranks, {num_experts} experts ({experts_per_rank} per rank), backend "
            f"{dist.get_backend()}"
        )
        print("tokens sent from rank i (row) to rank j (column):")
        for i, row in enumerate(rows):
            print(f"  rank {i}: {row.tolist()}")
        print("every rank's output equals the single-process reference:", bool(same.item()))


if __name__ == "__main__":
    script_main(main)
