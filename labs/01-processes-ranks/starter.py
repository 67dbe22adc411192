"""Lab 01, starter: processes, ranks and process groups. Fill in the TODOs, in order.

Check your work: ``nccl-course lab check 01``.

Run: ``nccl-course lab run 01 --nproc 4`` or
``torchrun --nproc-per-node 4 labs/01-processes-ranks/starter.py``.
"""

from __future__ import annotations

import os  # noqa: F401  (you will need it in step 1)

import torch  # noqa: F401  (you will need it in step 3)
import torch.distributed as dist

from nccl_course.launcher import device, script_main


# Step 1 ----------------------------------------------------------------------------------------
def whoami() -> dict:
    """This process's place in the job, as torchrun and the process group describe it."""
    # TODO(step 1): return a dict with keys rank, world_size (from torch.distributed),
    # local_rank, local_world_size (ints, from the environment torchrun sets), backend
    # (dist.get_backend()) and pid (os.getpid()).
    raise NotImplementedError("TODO(step 1): report rank, world_size, local_rank, ... in whoami()")


# Step 2 ----------------------------------------------------------------------------------------
def node_and_local_rank(rank: int, nproc_per_node: int) -> tuple[int, int]:
    """The node and the local rank of global ``rank`` when every node runs ``nproc_per_node``
    processes and ranks are numbered node by node (as torchrun does with a static rendezvous)."""
    # TODO(step 2): ranks 0..nproc_per_node-1 are node 0, the next nproc_per_node are node 1, ...
    raise NotImplementedError("TODO(step 2): compute (node, local_rank) from rank")


# Step 3 ----------------------------------------------------------------------------------------
def parity_groups() -> dict:
    """Split the world into the even ranks and the odd ranks, and all-reduce each rank's number
    inside its own group.

    ``new_group`` is itself a collective over the whole world: every rank must create every
    group, in the same order, even the groups it is not a member of.
    """
    # TODO(step 3): build the list of even ranks and the list of odd ranks; create a group for
    # each with dist.new_group (on EVERY rank, same order; skip an empty list); all-reduce a
    # tensor holding this rank's number inside this rank's group only (group=...); return
    # {"group": "even"|"odd", "members": [...], "rank_in_group": dist.get_rank(group),
    #  "group_size": dist.get_world_size(group), "sum_of_ranks": int}.
    raise NotImplementedError("TODO(step 3): create the even and odd groups, all-reduce in yours")


# Step 4 ----------------------------------------------------------------------------------------
def device_for(local_rank: int, gpu_count: int) -> str:
    """The device a process with ``local_rank`` should use on a node with ``gpu_count`` GPUs:
    ``"cuda:<local_rank>"``, or ``"cpu"`` when the node has no GPU. A local rank without a GPU
    of its own is an error: NCCL refuses two ranks on one GPU ("Duplicate GPU detected" up to
    NCCL 2.29, "Multiple Ranks are using the same GPU/Partition" in 2.30)."""
    # TODO(step 4a): "cpu" without GPUs; "cuda:<local_rank>" when that GPU exists; otherwise
    # raise ValueError saying how many processes per node this node can take.
    raise NotImplementedError("TODO(step 4a): choose the device for a local rank")


def duplicate_devices(placements: list[tuple[str, str]]) -> dict[str, list[int]]:
    """Given each rank's (host, device) in rank order, the GPUs used by more than one rank, as
    ``{"host/cuda:N": [ranks...]}``. CPU placements never clash (gloo ranks share the CPU)."""
    # TODO(step 4b): group the ranks by "host/device" for CUDA devices only and keep the
    # entries used by more than one rank.
    raise NotImplementedError("TODO(step 4b): find GPUs shared by several ranks")


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
