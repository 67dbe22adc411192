"""What a pre-flight run knows: the user's options and the machine's facts, each read once.

Several checks need the same fact (the RDMA devices matter to ``memlock``, ``rdma`` and
``nccl_transport``), so the facts are cached properties of one :class:`Context`, read through the
probe the first time a check asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from nccl_course.preflight import smi
from nccl_course.preflight.nccl_log import LogTransports, transports_in_log
from nccl_course.preflight.probe import Probe, TorchInfo
from nccl_course.preflight.rdma import PluginSearch, RdmaDevice, find_net_plugins, rdma_devices

RENDEZVOUS_TIMEOUT_S = 3.0


def parse_master(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6addr]:PORT`` for IPv6) as (host, port); ValueError says what is wrong."""
    host, sep, port = value.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--master {value!r} is not HOST:PORT (e.g. 10.0.0.1:29500)")
    return host, int(port)


@dataclass(frozen=True)
class Options:
    """``nodes``: how many nodes the job will use (None: from the environment, else 1);
    ``nccl_log``: the text of an NCCL INFO log to read; ``master``: the rendezvous (host, port)
    (None: MASTER_ADDR and MASTER_PORT from the environment, if set)."""

    nodes: int | None = None
    nccl_log: str | None = None
    master: tuple[str, int] | None = None


class Context:
    def __init__(self, probe: Probe, options: Options | None = None) -> None:
        self.probe = probe
        self.options = options or Options()

    @cached_property
    def nodes(self) -> int:
        """The node count: --nodes, else NNODES (the name launch scripts use for torchrun's
        --nnodes), else SKYPILOT_NUM_NODES (SkyPilot sets it on every node), else WORLD_SIZE /
        LOCAL_WORLD_SIZE (torchrun's; WORLD_SIZE alone counts processes, not nodes), else 1."""
        if self.options.nodes is not None:
            return self.options.nodes
        env = self.probe.env
        for name in ("NNODES", "SKYPILOT_NUM_NODES"):
            value = env(name)
            if value and value.isdigit() and int(value) > 0:
                return int(value)
        world, local = env("WORLD_SIZE"), env("LOCAL_WORLD_SIZE")
        if world and local and world.isdigit() and local.isdigit() and int(local) > 0:
            return max(1, int(world) // int(local))
        return 1

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @cached_property
    def master(self) -> tuple[str, int] | None:
        if self.options.master is not None:
            return self.options.master
        addr, port = self.probe.env("MASTER_ADDR"), self.probe.env("MASTER_PORT")
        if addr and port and port.isdigit():
            return addr, int(port)
        return None

    @cached_property
    def gpu_count(self) -> int:
        """GPUs the driver lists (``nvidia-smi -L``); 0 without a driver."""
        listing = self.probe.run("nvidia-smi", "-L")
        return smi.count_gpus(listing) if listing else 0

    @cached_property
    def smi_header(self) -> smi.SmiHeader:
        text = self.probe.run("nvidia-smi")
        return smi.parse_header(text) if text else smi.SmiHeader(None, None)

    @cached_property
    def p2p(self) -> dict[tuple[int, int], str] | None:
        """Peer read access between GPU pairs (``nvidia-smi topo -p2p r``); None if unknown."""
        text = self.probe.run("nvidia-smi", "topo", "-p2p", "r")
        return smi.parse_p2p_matrix(text) if text else None

    @cached_property
    def torch(self) -> TorchInfo | None:
        return self.probe.torch()

    @cached_property
    def rdma(self) -> list[RdmaDevice]:
        return rdma_devices(self.probe)

    @cached_property
    def plugins(self) -> PluginSearch:
        return find_net_plugins(self.probe)

    @cached_property
    def log(self) -> LogTransports | None:
        text = self.options.nccl_log
        return transports_in_log(text) if text is not None else None
