"""RDMA hardware and NCCL network plugins.

Devices come from ``/sys/class/infiniband``: Mellanox/NVIDIA ConnectX (``mlx5_*``) ports say
``InfiniBand`` or ``Ethernet`` (RoCE) in ``ports/1/link_layer``; AWS EFA devices are bound to the
``efa`` driver (``device/uevent``) and named ``rdmapNsM`` (older ``efa_N``). NCCL drives ConnectX
itself (NET/IB); EFA needs the aws-ofi-nccl plugin, GCP's A3 Ultra/A4 their gIB plugin and A3
High/Mega TCPX/TCPXO. NCCL loads a plugin named by ``NCCL_NET_PLUGIN`` (a suffix: libnccl-net-
SUFFIX.so, or a file) or else ``libnccl-net.so`` from the library search path (src/plugin/net.cc).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from nccl_course.preflight.probe import Probe

SYSFS_INFINIBAND = "/sys/class/infiniband"

# Where cloud images put NCCL network plugins, besides LD_LIBRARY_PATH:
# - EFA installer (bundles aws-ofi-nccl) and AWS Deep Learning AMIs,
# - GCP's gIB plugin for A3 Ultra / A4, GKE's driver mount with the TCPX/TCPXO plugin,
# - HPC-X in NVIDIA's NGC containers (nccl_rdma_sharp_plugin),
# - the system library directories the dynamic loader searches anyway.
PLUGIN_DIRS = (
    "/opt/amazon/ofi-nccl/lib",
    "/opt/aws-ofi-nccl/lib",
    "/usr/local/gib/lib64",
    "/usr/local/nvidia/lib64",
    "/opt/hpcx/nccl_rdma_sharp_plugin/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/local/lib",
)

INFINIBAND = "InfiniBand"
ROCE = "RoCE"
EFA = "EFA"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class RdmaDevice:
    name: str
    kind: str  # INFINIBAND, ROCE, EFA or UNKNOWN

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


def rdma_devices(probe: Probe) -> list[RdmaDevice]:
    """The RDMA devices this machine (or container) exposes."""
    devices = []
    for name in probe.list_dir(SYSFS_INFINIBAND) or []:
        base = f"{SYSFS_INFINIBAND}/{name}"
        uevent = probe.read_text(f"{base}/device/uevent") or ""
        if "DRIVER=efa" in uevent.split() or name.startswith(("efa", "rdmap")):
            devices.append(RdmaDevice(name, EFA))
            continue
        link = (probe.read_text(f"{base}/ports/1/link_layer") or "").strip()
        kind = {"InfiniBand": INFINIBAND, "Ethernet": ROCE}.get(link, UNKNOWN)
        devices.append(RdmaDevice(name, kind))
    return devices


@dataclass(frozen=True)
class PluginSearch:
    """``found``: every libnccl-net*.so found (full paths). ``requested``: NCCL_NET_PLUGIN, and
    ``requested_found`` whether NCCL would find that one."""

    found: tuple[str, ...]
    requested: str | None = None
    requested_found: bool = False

    @property
    def usable(self) -> bool:
        return self.requested_found if self.requested else bool(self.found)


def search_dirs(probe: Probe) -> list[str]:
    dirs = [d for d in (probe.env("LD_LIBRARY_PATH") or "").split(":") if d]
    return list(dict.fromkeys([*dirs, *PLUGIN_DIRS]))


def find_net_plugins(probe: Probe) -> PluginSearch:
    found = []
    for directory in search_dirs(probe):
        for name in probe.list_dir(directory) or []:
            if name.startswith("libnccl-net") and ".so" in name:
                found.append(posixpath.join(directory, name))
    requested = probe.env("NCCL_NET_PLUGIN") or None
    if not requested:
        return PluginSearch(tuple(found))
    if "/" in requested:
        folder, file = posixpath.split(requested)
        hit = file in (probe.list_dir(folder) or [])
    else:
        wanted = {requested, f"libnccl-net-{requested}.so"}
        hit = any(posixpath.basename(path) in wanted for path in found)
    return PluginSearch(tuple(found), requested, hit)
