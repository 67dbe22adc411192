"""The catalog and the runner: every check id once, in order, with a valid status, on an empty
machine and on a captured HGX H100 node."""

from __future__ import annotations

from nccl_course.preflight import CATALOG, CHECK_IDS, STATUSES, Options, run_checks
from nccl_course.preflight.runner import any_failed, format_checks

EXPECTED_IDS = (
    "shm",
    "memlock",
    "net_interface",
    "rdma",
    "nccl_transport",
    "gpu_p2p",
    "gpus_visible",
    "cuda_driver",
    "nccl_version",
    "nccl_conf",
    "rendezvous",
)


def test_check_ids_are_fixed():
    assert CHECK_IDS == EXPECTED_IDS
    assert all(info.title and info.help and len(info.help) <= 100 for info in CATALOG)


def test_an_empty_machine_has_nothing_to_fail(fake_probe):
    checks = run_checks(fake_probe())
    assert tuple(c.id for c in checks) == EXPECTED_IDS
    assert all(c.status in STATUSES for c in checks)
    assert not any_failed(checks)


def test_a_misconfigured_hgx_node(fake_probe, captured, ibstat_sysfs):
    """A captured 8-GPU H100 node in a default Docker container: small /dev/shm, 8 MiB memlock,
    InfiniBand not passed in, and a log that fell back to sockets."""
    from nccl_course.preflight import FsStats, TorchInfo

    listing = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n" for i in range(8))
    probe = fake_probe(
        files=ibstat_sysfs(captured("ibstat_mlx5_infiniband.txt")),
        dirs={"/sys/class/net": ["eth0", "lo"]},
        commands={
            ("nvidia-smi",): captured("nvidia_smi_hgx_h100_565.txt"),
            ("nvidia-smi", "-L"): listing,
            ("ip", "route", "show", "default"): "default via 172.17.0.1 dev eth0 \n",
        },
        fs={"/dev/shm": FsStats(1024, 65536, 65536)},
        memlock=8 << 20,
        torch_info=TorchInfo("2.6.0+cu124", cuda="12.4", device_count=8, nccl="2.21.5"),
        environ={"HOME": "/root"},
    )
    options = Options(nodes=2, nccl_log=captured("nccl_log_socket_ib_disabled.txt"))
    statuses = {c.id: c.status for c in run_checks(probe, options)}
    assert statuses == {
        "shm": "fail",
        "memlock": "fail",
        "net_interface": "ok",
        "rdma": "fail",
        "nccl_transport": "fail",
        "gpu_p2p": "n/a",
        "gpus_visible": "ok",
        "cuda_driver": "ok",
        "nccl_version": "ok",
        "nccl_conf": "n/a",
        "rendezvous": "n/a",
    }


def test_report_lines_put_the_fix_under_the_failure(fake_probe):
    checks = run_checks(fake_probe(), Options(master=("10.0.0.5", 29500)))
    text = format_checks(checks)
    lines = text.splitlines()
    failing = next(i for i, line in enumerate(lines) if line.startswith("  FAIL"))
    assert "rendezvous reachable" in lines[failing]
    assert lines[failing + 1].strip().startswith("fix: start rank 0 first")
    assert len(lines) == len(checks) + 1
