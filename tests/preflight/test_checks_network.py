"""net_interface, rdma and rendezvous (the probe's side) on captured routing tables and devices."""

from __future__ import annotations

from nccl_course.preflight import Connection, Options
from nccl_course.preflight.checks_network import net_interface, rdma, rendezvous
from nccl_course.preflight.context import Context

# The interfaces of the machine whose `ip route` is captured in ip_route_virbr0.txt.
DESKTOP_IFACES = ["enp68s0", "lo", "virbr0", "wlp69s0"]


def desktop(fake_probe, captured, **kwargs):
    return fake_probe(
        dirs={"/sys/class/net": DESKTOP_IFACES},
        commands={("ip", "route", "show", "default"): captured("ip_route_virbr0.txt")},
        **kwargs,
    )


def test_default_route_is_suggested(fake_probe, captured):
    found = net_interface(Context(desktop(fake_probe, captured)))
    assert found.status == "ok"
    assert found.detail == (
        "default route on enp68s0; interfaces enp68s0, lo, virbr0, wlp69s0 (virtual: lo, virbr0); "
        "to pin it: NCCL_SOCKET_IFNAME=enp68s0 GLOO_SOCKET_IFNAME=enp68s0"
    )


def test_default_route_from_proc_when_ip_is_missing(fake_probe, captured):
    probe = fake_probe(
        dirs={"/sys/class/net": ["eth0", "lo"]},
        files={"/proc/net/route": captured("proc_net_route_eth0.txt")},
    )
    assert "default route on eth0" in net_interface(Context(probe)).detail


def test_socket_ifname_naming_no_interface_warns(fake_probe, captured):
    probe = desktop(fake_probe, captured, environ={"NCCL_SOCKET_IFNAME": "ens5"})
    found = net_interface(Context(probe))
    assert found.status == "warn"
    assert found.detail.startswith("NCCL_SOCKET_IFNAME=ens5 matches no interface")
    assert found.fix == "export NCCL_SOCKET_IFNAME=enp68s0 GLOO_SOCKET_IFNAME=enp68s0"


def test_socket_ifname_on_a_bridge_fails_across_nodes(fake_probe, captured):
    probe = desktop(fake_probe, captured, environ={"NCCL_SOCKET_IFNAME": "virbr"})
    found = net_interface(Context(probe, Options(nodes=2)))
    assert found.status == "fail"
    assert found.detail.startswith("NCCL_SOCKET_IFNAME=virbr selects only virbr0, which cannot")
    # on one node a bridge is as good as any interface
    assert net_interface(Context(probe, Options(nodes=1))).status == "ok"


def test_socket_ifname_on_the_real_interface_passes(fake_probe, captured):
    probe = desktop(fake_probe, captured, environ={"NCCL_SOCKET_IFNAME": "=enp68s0"})
    found = net_interface(Context(probe, Options(nodes=2)))
    assert (found.status, found.detail) == (
        "ok",
        "NCCL_SOCKET_IFNAME==enp68s0 selects enp68s0; default route on enp68s0",
    )


def test_gloo_ifname_naming_a_missing_interface_warns(fake_probe, captured):
    probe = desktop(fake_probe, captured, environ={"GLOO_SOCKET_IFNAME": "eth0"})
    assert net_interface(Context(probe)).status == "warn"


def test_container_plumbing_warns_across_nodes_when_unpinned(fake_probe, captured):
    probe = fake_probe(
        dirs={"/sys/class/net": ["eth0", "lo", "veth3f2a", "cni0"]},
        files={"/proc/net/route": captured("proc_net_route_eth0.txt")},
    )
    found = net_interface(Context(probe, Options(nodes=4)))
    assert found.status == "warn"
    assert "NCCL would also use cni0, veth3f2a" in found.detail
    assert net_interface(Context(probe, Options(nodes=1))).status == "ok"


def with_devices(fake_probe, files, **kwargs):
    return fake_probe(files=files, dirs={"/dev/infiniband": ["uverbs0", "uverbs1"]}, **kwargs)


def test_efa_without_plugin_fails(fake_probe, captured, efa_devices):
    names = efa_devices(captured("fi_info_efa.txt"))
    assert names == ["rdmap79s0", "rdmap80s0", "rdmap81s0"]
    probe = fake_probe(
        dirs={"/sys/class/infiniband": names, "/dev/infiniband": ["uverbs0", "uverbs1", "uverbs2"]}
    )
    found = rdma(Context(probe, Options(nodes=2)))
    assert found.status == "fail"
    assert found.detail.startswith(
        "AWS EFA devices rdmap79s0, rdmap80s0, rdmap81s0 but no aws-ofi-nccl"
    )
    assert "EFA installer" in found.fix


