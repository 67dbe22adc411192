"""shm and memlock on captured outputs: Docker's default /dev/shm and memlock limit."""

from __future__ import annotations

import re

from nccl_course.preflight import FsStats
from nccl_course.preflight.checks_host import memlock, shm
from nccl_course.preflight.context import Context


def df_stats(df_output: str) -> FsStats:
    """`df /dev/shm` (1K-blocks) as statvfs numbers."""
    cols = df_output.splitlines()[1].split()
    return FsStats(block_size=1024, blocks=int(cols[1]), blocks_free=int(cols[3]))


def eight_gpus() -> dict:
    listing = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n" for i in range(8))
    return {("nvidia-smi", "-L"): listing}


def test_docker_default_shm_fails_with_several_gpus(captured, fake_probe):
    stats = df_stats(captured("df_dev_shm_docker_default.txt"))
    assert stats.total_bytes == 64 * 2**20
    probe = fake_probe(fs={"/dev/shm": stats}, commands=eight_gpus())
    found = shm(Context(probe))
    assert found.status == "fail"
    assert found.detail == "/dev/shm is 64 MiB (64 MiB free): NCCL needs at least 1 GiB for 8 GPUs"
    assert (
        "--shm-size=16g" in found.fix
        and "--ipc=host" in found.fix
        and "medium: Memory" in found.fix
    )


def test_docker_default_shm_warns_without_gpus(captured, fake_probe):
    probe = fake_probe(fs={"/dev/shm": df_stats(captured("df_dev_shm_docker_default.txt"))})
    found = shm(Context(probe))
    assert found.status == "warn"
    assert found.detail.startswith("/dev/shm is 64 MiB (64 MiB free): less than 1 GiB")


def test_a_host_sized_shm_passes(captured, fake_probe):
    stats = df_stats(captured("df_dev_shm_host.txt"))
    probe = fake_probe(fs={"/dev/shm": stats}, commands=eight_gpus())
    found = shm(Context(probe))
    assert (found.status, found.detail) == ("ok", "/dev/shm is 23.5 GiB (23.5 GiB free)")
    assert found.fix == ""


def test_no_shm_at_all(fake_probe):
    assert shm(Context(fake_probe())).status == "n/a"


def ulimit_bytes(text: str) -> int | None:
    """`ulimit -l` prints KiB, or "unlimited"."""
    value = text.strip()
    return None if value == "unlimited" else int(value) * 1024


def test_docker_memlock_fails_with_infiniband(captured, fake_probe, ibstat_sysfs):
    limit = ulimit_bytes(captured("ulimit_l_docker.txt"))
    assert limit == 8 * 2**20
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_infiniband.txt")), memlock=limit)
    found = memlock(Context(probe))
    assert found.status == "fail"
    assert found.detail == (
        "ulimit -l is 8 MiB with RDMA devices mlx5_5 (InfiniBand): NCCL cannot register its buffers"
    )
    assert "--ulimit memlock=-1" in found.fix and "limits.conf" in found.fix


def test_unlimited_memlock_passes_with_roce(captured, fake_probe, ibstat_sysfs):
    limit = ulimit_bytes(captured("ulimit_l_unlimited.txt"))
    assert limit is None
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_roce.txt")), memlock=limit)
    found = memlock(Context(probe))
    assert found.status == "ok"
    assert found.detail == "ulimit -l is unlimited for RDMA devices mlx5_0 (RoCE), mlx5_1 (RoCE)"


def test_a_large_but_finite_limit_warns(captured, fake_probe, ibstat_sysfs):
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_roce.txt")), memlock=4 << 30)
    assert memlock(Context(probe)).status == "warn"


def test_memlock_does_not_matter_without_rdma(captured, fake_probe):
    probe = fake_probe(memlock=ulimit_bytes(captured("ulimit_l_docker.txt")))
    found = memlock(Context(probe))
    assert found.status == "n/a"
    assert re.fullmatch(r"ulimit -l is 8 MiB; no RDMA device, so nothing is pinned", found.detail)
