"""Where an all-to-all's bytes go: inside a node over NVLink, or across the network.

In an all-to-all of ``S`` bytes per rank on ``P = nodes x gpus_per_node`` ranks, every rank
sends ``S / P`` bytes to each rank, itself included (that chunk is a local copy). Of the
``P - 1`` chunks that move, ``gpus_per_node - 1`` go to GPUs of the same node and
``P - gpus_per_node`` leave the node. With one NIC per GPU and a rail-optimised network (NCCL's
PXN moves a chunk over NVLink to the GPU whose NIC sits on the destination's rail, NCCL 2.12 and
later), each GPU's NIC carries ``S (P - g) / P`` bytes out and as many in; NVLink carries the
rest at the same time.

When the network is the slower part, the time is ``S (P - g) / (P B_net)``, so nccl-tests'
bus bandwidth, ``S / t x (P - 1) / P``, is ``B_net (P - 1) / (P - g)``: close to twice the NIC
speed on two nodes (half the chunks never touch the network), approaching the NIC speed as nodes
are added. :func:`alltoall_split` computes these numbers; it is a bandwidth bound (no latency, no
congestion), not a prediction of NCCL, whose tuner does not price all-to-all.

Units: bytes; seconds; bandwidths in bytes/s (GB/s = 1e9 bytes/s) unless named ``_GBps``.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.presets import Preset, get_preset


@dataclass(frozen=True)
class AllToAllSplit:
    """One all-to-all of ``size_bytes`` per rank on ``nodes`` x ``gpus_per_node`` ranks.

    ``intra_bytes`` / ``network_bytes``: bytes one rank sends to other GPUs of its node / to
    other nodes; ``network_fraction``: network bytes / all bytes that move (the local copy
    excluded); ``time_s``: the slower of NVLink and the network, both at full speed at once;
    ``busbw_GBps``: nccl-tests' bus bandwidth for that time; ``bound_by``: "network" or
    "nvlink"."""

    nodes: int
    gpus_per_node: int
    size_bytes: float
    intra_bytes: float
    network_bytes: float
    network_fraction: float
    time_s: float
    busbw_GBps: float
    bound_by: str

    @property
    def ranks(self) -> int:
        return self.nodes * self.gpus_per_node


def alltoall_network_fraction(nodes: int, gpus_per_node: int) -> float:
    """Fraction of the bytes an all-to-all moves that cross the network: (P - g) / (P - 1)."""
    if nodes < 1 or gpus_per_node < 1:
        raise ValueError("nodes and gpus_per_node must be at least 1")
    p = nodes * gpus_per_node
    if p == 1:
        return 0.0
    return (p - gpus_per_node) / (p - 1)


def alltoall_split(
    size_bytes: float,
    nodes: int,
    gpus_per_node: int,
    *,
    nvlink_Bps: float,
    network_Bps: float | None,
) -> AllToAllSplit:
    """The all-to-all's bytes inside and between nodes and its bandwidth-bound time.

    ``nvlink_Bps``: one GPU's per-direction bandwidth into its node's switch; ``network_Bps``:
    one GPU's NIC, per direction (None: a single node)."""
    if size_bytes < 0:
        raise ValueError(f"size must be non-negative, got {size_bytes}")
    fraction = alltoall_network_fraction(nodes, gpus_per_node)
    p = nodes * gpus_per_node
    chunk = size_bytes / p
    intra = chunk * (gpus_per_node - 1)
    network = chunk * (p - gpus_per_node)
    if network and network_Bps is None:
        raise ValueError("several nodes need a network bandwidth")
    t_intra = intra / nvlink_Bps
    t_net = network / network_Bps if network else 0.0
    t = max(t_intra, t_net)
    busbw = size_bytes / t * busbw_factor("all_to_all", p) / 1e9 if t > 0 else 0.0
    return AllToAllSplit(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        size_bytes=size_bytes,
        intra_bytes=intra,
        network_bytes=network,
        network_fraction=fraction,
        time_s=t,
        busbw_GBps=busbw,
        bound_by="network" if t_net >= t_intra and network else "nvlink",
    )


def alltoall_split_on_preset(
    size_bytes: float, preset: str | Preset, nodes: int | None = None
) -> AllToAllSplit:
    """:func:`alltoall_split` with a preset's NVLink and NIC speeds, on ``nodes`` of its nodes
    (default: the preset's own count)."""
    preset = get_preset(preset)
    n = preset.nodes if nodes is None else int(nodes)
    return alltoall_split(
        size_bytes,
        n,
        preset.ranks_per_node,
        nvlink_Bps=preset.bandwidth_Bps,
        network_Bps=preset.inter_bandwidth_Bps,
    )
