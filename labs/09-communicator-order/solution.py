"""Lab 09 (solution): collectives on two communicators, in one order.

Each process group is its own communicator: on NCCL, its own CUDA stream too. The n-th
collective of one group on every rank forms one operation, but nothing matches calls *across*
groups. When rank 0 all-reduces on group "grads" and then on "metrics" while rank 1 does
"metrics" first, each rank waits inside one group's collective for a peer that is waiting inside
the other's: a deadlock (NCCL 2.x and gloo alike). A short group timeout turns it into an error;
the fix is one order of collectives across groups that every rank follows.

Run it:  torchrun --nproc-per-node 2 labs/09-communicator-order/solution.py
    or:  python labs/09-communicator-order/solution.py --nproc 2      (gloo on CPU without GPUs)
"""

from __future__ import annotations

import datetime
import re
import time
from collections.abc import Sequence

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main

#: Seconds a collective on the lab's groups may wait before it raises (gloo) or the watchdog
#: acts (NCCL): short, so a deadlock becomes an error in seconds instead of 10 or 30 minutes.
GROUP_TIMEOUT_S = 4.0


def make_groups(names: Sequence[str], timeout_s: float = GROUP_TIMEOUT_S) -> dict:
    """One process group over all ranks per name, with a ``timeout_s`` (seconds) timeout.

    Creating a group is itself collective: every rank must create the same groups in the same
    order, so they are created in sorted name order whatever order ``names`` comes in.
    """
    timeout = datetime.timedelta(seconds=timeout_s)
    return {name: dist.new_group(timeout=timeout) for name in sorted(set(names))}


# --- step 1: one order for every rank ------------------------------------------------------------


def agreed_order(calls: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The order in which to issue ``calls``, a rank's (group name, label) pairs in the order its
    code produced them. Every rank that passes the same calls, in whatever order across groups,
    gets the same list: groups in sorted name order, and inside one group the calls in the
    order given (a group's calls are already matched by position, and reordering them would
    hold back the one that was ready first)."""
    return sorted(calls, key=lambda call: call[0])


# --- step 2: issue the collectives in that order -------------------------------------------------


def reduce_in_order(groups: dict, pending: Sequence[tuple[str, str, torch.Tensor]]) -> dict:
    """All-reduce (sum) each pending tensor on its group; return {label: tensor}.

    ``pending`` lists (group name, label, tensor) in this rank's program order, which may differ
    from another rank's across groups. The tensors are summed in place.
    """
    tensors = {(name, label): tensor for name, label, tensor in pending}
    for name, label in agreed_order(list(tensors)):
        dist.all_reduce(tensors[(name, label)], group=groups[name])
    return {label: tensor for (_name, label), tensor in tensors.items()}


# --- demonstrations ------------------------------------------------------------------------------


def program_order(rank: int) -> list[tuple[str, str]]:
    """Where each rank's code reaches its reductions: backward produces layer 1's gradient before
    layer 0's; odd ranks finished their batch early and log the loss first."""
    grads = [("grads", "layer1"), ("grads", "layer0")]
    loss = [("metrics", "loss")]
    return loss + grads if rank % 2 else grads + loss


def _pending(rank: int) -> list[tuple[str, str, torch.Tensor]]:
    dev = device()
    return [
        (name, label, torch.full((4,), float(rank + 1), device=dev))
        for name, label in program_order(rank)
    ]


def main() -> None:
    """The deadlock, cut short by the group timeout, then the fix."""
    rank, world = dist.get_rank(), dist.get_world_size()
    say = print if rank == 0 else (lambda *a, **k: None)
    say(f"{world} ranks, backend {dist.get_backend()}, group timeout {GROUP_TIMEOUT_S:g} s")
    for r in range(min(world, 2)):
        say(f"rank {r} reaches its reductions in this order: {program_order(r)}")

    # Each rank in its own program order: the ranks wait for each other in different groups.
    groups = make_groups(["grads", "metrics"])
    start = time.monotonic()
    where = None
    try:
        for name, label, tensor in _pending(rank):
            where = f"all_reduce of {label!r} on group {name!r}"
            dist.all_reduce(tensor, group=groups[name])
        outcome = "finished (the ranks happened to agree)"
    except RuntimeError as exc:
        gloo_says = re.sub(r"^\[[^]]*\] ", "", str(exc).splitlines()[0])[:70]
        outcome = f"deadlock caught in the {where} ({gloo_says})"
    print(f"rank {rank}, program order: {outcome} after {time.monotonic() - start:.1f} s")

    # The agreed order, on fresh groups (a group whose collective timed out is not reused).
    dist.barrier()
    groups = make_groups(["metrics", "grads"])
    start = time.monotonic()
    result = reduce_in_order(groups, _pending(rank))
    want = world * (world + 1) / 2
    say(
        f"agreed order {agreed_order(program_order(rank))}: finished after "
        f"{time.monotonic() - start:.2f} s; loss sum {result['loss'][0].item():g} (want {want:g})"
    )


if __name__ == "__main__":
    script_main(main)
