"""The network between nodes: which interface NCCL will use, RDMA and its plugin, and whether the
rendezvous address answers."""

from __future__ import annotations

from nccl_course.preflight import netif
from nccl_course.preflight.check import Finding, fail, not_applicable, ok, warn
from nccl_course.preflight.context import RENDEZVOUS_TIMEOUT_S, Context
from nccl_course.preflight.probe import Probe
from nccl_course.preflight.rdma import EFA

SYSFS_NET = "/sys/class/net"
DEV_INFINIBAND = "/dev/infiniband"
# The prefixes NCCL skips when it picks interfaces by itself (src/misc/socket.cc).
NCCL_AUTO_SKIPS = ("docker", "lo", "virbr")


def default_route(probe: Probe) -> str | None:
    text = probe.run("ip", "route", "show", "default")
    if text:
        return netif.default_route_from_ip(text)
    table = probe.read_text("/proc/net/route")
    return netif.default_route_from_proc(table) if table else None


def _names(items) -> str:
    return ", ".join(items) if items else "none"


def net_interface(ctx: Context) -> Finding:
    names = ctx.probe.list_dir(SYSFS_NET) or []
    if not names:
        return not_applicable(f"no {SYSFS_NET}: cannot list network interfaces")
    default = default_route(ctx.probe)
    virtual = [n for n in names if netif.is_virtual(n)]
    listing = f"interfaces {_names(names)}" + (f" (virtual: {_names(virtual)})" if virtual else "")
    pin = f"NCCL_SOCKET_IFNAME={default} GLOO_SOCKET_IFNAME={default}" if default else ""
    fix = (
        f"export {pin}"
        if pin
        else "export NCCL_SOCKET_IFNAME=<the interface that reaches the other nodes>"
    )

    gloo = ctx.probe.env("GLOO_SOCKET_IFNAME")
    missing_gloo = [n for n in (gloo or "").split(",") if n and n not in names]
    if missing_gloo:
        return warn(
            f"GLOO_SOCKET_IFNAME names {_names(missing_gloo)}, not on this machine; {listing}", fix
        )

    value = ctx.probe.env("NCCL_SOCKET_IFNAME")
    if value:
        selected = netif.IfnameFilter.parse(value).select(names)
        if not selected:
            return warn(f"NCCL_SOCKET_IFNAME={value} matches no interface; {listing}", fix)
        if ctx.multi_node and all(netif.is_virtual(n) for n in selected):
            return fail(
                f"NCCL_SOCKET_IFNAME={value} selects only {_names(selected)}, which cannot "
                f"reach other nodes; {listing}",
                fix,
            )
        return ok(
            f"NCCL_SOCKET_IFNAME={value} selects {_names(selected)}; default route on {default}"
        )

    if default is None:
        if ctx.multi_node:
            return warn(f"no default route; {listing}", fix)
        return ok(f"no default route (single node); {listing}")
    auto = [n for n in names if n.startswith("ib")] or [
        n for n in names if not n.startswith(NCCL_AUTO_SKIPS)
    ]
    strays = [n for n in auto if netif.is_virtual(n)]
    if ctx.multi_node and strays:
        return warn(
            f"NCCL_SOCKET_IFNAME is not set and NCCL would also use {_names(strays)} "
            f"(container plumbing); default route on {default}",
            fix,
        )
    return ok(f"default route on {default}; {listing}; to pin it: {pin}")


def _plugin_list(paths) -> str:
    return _names(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def rdma(ctx: Context) -> Finding:
    devices, plugins = ctx.rdma, ctx.plugins
    plugin_note = f"; network plugins {_plugin_list(plugins.found)}" if plugins.found else ""
    if plugins.requested and not plugins.requested_found:
        return fail(
            f"NCCL_NET_PLUGIN={plugins.requested} but no such library in LD_LIBRARY_PATH or "
            "the usual plugin folders",
            "install the plugin or add its lib folder to LD_LIBRARY_PATH (or unset NCCL_NET_PLUGIN)",
        )
    if devices and not (ctx.probe.list_dir(DEV_INFINIBAND) or []):
        # sysfs shows the host's HCAs inside a container; the verbs devices must be passed in
        detail = (
            f"RDMA devices {_names([str(d) for d in devices])} but no {DEV_INFINIBAND} in "
            "this container: NCCL cannot open them and falls back to TCP between nodes"
        )
        fix = (
            f"pass the devices in: docker run --device={DEV_INFINIBAND} (Kubernetes: the RDMA "
            "device plugin's resource)"
        )
        return fail(detail, fix) if ctx.multi_node else warn(detail, fix)
    efa = [d.name for d in devices if d.kind == EFA]
    if efa and not plugins.usable:
        return fail(
            f"AWS EFA devices {_names(efa)} but no aws-ofi-nccl plugin (libnccl-net*.so) in "
            "LD_LIBRARY_PATH, /opt/amazon/ofi-nccl/lib or /opt/aws-ofi-nccl/lib: NCCL will use "
            "TCP sockets",
            "install the EFA installer (it bundles aws-ofi-nccl) or add the plugin's lib folder "
            "to LD_LIBRARY_PATH",
        )
    if devices:
        return ok(f"RDMA devices {_names([str(d) for d in devices])}{plugin_note}")
    if not ctx.multi_node:
        return not_applicable(f"no RDMA device; one node needs none{plugin_note}")
    if plugins.usable:
        return ok(f"no RDMA device; network plugins {_plugin_list(plugins.found)}")
    return warn(
        "no RDMA device (InfiniBand, RoCE or EFA): between nodes NCCL will use NET/Socket (TCP)",
        "for real multi-node bandwidth pick instances with InfiniBand, RoCE or EFA; for the "
        "labs TCP works, only slower",
    )


def rendezvous(ctx: Context) -> Finding:
    if ctx.master is None:
        return not_applicable("no --master and no MASTER_ADDR/MASTER_PORT in the environment")
    host, port = ctx.master
    result = ctx.probe.connect(host, port, RENDEZVOUS_TIMEOUT_S)
    if result.error is None:
        return ok(f"{host}:{port} accepts TCP connections ({result.seconds * 1000:.0f} ms)")
    return fail(
        f"cannot connect to {host}:{port}: {result.error}",
        f"start rank 0 first (it listens on {port}); the firewall or security group must let the "
        f"nodes reach TCP {port} and each other's ports (NCCL opens its own), e.g. within one VPC",
    )
