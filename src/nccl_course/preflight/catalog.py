"""The pre-flight checks, in report order: id, title, one line of help, and the function.

This table is the one list of check ids (``CHECK_IDS``); the ids are stable, the book and other
commands refer to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nccl_course.preflight import checks_gpu, checks_host, checks_nccl, checks_network
from nccl_course.preflight.check import Finding
from nccl_course.preflight.context import Context


@dataclass(frozen=True)
class CheckInfo:
    id: str
    title: str
    help: str
    run: Callable[[Context], Finding]


CATALOG: tuple[CheckInfo, ...] = (
    CheckInfo(
        "shm",
        "/dev/shm size",
        "/dev/shm holds NCCL's SHM buffers: at least 1 GiB (Docker's default is 64 MiB)",
        checks_host.shm,
    ),
    CheckInfo(
        "memlock",
        "locked memory limit",
        "ulimit -l must be unlimited (or large) when RDMA devices pin NCCL's buffers",
        checks_host.memlock,
    ),
    CheckInfo(
        "net_interface",
        "network interface",
        "the default-route interface, virtual ones, and what NCCL_SOCKET_IFNAME selects",
        checks_network.net_interface,
    ),
    CheckInfo(
        "rdma",
        "RDMA devices and plugin",
        "InfiniBand/RoCE/EFA devices, /dev/infiniband, and the NCCL net plugin EFA needs",
        checks_network.rdma,
    ),
    CheckInfo(
        "nccl_transport",
        "NCCL transports (log)",
        "with --nccl-log: fails when NCCL used TCP sockets although RDMA exists, warns on SHM",
        checks_nccl.nccl_transport,
    ),
    CheckInfo(
        "gpu_p2p",
        "GPU peer access",
        "nvidia-smi topo -p2p r: every GPU pair should say OK (VMs often block it)",
        checks_gpu.gpu_p2p,
    ),
    CheckInfo(
        "gpus_visible",
        "GPUs visible to torch",
        "torch must see every GPU nvidia-smi lists (CPU wheel, old driver, fabric manager)",
        checks_gpu.gpus_visible,
    ),
    CheckInfo(
        "cuda_driver",
        "CUDA of torch vs driver",
        "torch's CUDA major version must not be newer than the driver's",
        checks_gpu.cuda_driver,
    ),
    CheckInfo(
        "nccl_version",
        "NCCL version",
        "the NCCL torch loads (a container's NCCL_VERSION variable is only the image's label)",
        checks_gpu.nccl_version,
    ),
    CheckInfo(
        "nccl_conf",
        "NCCL config files",
        "settings in /etc/nccl.conf and ~/.nccl.conf, and those the environment overrides",
        checks_nccl.nccl_conf,
    ),
    CheckInfo(
        "rendezvous",
        "rendezvous reachable",
        "with --master or MASTER_ADDR/MASTER_PORT: a TCP connect within 3 s",
        checks_network.rendezvous,
    ),
)

CHECK_IDS: tuple[str, ...] = tuple(info.id for info in CATALOG)
