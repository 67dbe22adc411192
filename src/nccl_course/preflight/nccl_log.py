"""Which transports an NCCL log shows (``NCCL_DEBUG=INFO``, the INIT lines).

The line formats are NCCL's own (NVIDIA/nccl src/): ``Using network %s`` (init.cc), ``NET/Socket :
Using [0]eth0:10.0.0.1<0>`` (transport/net_socket.cc), ``NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB
...`` (transport/net_ib/init.cc), ``Channel 00/0 : 0[0] -> 1[1] via P2P/IPC`` (transport/p2p.cc),
``Channel 00 : 0[0] -> 1[1] via SHM/direct/direct`` (transport/shm.cc; newer releases print
``SHM/direct``), ``Channel 00/0 : 1[1] -> 8[0] [send] via NET/IB/0/GDRDMA`` (transport/net.cc);
``NET/OFI Selected Provider is efa`` (aws-ofi-nccl up to 1.13; from 1.14 ``Selected provider is
efa, fabric is efa``) comes from the aws-ofi-nccl plugin. Releases before 2.7
wrote ``Ring 00`` for ``Channel 00`` and ranks without a device; both are read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_NETWORK = re.compile(r"NCCL INFO Using (?:internal )?[Nn]etwork (\S.*?)\s*$")
_SOCKET = re.compile(r"NET/Socket : Using((?: \[\d+\]\S+)+)")
_IB = re.compile(r"NET/IB : Using((?: \[\d+\]\S+)+)")
_IB_OLD = re.compile(r"NET/IB: \[\d+\] (\S+)")
_OFI = re.compile(r"NET/OFI Selected [Pp]rovider is ([^\s,]+)")
_VERSION = re.compile(r"NCCL version (\S+)")
_IB_DISABLED = re.compile(r"NCCL_IB_DISABLE set by environment to 1\b")
_RANK = r"\d+(?:\[[0-9a-fA-F]+\])?"
_CHANNEL = re.compile(
    rf"(?:Channel|Ring) \d+(?:/\d+)? : {_RANK} -> {_RANK}(?: \[(?:send|receive)\])? via (.+?)\s*$"
)


def transport_kind(via: str) -> str:
    """The transport of a channel's ``via ...``: "P2P", "SHM", "NET/<network>" or "CollNet"."""
    if via.startswith("NET/"):
        network = re.match(r"NET/(.+?)/\d", via)
        return "NET/" + (network.group(1) if network else via[4:].split("/")[0])
    if via.startswith("P2P"):
        return "P2P"
    if via.startswith("SHM") or "shared memory" in via:
        return "SHM"
    return via.split("/")[0].split()[0]


@dataclass(frozen=True)
class LogTransports:
    """What an NCCL INFO log says about its transports. ``channels`` counts channel lines by
    transport kind (see :func:`transport_kind`)."""

    nccl_version: str | None = None
    networks: tuple[str, ...] = ()
    socket_interfaces: tuple[str, ...] = ()
    ib_devices: tuple[str, ...] = ()
    ofi_provider: str | None = None
    ib_disabled: bool = False
    channels: dict[str, int] = field(default_factory=dict)

    @property
    def found_anything(self) -> bool:
        return bool(self.networks or self.channels or self.socket_interfaces or self.ib_devices)

    @property
    def uses_socket(self) -> bool:
        """Inter-node traffic over TCP sockets (NCCL's NET/Socket)."""
        return "Socket" in self.networks or "NET/Socket" in self.channels

    def summary(self) -> str:
        """One line: "network Socket (ibs85f0, ib0); channels: NET/Socket 3, P2P 5"."""
        parts = []
        if self.networks:
            where = self.socket_interfaces or self.ib_devices
            network = "network " + ", ".join(self.networks)
            parts.append(network + (f" ({', '.join(where)})" if where else ""))
        if self.ofi_provider:
            parts.append(f"OFI provider {self.ofi_provider}")
        if self.channels:
            counts = ", ".join(f"{kind} {n}" for kind, n in sorted(self.channels.items()))
            parts.append(f"channels: {counts}")
        if self.ib_disabled:
            parts.append("NCCL_IB_DISABLE=1")
        return "; ".join(parts) if parts else "no NCCL INIT lines"


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def transports_in_log(text: str) -> LogTransports:
    """Read an NCCL log (every rank's lines, interleaved or not) and report its transports."""
    networks, sockets, ib, channels = [], [], [], Counter()
    version = provider = None
    ib_disabled = False
    for line in text.splitlines():
        if match := _CHANNEL.search(line):
            channels[transport_kind(match.group(1))] += 1
        elif match := _NETWORK.search(line):
            networks.append(match.group(1))
        elif match := _SOCKET.search(line):
            sockets += re.findall(r"\[\d+\]([^:\s]+)", match.group(1))
        elif match := _IB.search(line):
            ib += re.findall(r"\[\d+\](\S+)", match.group(1))
        elif match := _IB_OLD.search(line):
            ib.append(match.group(1))
        elif match := _OFI.search(line):
            provider = provider or match.group(1)
        elif match := _VERSION.search(line):
            version = version or match.group(1)
        if _IB_DISABLED.search(line):
            ib_disabled = True
    return LogTransports(
        nccl_version=version,
        networks=_unique(networks),
        socket_interfaces=_unique(sockets),
        ib_devices=_unique(ib),
        ofi_provider=provider,
        ib_disabled=ib_disabled,
        channels=dict(channels),
    )
