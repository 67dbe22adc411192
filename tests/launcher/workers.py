"""Worker functions the launcher tests run on several ranks (a file, as lab files are)."""

import os

import torch
import torch.distributed as dist

from nccl_course.launcher import device, init


def report(offset):
    """Every rank's view of the job, and an all-reduce that needs all of them."""
    value = torch.tensor([float(dist.get_rank() + offset)], device=device())
    dist.all_reduce(value)
    return {
        "rank": dist.get_rank(),
        "world_size": dist.get_world_size(),
        "env": {k: os.environ[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE")},
        "master_addr": os.environ["MASTER_ADDR"],
        "backend": dist.get_backend(),
        "init_again": init(),
        "device": str(device()),
        "sum": value.item(),
    }


def fail_on_rank(bad_rank):
    if dist.get_rank() == bad_rank:
        raise ValueError(f"rank {bad_rank} cannot go on")
    dist.barrier()
    return dist.get_rank()


def recv_from_next():
    """Every rank receives first: nobody ever sends, a classic deadlock."""
    buffer = torch.zeros(1)
    dist.recv(buffer, src=(dist.get_rank() + 1) % dist.get_world_size())
    return buffer.item()


def exit_silently():
    if dist.get_rank() == 1:
        os._exit(3)
    return dist.get_rank()


def unpicklable():
    return lambda: None


def where_am_i(name):
    """What the rank sees of the caller's state at the launch: a variable, the folder, threads."""
    import torch

    return {
        "variable": os.environ.get(name),
        "cwd": os.getcwd(),
        "threads": torch.get_num_threads(),
        "pid": os.getpid(),
    }
