"""torch.distributed helpers for the labs, notebooks, tests and the benchmark harness.

- :func:`init` / :func:`destroy` / :func:`device`: pick the backend and device the way a real
  job does (NCCL with one GPU per process when there are enough GPUs, else gloo on CPU) and make
  sure the process group is always torn down.
- :func:`launch`: run a function on N local processes, each with the environment ``torchrun``
  would give it, and return what each rank returned. It never hangs: a rank that does not finish
  in time is killed and reported, with the Python stack it was stuck in.
- :func:`script_main`: the ``if __name__ == "__main__"`` body of a lab file, so the same file runs
  under ``torchrun`` (one process per rank) or as ``python file.py --nproc 4``.

Importing this package does not import torch; the functions do, when called.
"""

from nccl_course.launcher.failures import LaunchTimeout, WorkerError
from nccl_course.launcher.launch import launch, script_main
from nccl_course.launcher.ports import free_port
from nccl_course.launcher.process_group import (
    DEFAULT_TIMEOUT_S,
    choose_backend,
    destroy,
    device,
    init,
    process_group,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "LaunchTimeout",
    "WorkerError",
    "choose_backend",
    "destroy",
    "device",
    "free_port",
    "init",
    "launch",
    "process_group",
    "script_main",
]
