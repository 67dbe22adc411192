"""The readers of nvidia-smi, routing tables and NCCL logs, on outputs of real machines."""

from __future__ import annotations

import pytest

from nccl_course.environment import strip_ansi
from nccl_course.preflight import netif, smi
from nccl_course.preflight.nccl_log import transport_kind, transports_in_log


def test_header_of_an_hgx_h100(captured):
    header = smi.parse_header(captured("nvidia_smi_hgx_h100_565.txt"))
    assert (header.driver, header.cuda) == ("565.57.01", "12.7")


def test_header_of_an_old_driver(captured):
    header = smi.parse_header(captured("nvidia_smi_header_470.txt"))
    assert (header.driver, header.cuda) == ("470.86", "11.4")


def test_gpu_listing_is_counted(captured):
    assert smi.count_gpus(captured("nvidia_smi_L_h200.txt")) == 1
    mig = "GPU 0: NVIDIA A100 (UUID: GPU-1)\n  MIG 1g.10gb Device  0: (UUID: MIG-2)\n"
    assert smi.count_gpus(mig) == 1
    assert smi.count_gpus("") == 0


def test_topology_escapes_are_stripped(captured):
    tty = captured("topo_m_hgx_h100_tty.txt")
    assert "\x1b[4m" in tty and "\x1b[0m" in tty
    plain = strip_ansi(tty)
    assert plain == captured("topo_m_hgx_h100.txt")
    assert plain.splitlines()[0].split("\t")[1] == "GPU0"


def test_p2p_matrix_all_ok(captured):
    matrix = smi.parse_p2p_matrix(captured("topo_p2p_ok_5gpu.txt"))
    assert len(matrix) == 5 * 4
    assert set(matrix.values()) == {"OK"}
    assert (0, 4) in matrix and (4, 0) in matrix and (2, 2) not in matrix


def test_p2p_matrix_not_supported(captured):
    matrix = smi.parse_p2p_matrix(captured("topo_p2p_gns_2gpu.txt"))
    assert matrix == {(0, 1): "GNS", (1, 0): "GNS"}


def test_p2p_matrix_with_escapes():
    # nvidia-smi underlines this header too on a terminal
    text = " \t\x1b[4mGPU0\tGPU1\t\x1b[0m\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n"
    assert smi.parse_p2p_matrix(text) == {(0, 1): "NS", (1, 0): "NS"}


def test_default_route_from_ip_takes_the_lowest_metric(captured):
    assert netif.default_route_from_ip(captured("ip_route_virbr0.txt")) == "enp68s0"
    assert netif.default_route_from_ip("default via 192.0.2.1 dev eth0 \n") == "eth0"
    assert netif.default_route_from_ip("10.0.0.0/8 dev eth1\n") is None


def test_default_route_from_proc(captured):
    assert netif.default_route_from_proc(captured("proc_net_route_eth0.txt")) == "eth0"


@pytest.mark.parametrize(
    ("value", "selected"),
    [
        ("eth", ["eth0", "eth1"]),
        ("=eth0", ["eth0"]),
        ("^docker,lo", ["eth0", "eth1", "veth12ab", "virbr0"]),
        ("^=eth0", ["docker0", "eth1", "lo", "veth12ab", "virbr0"]),
        ("ens5", []),
    ],
)
def test_socket_ifname_follows_nccl_prefix_rules(value, selected):
    names = ["docker0", "eth0", "eth1", "lo", "veth12ab", "virbr0"]
    assert netif.IfnameFilter.parse(value).select(names) == selected


def test_virtual_interfaces():
    assert [
        n for n in ["lo", "eth0", "docker0", "veth9", "cni0", "ifb0", "ens5"] if netif.is_virtual(n)
    ] == [
        "lo",
        "docker0",
        "veth9",
        "cni0",
        "ifb0",
    ]


def test_log_that_fell_back_to_sockets(captured):
    log = transports_in_log(captured("nccl_log_socket_ib_disabled.txt"))
    assert log.networks == ("Socket",)
    assert log.socket_interfaces == ("ibs85f0", "ib0")
    assert log.ib_disabled is True
    assert log.channels == {"NET/Socket": 3, "P2P": 5}
    assert log.uses_socket
    assert log.summary() == (
        "network Socket (ibs85f0, ib0); channels: NET/Socket 3, P2P 5; NCCL_IB_DISABLE=1"
    )


def test_log_on_roce(captured):
    log = transports_in_log(captured("nccl_log_roce_ib.txt"))
    assert log.networks == ("IB",)
    assert log.ib_devices == ("mlx5_10:1/RoCE", "mlx5_11:1/RoCE")
    assert log.nccl_version == "2.19.3+cuda12.3"
    assert not log.uses_socket and not log.ib_disabled


def test_log_on_efa(captured):
    log = transports_in_log(captured("nccl_log_efa.txt"))
    assert log.networks == ("Libfabric",)
    assert log.ofi_provider == "efa"
    assert not log.uses_socket


def test_log_through_shared_memory(captured):
    log = transports_in_log(captured("nccl_log_shm_8gpu.txt"))
    assert log.channels == {"SHM": 11}
    assert log.networks == ()


@pytest.mark.parametrize(
    ("via", "kind"),
    [
        ("P2P/IPC/read", "P2P"),
        ("P2P/direct pointer", "P2P"),
        ("SHM/direct/direct", "SHM"),
        ("SHM/direct", "SHM"),
        ("direct shared memory", "SHM"),
        ("NET/IB/0/GDRDMA", "NET/IB"),
        ("NET/IBext_v8/7/GDRDMA", "NET/IBext_v8"),
        ("NET/AWS Libfabric/0", "NET/AWS Libfabric"),
        ("NET/Socket/3", "NET/Socket"),
    ],
)
def test_transport_kinds(via, kind):
    assert transport_kind(via) == kind


def test_a_text_without_nccl_lines():
    log = transports_in_log("Traceback (most recent call last):\n  boom\n")
    assert not log.found_anything
    assert log.summary() == "no NCCL INIT lines"
