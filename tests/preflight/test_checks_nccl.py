"""nccl_transport on captured NCCL logs, nccl_conf on a cloud image's /etc/nccl.conf."""

from __future__ import annotations

from nccl_course.preflight import Options
from nccl_course.preflight.checks_nccl import conf_files, nccl_conf, nccl_transport
from nccl_course.preflight.context import Context


def test_sockets_despite_infiniband_fail(fake_probe, captured, ibstat_sysfs):
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_infiniband.txt")))
    log = captured("nccl_log_socket_ib_disabled.txt")
    found = nccl_transport(Context(probe, Options(nccl_log=log)))
    assert found.status == "fail"
    assert found.detail == (
        "network Socket (ibs85f0, ib0); channels: NET/Socket 3, P2P 5; NCCL_IB_DISABLE=1: "
        "NCCL used TCP sockets because NCCL_IB_DISABLE=1 although this machine has RDMA devices "
        "mlx5_5 (InfiniBand)"
    )
    assert "NCCL_IB_DISABLE" in found.fix


def test_ib_on_roce_hardware_passes(fake_probe, captured, ibstat_sysfs):
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_roce.txt")))
    found = nccl_transport(Context(probe, Options(nccl_log=captured("nccl_log_roce_ib.txt"))))
    assert (found.status, found.detail) == (
        "ok",
        "network IB (mlx5_10:1/RoCE, mlx5_11:1/RoCE)",
    )


def test_efa_log_passes(fake_probe, captured):
    found = nccl_transport(Context(fake_probe(), Options(nccl_log=captured("nccl_log_efa.txt"))))
    assert (found.status, found.detail) == ("ok", "network Libfabric; OFI provider efa")


def test_shm_between_gpus_with_peer_access_warns(fake_probe, captured):
    probe = fake_probe(
        commands={("nvidia-smi", "topo", "-p2p", "r"): captured("topo_p2p_ok_5gpu.txt")}
    )
    found = nccl_transport(Context(probe, Options(nccl_log=captured("nccl_log_shm_8gpu.txt"))))
    assert found.status == "warn"
    assert found.detail == (
        "channels: SHM 11: GPUs of one node exchange data through host memory (SHM) although "
        "nvidia-smi reports peer access OK"
    )
    assert "NCCL_P2P_DISABLE" in found.fix


def test_shm_where_peer_access_is_blocked_passes(fake_probe, captured):
    probe = fake_probe(
        commands={("nvidia-smi", "topo", "-p2p", "r"): captured("topo_p2p_gns_2gpu.txt")}
    )
    found = nccl_transport(Context(probe, Options(nccl_log=captured("nccl_log_shm_8gpu.txt"))))
    assert (found.status, found.detail) == (
        "ok",
        "channels: SHM 11 (SHM where peer access is not supported)",
    )


def test_no_log_and_an_empty_log(fake_probe):
    assert nccl_transport(Context(fake_probe())).status == "n/a"
    found = nccl_transport(Context(fake_probe(), Options(nccl_log="hello\n")))
    assert found.status == "warn" and "NCCL_DEBUG=INFO" in found.fix


def test_conf_files_in_nccl_order(fake_probe):
    assert conf_files(fake_probe(environ={"HOME": "/home/ada"})) == [
        "/home/ada/.nccl.conf",
        "/etc/nccl.conf",
    ]
    assert conf_files(fake_probe(environ={"HOME": "/h", "NCCL_CONF_FILE": "/x.conf"})) == [
        "/x.conf",
        "/etc/nccl.conf",
    ]


def test_image_conf_overridden_by_the_environment_warns(fake_probe, captured):
    probe = fake_probe(
        files={"/etc/nccl.conf": captured("etc_nccl_conf_azure_ndv5.txt")},
        environ={"HOME": "/root", "NCCL_TOPO_FILE": "/workspace/my-topo.xml"},
    )
    found = nccl_conf(Context(probe))
    assert found.status == "warn"
    assert found.detail == (
        "/etc/nccl.conf: NCCL_IB_PCI_RELAXED_ORDERING=1, NCCL_TOPO_FILE=/opt/microsoft/ndv5/topo.xml; "
        "NCCL_TOPO_FILE=/opt/microsoft/ndv5/topo.xml in /etc/nccl.conf is ignored: the environment "
        "sets '/workspace/my-topo.xml'"
    )


def test_user_conf_shadows_the_system_one(fake_probe, captured):
    probe = fake_probe(
        files={
            "/etc/nccl.conf": captured("etc_nccl_conf_azure_ndv5.txt"),
            "/root/.nccl.conf": "NCCL_IB_PCI_RELAXED_ORDERING=0\n",
        },
        environ={"HOME": "/root"},
    )
    found = nccl_conf(Context(probe))
    assert found.status == "warn"
    assert (
        "NCCL_IB_PCI_RELAXED_ORDERING=1 in /etc/nccl.conf is ignored: /root/.nccl.conf sets '0'"
        in found.detail
    )


def test_image_conf_alone_passes(fake_probe, captured):
    probe = fake_probe(
        files={"/etc/nccl.conf": captured("etc_nccl_conf_azure_ndv5.txt")},
        environ={"HOME": "/root"},
    )
    found = nccl_conf(Context(probe))
    assert (found.status, found.detail) == (
        "ok",
        "/etc/nccl.conf: NCCL_IB_PCI_RELAXED_ORDERING=1, NCCL_TOPO_FILE=/opt/microsoft/ndv5/topo.xml "
        "(NCCL applies them to every run)",
    )


def test_no_conf_files(fake_probe):
    found = nccl_conf(Context(fake_probe(environ={"HOME": "/root"})))
    assert (found.status, found.detail) == ("n/a", "no /root/.nccl.conf or /etc/nccl.conf")
