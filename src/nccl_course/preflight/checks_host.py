"""Host limits that containers get wrong: the size of /dev/shm and the locked-memory limit."""

from __future__ import annotations

from nccl_course.preflight.check import Finding, fail, not_applicable, ok, warn
from nccl_course.preflight.context import Context
from nccl_course.units import format_size

SHM_PATH = "/dev/shm"
# NCCL's SHM transport and PyTorch's DataLoader workers allocate their buffers in /dev/shm.
# Docker gives a container 64 MiB unless told otherwise, which NCCL outgrows with a few GPUs
# (NVIDIA/nccl#342: "posix_fallocate failed: No space left on device"); 1 GiB is the floor.
SHM_MIN_BYTES = 1 << 30
SHM_FIX = (
    "restart the container with --shm-size=16g (or --ipc=host); on Kubernetes mount an emptyDir "
    "with medium: Memory at /dev/shm"
)

# RDMA registers (pins) every buffer it sends from. NCCL's troubleshooting guide asks for an
# unlimited memlock limit; below 64 MiB ibv_reg_mr fails as soon as NCCL allocates its buffers.
MEMLOCK_MIN_BYTES = 64 << 20
MEMLOCK_FIX = (
    "run the container with --ulimit memlock=-1 (or set '* - memlock unlimited' in "
    "/etc/security/limits.conf and log in again)"
)


def shm(ctx: Context) -> Finding:
    stats = ctx.probe.statvfs(SHM_PATH)
    if stats is None:
        return not_applicable(f"no {SHM_PATH} on this system")
    size = stats.total_bytes
    found = f"{SHM_PATH} is {format_size(size)} ({format_size(stats.free_bytes)} free)"
    if size >= SHM_MIN_BYTES:
        return ok(found)
    if ctx.gpu_count > 1:
        return fail(f"{found}: NCCL needs at least 1 GiB for {ctx.gpu_count} GPUs", SHM_FIX)
    return warn(f"{found}: less than 1 GiB (DataLoader workers and NCCL use it)", SHM_FIX)


def memlock(ctx: Context) -> Finding:
    limit = ctx.probe.memlock_limit()
    shown = "unlimited" if limit is None else format_size(limit)
    devices = ", ".join(str(d) for d in ctx.rdma)
    if not ctx.rdma:
        return not_applicable(f"ulimit -l is {shown}; no RDMA device, so nothing is pinned")
    if limit is None:
        return ok(f"ulimit -l is unlimited for RDMA devices {devices}")
    if limit < MEMLOCK_MIN_BYTES:
        return fail(
            f"ulimit -l is {shown} with RDMA devices {devices}: NCCL cannot register its buffers",
            MEMLOCK_FIX,
        )
    return warn(
        f"ulimit -l is {shown} with RDMA devices {devices}: large jobs can run out", MEMLOCK_FIX
    )
