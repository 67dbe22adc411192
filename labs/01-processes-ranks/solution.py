"""Lab 01, reference solution: processes, ranks and process groups.

Run: ``nccl-course lab run 01 --solution --nproc 4`` or
``torchrun --nproc-per-node 4 labs/01-processes-ranks/solution.py``.
"""

from __future__ import annotations

import os

import torch
import torch.distributed as dist

from nccl_course.launcher import device, script_main


# Step 1 ----------------------------------------------------------------------------------------
def whoami() -> dict:
    """This process's place in the job, as torchrun and the process group describe it."""
    return {
        "rank": dist.get_rank(),
        "world_size": dist.get_world_size(),
        "local_rank": int(os.environ["LOCAL_RANK"]),
        "local_world_size": int(os.environ["LOCAL_WORLD_SIZE"]),
        "backend": dist.get_backend(),
        "pid": os.getpid(),
    }


# Step 2 ----------------------------------------------------------------------------------------
def node_and_local_rank(rank: int, nproc_per_node: int) -> tuple[int, int]:
    """The node and the local rank of global ``rank`` when every node runs ``nproc_per_node``
    processes and ranks are numbered node by node (as torchrun does with a static rendezvous)."""
    if nproc_per_node < 1 or rank < 0:
        raise ValueError("rank must be >= 0 and nproc_per_node >= 1")
    return rank // nproc_per_node, rank % nproc_per_node


# Step 3 ----------------------------------------------------------------------------------------
def parity_groups() -> dict:
    """Split the world into the even ranks and the odd ranks, and all-reduce each rank's number
    inside its own group.

    ``new_group`` is itself a collective over the whole world: every rank must create every
    group, in the same order, even the groups it is not a member of.
    """
    world = dist.get_world_size()
    evens = list(range(0, world, 2))
    odds = list(range(1, world, 2))
    groups = {"even": dist.new_group(evens)}
    # With one rank there are no odd ranks; new_group([]) would be an error.
    if odds:
        groups["odd"] = dist.new_group(odds)
    mine = "even" if dist.get_rank() % 2 == 0 else "odd"
    group = groups[mine]
    value = torch.tensor([dist.get_rank()], dtype=torch.int64, device=device())
    dist.all_reduce(value, group=group)
    return {
        "group": mine,
        "members": evens if mine == "even" else odds,
        "rank_in_group": dist.get_rank(group),
        "group_size": dist.get_world_size(group),
        "sum_of_ranks": int(value.item()),
    }


# Step 4 ----------------------------------------------------------------------------------------
def device_for(local_rank: int, gpu_count: int) -> str:
    """The device a process with ``local_rank`` should use on a node with ``gpu_count`` GPUs:
    ``"cuda:<local_rank>"``, or ``"cpu"`` when the node has no GPU. A local rank without a GPU
    of its own is an error: NCCL refuses two ranks on one GPU ("Duplicate GPU detected" up to
    NCCL 2.29, "Multiple Ranks are using the same GPU/Partition" in 2.30)."""
    if gpu_count == 0:
        return "cpu"
    if not 0 <= local_rank < gpu_count:
        raise ValueError(
            f"local rank {local_rank} has no GPU of its own on a node with {gpu_count} GPU(s): "
            f"start at most {gpu_count} processes per node"
        )
    return f"cuda:{local_rank}"


def duplicate_devices(placements: list[tuple[str, str]]) -> dict[str, list[int]]:
    """Given each rank's (host, device) in rank order, the GPUs used by more than one rank, as
    ``{"host/cuda:N": [ranks...]}``. CPU placements never clash (gloo ranks share the CPU)."""
    users: dict[str, list[int]] = {}
    for rank, (host, dev) in enumerate(placements):
        if dev.startswith("cuda"):
            users.setdefault(f"{host}/{dev}", []).append(rank)
    return {key: ranks for key, ranks in users.items() if len(ranks) > 1}


def placements() -> list[tuple[str, str]]:
    """Every rank's (host, device), gathered on every rank."""
    import socket

    mine = (socket.gethostname(), str(device()))
    gathered: list = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, mine)
    return [tuple(p) for p in gathered]


def main() -> None:
    """Print who is who, the parity groups and the device placement from rank 0."""
    me = whoami()
    everyone: list = [None] * me["world_size"]
    dist.all_gather_object(everyone, me)
    groups = parity_groups()
    group_view: list = [None] * me["world_size"]
    dist.all_gather_object(group_view, groups)
    where = placements()
    if me["rank"] == 0:
        print(f"{me['world_size']} ranks on backend {me['backend']}")
        for info, grp, (host, dev) in zip(everyone, group_view, where, strict=True):
            node, local = node_and_local_rank(info["rank"], info["local_world_size"])
            print(
                f"rank {info['rank']}: pid {info['pid']}, node {node}, local rank {local}, "
                f"{host} {dev}, {grp['group']} group rank {grp['rank_in_group']} "
                f"(sum of its ranks {grp['sum_of_ranks']})"
            )
        clashes = duplicate_devices(where)
        print("duplicate GPUs:", clashes or "none")


if __name__ == "__main__":
    script_main(main)
