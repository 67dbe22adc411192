"""Backend and device choice, process-group set-up and teardown (torch.distributed, PyTorch 2.x).

The rules a real job follows, written once:

- NCCL runs on GPUs only, one GPU per process. Each process must select its GPU with
  ``torch.cuda.set_device(LOCAL_RANK)`` *before* creating the process group; forgetting it puts
  every rank on cuda:0 and NCCL refuses ("Duplicate GPU detected" up to NCCL 2.29, "Multiple
  Ranks are using the same GPU/Partition" in 2.30; pytorch#68666).
- ``init_process_group(device_id=...)`` binds the group to that GPU and creates the NCCL
  communicator eagerly, so a broken set-up fails at start rather than at the first collective.
- gloo runs on CPU tensors and is what every lab uses on a machine without enough GPUs.
- PyTorch's default group timeout is 10 minutes for NCCL and 30 for other backends: far too long
  for a lab, so :func:`init` takes a timeout in seconds (default :data:`DEFAULT_TIMEOUT_S`).
- ``destroy_process_group()`` must run at exit (PyTorch 2.4+ warns otherwise, pytorch#126275).
"""

from __future__ import annotations

import contextlib
import datetime
import os
from collections.abc import Iterator

from nccl_course.launcher.ports import free_port

#: Group timeout in seconds when none is given: long enough for a 1 GiB gloo all-reduce on a
#: laptop, short enough that a mismatched collective fails in minutes rather than half an hour.
DEFAULT_TIMEOUT_S = 300.0

BACKENDS = ("nccl", "gloo")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name}={value!r} is not an integer") from None


def choose_backend(local_world_size: int | None = None) -> str:
    """``"nccl"`` when this machine has at least ``local_world_size`` CUDA GPUs and torch was built
    with NCCL, else ``"gloo"``.

    ``local_world_size`` is the number of processes on this machine (default: the environment
    variable LOCAL_WORLD_SIZE that torchrun sets, else 1).
    """
    import torch
    import torch.distributed as dist

    if local_world_size is None:
        local_world_size = _env_int("LOCAL_WORLD_SIZE", 1)
    if (
        torch.cuda.is_available()
        and dist.is_nccl_available()
        and torch.cuda.device_count() >= local_world_size
    ):
        return "nccl"
    return "gloo"


def init(backend: str | None = None, timeout_s: float | None = None) -> str:
    """Initialise the default process group from the torchrun environment; return the backend.

    Reads RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT. Without
    them (a plain ``python`` process) it makes a group of one rank on 127.0.0.1, so code written
    for N ranks also runs alone. ``backend=None`` picks with :func:`choose_backend`. For NCCL it
    selects ``cuda:LOCAL_RANK`` first and passes ``device_id`` so the communicator is created
    now. ``timeout_s`` (seconds, default :data:`DEFAULT_TIMEOUT_S`) bounds every collective: a
    rank waiting longer raises instead of hanging. Calling it again in an initialised process
    returns the backend in use.
    """
    import torch
    import torch.distributed as dist

    if dist.is_initialized():
        return dist.get_backend()
    if "RANK" not in os.environ:
        # A lone process: a world of one, so the lab code runs without a launcher.
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        os.environ.setdefault("LOCAL_RANK", "0")
        os.environ.setdefault("LOCAL_WORLD_SIZE", "1")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(free_port()))
    rank = _env_int("RANK", 0)
    world_size = _env_int("WORLD_SIZE", 1)
    local_rank = _env_int("LOCAL_RANK", 0)
    local_world_size = _env_int("LOCAL_WORLD_SIZE", world_size)
    if backend is None:
        backend = choose_backend(local_world_size)
    backend = backend.lower()
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: use 'nccl' (GPUs) or 'gloo' (CPU)")
    timeout = datetime.timedelta(seconds=DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s)
    if backend == "nccl":
        if not torch.cuda.is_available():
            raise RuntimeError(
                "backend 'nccl' needs CUDA GPUs and this torch sees none: use backend='gloo' "
                "(or leave backend unset to choose automatically)"
            )
        if local_rank >= torch.cuda.device_count():
            raise RuntimeError(
                f"LOCAL_RANK {local_rank} has no GPU: this machine has "
                f"{torch.cuda.device_count()} GPU(s); start at most that many processes per node"
            )
        # Select the GPU before the group exists: NCCL binds the communicator to it.
        torch.cuda.set_device(local_rank)
        dist.init_process_group(
            "nccl",
            rank=rank,
            world_size=world_size,
            timeout=timeout,
            device_id=torch.device("cuda", local_rank),
        )
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=timeout)
    return backend


def device():
    """The torch.device this rank computes on: ``cuda:LOCAL_RANK`` under NCCL, else ``cpu``."""
    import torch
    import torch.distributed as dist

    if dist.is_initialized():
        uses_cuda = dist.get_backend() == "nccl"
    else:
        uses_cuda = choose_backend() == "nccl"
    if uses_cuda:
        return torch.device("cuda", _env_int("LOCAL_RANK", 0))
    return torch.device("cpu")


def destroy() -> None:
    """Destroy the default process group if there is one (safe to call twice)."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


@contextlib.contextmanager
def process_group(backend: str | None = None, timeout_s: float | None = None) -> Iterator[str]:
    """``with process_group() as backend:`` initialises the group and always destroys it."""
    chosen = init(backend=backend, timeout_s=timeout_s)
    try:
        yield chosen
    finally:
        destroy()
