"""Network interfaces as NCCL sees them: which one carries the default route, which are virtual,
and which ones an ``NCCL_SOCKET_IFNAME`` value selects.

NCCL's own choice without ``NCCL_SOCKET_IFNAME`` (src/misc/socket.cc, ncclFindInterfaces):
``ib*`` first, then anything but ``docker*``, ``lo`` and ``virbr*``. It does not skip the veth,
CNI and overlay interfaces of container hosts, so on those it can pick an interface that does not
reach the other node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOOPBACK = "lo"
# Prefixes of interfaces that do not leave the host (bridges, container and overlay plumbing,
# traffic-shaping devices). `br-` is a Docker user network, `cali` Calico, `ifb` the kernel's
# intermediate functional block used by traffic shaping.
VIRTUAL_PREFIXES = (
    "docker",
    "veth",
    "virbr",
    "cni",
    "flannel",
    "br-",
    "cali",
    "tunl",
    "vxlan",
    "kube-",
    "ifb",
)

_IP_ROUTE_DEFAULT = re.compile(r"^default\b.*?\bdev\s+(\S+)(?:.*?\bmetric\s+(\d+))?")


def is_virtual(name: str) -> bool:
    """Loopback or one of VIRTUAL_PREFIXES: an interface that does not reach another node."""
    return name == LOOPBACK or name.startswith(VIRTUAL_PREFIXES)


def default_route_from_ip(text: str) -> str | None:
    """The interface of the preferred default route in ``ip route show default`` output (the
    lowest metric wins, as the kernel chooses)."""
    routes = []
    for line in text.splitlines():
        match = _IP_ROUTE_DEFAULT.match(line.strip())
        if match:
            routes.append((int(match.group(2) or 0), match.group(1)))
    return min(routes)[1] if routes else None


def default_route_from_proc(text: str) -> str | None:
    """The same from ``/proc/net/route`` (hexadecimal columns: a default route has destination
    and mask 00000000)."""
    routes = []
    for line in text.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 8 and cols[1] == "00000000" and cols[7] == "00000000":
            routes.append((int(cols[6]), cols[0]))
    return min(routes)[1] if routes else None


@dataclass(frozen=True)
class IfnameFilter:
    """An ``NCCL_SOCKET_IFNAME`` value: prefixes separated by commas, ``^`` in front to exclude
    them, ``=`` in front to match names exactly (NCCL's env.rst, NCCL_SOCKET_IFNAME)."""

    exclude: bool
    exact: bool
    names: tuple[str, ...]

    @classmethod
    def parse(cls, value: str) -> IfnameFilter:
        exclude = value.startswith("^")
        value = value[1:] if exclude else value
        exact = value.startswith("=")
        value = value[1:] if exact else value
        return cls(exclude, exact, tuple(n for n in value.split(",") if n))

    def selects(self, interface: str) -> bool:
        hit = any(
            interface == name if self.exact else interface.startswith(name) for name in self.names
        )
        return hit != self.exclude

    def select(self, interfaces: list[str]) -> list[str]:
        return [name for name in interfaces if self.selects(name)]
