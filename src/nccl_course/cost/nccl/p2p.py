"""How NCCL 2.30.7 runs an all-to-all, and what it costs: a model of grouped sends and receives.

NCCL has no all-to-all algorithm and its tuner never prices one. nccl-tests' ``alltoall_perf``
(src/alltoall.cu) issues, between ``ncclGroupStart`` and ``ncclGroupEnd``, one ``ncclSend`` and
one ``ncclRecv`` of ``size / n`` bytes to and from every rank, itself included (from NCCL 2.28
it calls ``ncclAlltoAll``, which NCCL turns into the same sends and receives: src/enqueue.cc,
``ncclFuncAlltoAll`` in ``taskAppend``). NCCL turns the group into one kernel of point-to-point
work (src/enqueue.cc, ``scheduleP2pTasksToPlan`` and
``addP2pToPlan``), and this module follows its rules:

* **Channels.** ``p2pnChannels`` is the communicator's channels rounded up to a power of two
  (src/graph/paths.cc ``ncclTopoComputeP2pChannels``). Each peer may use up to
  ``p2pnChannelsPerPeer``: 2 per NVLink's worth of bandwidth to a GPU of the node (2 over PCIe),
  and to a GPU of another node one per local NIC, or more to reach the NIC's speed at
  :data:`P2P_PER_CHANNEL_NET_BW` GB/s each (``ncclTopoGetNchannels``); the smallest over all
  peers, a power of two, halved on several nodes until every peer fits in one round of
  ``NCCL_MAX_DEV_WORK_P2P_PER_BATCH`` = 8 operations per channel. An operation starts on
  ``nChannelsMin`` channels (all peers at once on ``p2pnChannels``) and doubles them while a
  part would exceed the largest part (``addP2pToPlan``).
* **Protocol.** LL when a peer's bytes are at most ``channels x NCCL_P2P_LL_THRESHOLD``
  (16 KiB, src/enqueue.cc), Simple otherwise; never LL128.
* **Chunks.** ``p2pChunkSize``: ``NCCL_P2P_NET_CHUNKSIZE`` = 128 KiB on several nodes,
  ``NCCL_P2P_NVL_CHUNKSIZE`` = 512 KiB when every GPU pair is on NVLink,
  ``NCCL_P2P_PCI_CHUNKSIZE`` = 128 KiB otherwise (src/init.cc ``computeBuffSizes``); it sets the
  smallest and largest part a channel carries.
* **Paths.** Every peer's transfer runs at the same time, each on its own channels: the bytes for
  GPUs of the same node cross the GPU's NVLink (or PCIe) link, those for other nodes the GPU's
  share of the node's NICs. Both directions are busy at once and the links are independent, so
  the call lasts as long as the slower path: ``max(intra bytes / NVLink rate, inter bytes /
  NIC rate)``. As NCCL's maintainers put it for nccl-tests' all-to-all, the network part
  decides the time on several nodes, and all-to-all cannot use more than one NIC per GPU
  (NVIDIA/nccl-tests issues 130 and 267).
* **Rates.** The NVLink rate is NCCL's own NVLink bandwidth per GPU (links x NCCL's per-link
  figure, ``ncclTopoNVLinkBw``, which already leaves out the protocol overhead: 370.8 GB/s on
  H100); over PCIe, the PCIe link's. The NIC rate is the port's speed times the NICs per GPU.
  LL carries 8 bytes of data in every 16-byte line (``union ncclLLFifoLine``), so it moves data
  at half the link's rate.
* **Latency.** One step of NCCL's ring latency for the protocol: ``baseLat[Ring][proto] +
  hwLat[link][Ring][proto]`` (src/graph/tuning.cc), with the network's hop on several nodes,
  because all peers proceed in parallel rather than one after the other.

What the call costs as a harness times it (the fixed cost, the network's achievable bandwidth and
latency, the pipeline fill) is added by :func:`~nccl_course.cost.nccl.call_cost.call_cost`, as
for every other collective. Not modelled: the proxy thread that posts each network send and
receive one after the other (on several nodes small all-to-alls cost tens of microseconds, more
than one step's latency), and the PXN hop over NVLink that carries inter-node bytes to the GPU
next to the right NIC (a few percent of NVLink's bandwidth on the presets).

Units: bytes, microseconds, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.system import NcclSystem

#: ``NCCL_P2P_NET_CHUNKSIZE``, ``NCCL_P2P_NVL_CHUNKSIZE``, ``NCCL_P2P_PCI_CHUNKSIZE`` defaults,
#: bytes (src/init.cc lines 818-820).
P2P_NET_CHUNK = 1 << 17
P2P_NVL_CHUNK = 1 << 19
P2P_PCI_CHUNK = 1 << 17

#: ``NCCL_P2P_LL_THRESHOLD`` default: bytes per channel up to which a send or receive uses LL
#: (src/enqueue.cc line 859).
P2P_LL_THRESHOLD = 16384

#: ``NCCL_P2P_PER_CHANNEL_NET_BW`` default, GB/s a channel to a remote peer is counted for
#: (src/graph/paths.cc line 918).
P2P_PER_CHANNEL_NET_BW = 14

#: ``NCCL_MAX_DEV_WORK_P2P_PER_BATCH``: operations one channel runs at once
#: (src/include/device.h line 391).
P2P_PER_BATCH = 8

#: The Simple buffer every connection has, split in ``NCCL_STEPS`` = 8 slots (src/init.cc):
#: a chunk larger than a slot is cut down to it.
NCCL_STEPS = 8
SIMPLE_BUFFER = 1 << 22

#: LL's share of a line that carries data: 8 bytes of 16 (src/include/device.h, ncclLLFifoLine).
LL_DATA_SHARE = 0.5


@dataclass(frozen=True)
class P2pPlan:
    """How NCCL runs one all-to-all of ``size_bytes`` (nccl-tests' size: every rank's whole send
    buffer) and NCCL's-rules estimate of it. ``peer_bytes``: bytes to each rank;
    ``intra_bytes`` / ``inter_bytes``: what each rank sends to the other GPUs of its node /
    to other nodes; ``*_GBps``: the rate each path gets (0 where there is no such path);
    ``channels_per_peer``: channels each send and receive uses; ``channels``: the distinct
    channels the kernel runs on; ``latency_us`` and ``transfer_us``: the two terms of
    ``estimate_us``."""

    size_bytes: int
    ranks: int
    nodes: int
    protocol: str
    chunk_bytes: int
    channels_per_peer: int
    channels: int
    peer_bytes: float
    intra_bytes: float
    inter_bytes: float
    intra_GBps: float
    inter_GBps: float
    latency_us: float
    transfer_us: float

    @property
    def estimate_us(self) -> float:
        return self.latency_us + self.transfer_us


def _pow2_up(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1, n))))


def p2p_channels(system: NcclSystem) -> tuple[int, int]:
    """(``p2pnChannels``, ``p2pnChannelsPerPeer``) of the communicator (src/graph/paths.cc
    ``ncclTopoComputeP2pChannelsPerPeer`` and ``ncclTopoComputeP2pChannels``, defaults)."""
    hw = system.hardware
    n_channels = min(_pow2_up(system.comm_channels), T.MAX_CHANNELS)
    if system.nodes > 1:
        # remote peers: one channel per local NIC, more to reach the NIC's speed; rail-optimised
        # presets have the GPU's own NIC (or its share of one) next to it
        net_bw = hw.nic_bw * max(1, hw.nics_per_node // hw.gpus_per_node)
        net_count = max(1, hw.nics_per_node // hw.gpus_per_node)
        per_peer = max(net_count, math.ceil(net_bw / P2P_PER_CHANNEL_NET_BW))
    elif hw.nvlink_links:
        per_peer = 2 * max(1, int(hw.nvlink_bw / T.NVLINK_BW_PER_LINK[_nvl_cc(hw.cc)]))
    else:
        per_peer = 2
    per_peer = _pow2_up(per_peer)
    if system.nodes > 1:
        rounds = math.ceil(system.ranks / P2P_PER_BATCH)
        while per_peer * rounds > n_channels and per_peer > 1:
            per_peer //= 2
    else:
        per_peer = min(n_channels, per_peer)
    return n_channels, per_peer


def _nvl_cc(cc: int) -> int:
    return max(c for c in T.NVLINK_BW_PER_LINK if c <= cc)


def chunk_bytes(system: NcclSystem) -> int:
    """``p2pChunkSize`` (src/init.cc ``computeBuffSizes``), at most a Simple buffer slot."""
    if system.nodes > 1:
        chunk = P2P_NET_CHUNK
    elif system.hardware.nvlink_links:
        chunk = P2P_NVL_CHUNK
    else:
        chunk = P2P_PCI_CHUNK
    return min(chunk, SIMPLE_BUFFER // NCCL_STEPS)


def _peer_channels(system: NcclSystem, peer_bytes: int, n_min: int, n_max: int, chunk: int) -> int:
    """Channels one send (or receive) of ``peer_bytes`` uses (``addP2pToPlan``)."""
    if peer_bytes <= 0:
        return 1
    several = system.nodes > 1
    min_part = chunk // 2 if several else chunk // 8
    max_part = chunk if several else chunk * 32
    n = min(n_min, -(-peer_bytes // min_part))
    part = max(min_part, -(-peer_bytes // n))
    while part > max_part and n <= n_max // 2:
        n *= 2
        part = -(-peer_bytes // n)
    return n


def plan(system: NcclSystem, size_bytes: int) -> P2pPlan:
    """NCCL's way of running an all-to-all of ``size_bytes`` on ``system``, and its time by the
    rules of the module doc (no harness, no network efficiency: see ``call_cost``)."""
    if size_bytes < 0:
        raise ValueError(f"size must be non-negative, got {size_bytes}")
    n, per_node, nodes = system.ranks, system.gpus_per_node, system.nodes
    hw = system.hardware
    n_channels, n_max = p2p_channels(system)
    n_min = n_max
    while n_min * n > n_channels and n_min > 1:
        n_min //= 2
    chunk = chunk_bytes(system)
    peer = size_bytes / n
    per_peer = _peer_channels(system, int(peer), n_min, n_max, chunk)
    protocol = "LL" if peer <= per_peer * P2P_LL_THRESHOLD else "Simple"
    share = LL_DATA_SHARE if protocol == "LL" else 1.0

    intra_bytes = peer * (per_node - 1)
    inter_bytes = peer * (n - per_node)
    intra_rate = (hw.nvlink_bw if hw.nvlink_links else hw.pcie_bw) * share
    nics_per_gpu = min(1.0, hw.nics_per_node / per_node) if hw.nics_per_node else 0.0
    inter_rate = hw.nic_bw * nics_per_gpu * share if nodes > 1 else 0.0
    if nodes > 1 and inter_rate <= 0:
        raise ValueError(
            f"{hw.gpu}: {nodes} nodes but no network in the NCCL description; "
            "give the preset nics_per_node and nic_gbit"
        )
    times = [b / (r * 1e3) for b, r in ((intra_bytes, intra_rate), (inter_bytes, inter_rate)) if b]

    ring, p = T.ALGORITHMS.index("Ring"), T.PROTOCOLS.index(protocol)
    link = T.HW_NET if nodes > 1 else (T.HW_NVLINK if hw.nvlink_links else T.HW_PCI)
    latency = T.BASE_LATENCY_US[ring][p] + T.HW_LATENCY_US[link][ring][p]
    return P2pPlan(
        size_bytes=int(size_bytes),
        ranks=n,
        nodes=nodes,
        protocol=protocol,
        chunk_bytes=chunk,
        channels_per_peer=per_peer,
        channels=min(n_channels, (n - 1) * per_peer),
        peer_bytes=peer,
        intra_bytes=intra_bytes,
        inter_bytes=inter_bytes,
        intra_GBps=intra_rate if per_node > 1 else 0.0,
        inter_GBps=inter_rate,
        latency_us=latency,
        transfer_us=max(times, default=0.0),
    )