def test_efa_with_the_plugin_passes(fake_probe, captured, efa_devices):
    names = efa_devices(captured("fi_info_efa.txt"))
    probe = fake_probe(
        dirs={
            "/sys/class/infiniband": names,
            "/dev/infiniband": ["uverbs0"],
            "/opt/amazon/ofi-nccl/lib": ["libnccl-net-ofi.so", "libnccl-ofi-tuner.so"],
        }
    )
    found = rdma(Context(probe, Options(nodes=2)))
    assert found.status == "ok"
    assert found.detail == (
        "RDMA devices rdmap79s0 (EFA), rdmap80s0 (EFA), rdmap81s0 (EFA); "
        "network plugins /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so"
    )


def test_efa_recognised_by_its_driver():
    from nccl_course.preflight.rdma import rdma_devices

    class Probe:
        def list_dir(self, path):
            return ["efa_0"] if path == "/sys/class/infiniband" else None

        def read_text(self, path):
            return "DRIVER=efa\nPCI_ID=1D0F:EFA1\n" if path.endswith("uevent") else None

    assert [str(d) for d in rdma_devices(Probe())] == ["efa_0 (EFA)"]


def test_named_plugin_that_is_missing_fails(fake_probe, captured, ibstat_sysfs):
    probe = with_devices(
        fake_probe,
        ibstat_sysfs(captured("ibstat_mlx5_roce.txt")),
        environ={"NCCL_NET_PLUGIN": "gib"},
    )
    found = rdma(Context(probe))
    assert found.status == "fail"
    assert found.detail.startswith("NCCL_NET_PLUGIN=gib but no such library")


def test_named_plugin_found_on_ld_library_path(fake_probe, captured, ibstat_sysfs):
    probe = with_devices(
        fake_probe,
        {
            **ibstat_sysfs(captured("ibstat_mlx5_roce.txt")),
            "/usr/local/gib/lib64/libnccl-net-gib.so": "",
        },
        environ={"NCCL_NET_PLUGIN": "gib", "LD_LIBRARY_PATH": "/usr/local/gib/lib64"},
    )
    found = rdma(Context(probe))
    assert found.status == "ok"
    assert found.detail == (
        "RDMA devices mlx5_0 (RoCE), mlx5_1 (RoCE); network plugins /usr/local/gib/lib64/libnccl-net-gib.so"
    )


def test_infiniband_not_passed_into_the_container_fails(fake_probe, captured, ibstat_sysfs):
    probe = fake_probe(files=ibstat_sysfs(captured("ibstat_mlx5_infiniband.txt")))
    found = rdma(Context(probe, Options(nodes=2)))
    assert found.status == "fail"
    assert "no /dev/infiniband in this container" in found.detail
    assert "--device=/dev/infiniband" in found.fix
    # one node does not need the fast network: a warning
    assert rdma(Context(probe, Options(nodes=1))).status == "warn"


def test_infiniband_passes(fake_probe, captured, ibstat_sysfs):
    probe = with_devices(fake_probe, ibstat_sysfs(captured("ibstat_mlx5_infiniband.txt")))
    found = rdma(Context(probe, Options(nodes=2)))
    assert (found.status, found.detail) == ("ok", "RDMA devices mlx5_5 (InfiniBand)")


def test_no_rdma_is_fine_on_one_node_and_slow_across_nodes(fake_probe):
    assert rdma(Context(fake_probe(), Options(nodes=1))).status == "n/a"
    found = rdma(Context(fake_probe(), Options(nodes=2)))
    assert found.status == "warn"
    assert "NET/Socket (TCP)" in found.detail


def test_nodes_from_the_environment(fake_probe):
    assert Context(fake_probe(environ={"NNODES": "4"})).nodes == 4
    assert Context(fake_probe(environ={"SKYPILOT_NUM_NODES": "2"})).nodes == 2
    env = {"WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8"}
    assert Context(fake_probe(environ=env)).nodes == 2
    assert Context(fake_probe(environ={"WORLD_SIZE": "8"})).nodes == 1
    assert Context(fake_probe(environ={"NNODES": "4"}), Options(nodes=1)).nodes == 1


def test_rendezvous_reads_master_from_the_environment(fake_probe):
    probe = fake_probe(
        environ={"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "29500"},
        connections={("10.0.0.5", 29500): Connection(error=None, seconds=0.002)},
    )
    found = rendezvous(Context(probe))
    assert (found.status, found.detail) == ("ok", "10.0.0.5:29500 accepts TCP connections (2 ms)")


def test_rendezvous_refused_fails_with_the_firewall_fix(fake_probe):
    found = rendezvous(Context(fake_probe(), Options(master=("10.0.0.5", 29500))))
    assert found.status == "fail"
    assert found.detail == "cannot connect to 10.0.0.5:29500: Connection refused"
    assert "security group" in found.fix and "29500" in found.fix


def test_rendezvous_without_master(fake_probe):
    assert rendezvous(Context(fake_probe())).status == "n/a"
