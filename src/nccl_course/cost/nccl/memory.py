"""NCCL's communication buffers: how many bytes of GPU memory a communicator holds per GPU.

A model of what NCCL 2.30.7 allocates once a communicator has connected its rings, its NVLS
resources and, for send/receive, its peers. Every count comes from the source (tag v2.30.7-1):

- **One connection** (a channel's link from one rank to one peer) has a buffer per protocol,
  :data:`~nccl_course.cost.nccl.call_cost.BUFFER_BYTES` (``NCCL_LL_BUFFSIZE``,
  ``NCCL_LL128_BUFFSIZE``, ``NCCL_BUFFSIZE``), all three whatever ``NCCL_PROTO`` allows.
  Over NVLink or PCIe (src/transport/p2p.cc ``p2pRecvSetup``/``p2pSendSetup``) the receiver
  allocates a 4 KiB ``ncclRecvMem`` plus the three buffers, the sender a 4 KiB ``ncclSendMem``;
  with P2P read (the default only between two A100s on NVLink, src/graph/paths.cc) the Simple
  buffer moves to the sender. Over the network with GPUDirect RDMA (src/transport/net.cc
  ``recvProxyConnect``/``sendProxyConnect``) the receiver holds the three buffers in GPU
  memory, the sender LL128 and Simple (its LL buffer and both 4 KiB headers sit in host memory).
- **cuMem rounding**: with the cuMem (virtual memory) allocator, on by default where the driver
  supports it, NCCL rounds every allocation up to the allocation granularity
  (:data:`CUMEM_GRANULARITY_BYTES`, src/include/alloc.h ``ALIGN_SIZE(size, granularity)``), so a
  4 KiB header costs a whole 2 MiB.
- **Rings**: each channel gives every rank one incoming and one outgoing connection. On several
  nodes, one of a node's ``g`` links per channel crosses the network instead of NVLink.
- **NVLS** (src/transport/nvls.cc ``ncclNvlsBufferSetup``): ``channels x 2 x chunk x NCCL_STEPS``
  bytes per head, times the number of heads (one per GPU of the node on a single node), in one
  unicast allocation per GPU that the multicast object maps. Earlier releases sized it
  differently (:data:`NVLS_LAYOUTS`).
- **Send/receive** between GPUs of a node uses the same per-connection buffers on
  ``channels_per_peer`` channels for every peer it talks to.

Left out: tree and PAT connections (made only when those algorithms run, NCCL 2.22+), CollNet,
the network's shared send/receive buffers, user buffer registration, and NCCL's small fixed
allocations (work FIFO, device communicator, proxy state). The model counts bytes of buffer,
not what ``nvidia-smi`` shows: the CUDA context (hundreds of MiB) comes on top.

Units: bytes throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.call_cost import BUFFER_BYTES

#: NCCL_STEPS (src/include/device.h line 26): slots each buffer is cut into.
NCCL_STEPS = 8

#: sizeof(ncclSendMem) = sizeof(ncclRecvMem) = MEM_ALIGN (src/include/comm.h lines 45-77).
CONN_HEADER_BYTES = 4096

#: The device-memory granularity cuMemGetAllocationGranularity reports on NVIDIA's data-centre
#: GPUs (2 MiB); NCCL rounds each cuMem allocation up to it.
CUMEM_GRANULARITY_BYTES = 2 << 20

#: NCCL_NVLS_CHUNKSIZE default (src/transport/nvls.cc line 160), NCCL 2.21 and later.
NVLS_CHUNK_BYTES = 128 << 10

PROTOCOLS = ("LL", "LL128", "Simple")


def round_up(n_bytes: int, granularity: int) -> int:
    """``n_bytes`` rounded up to a multiple of ``granularity`` (bytes; 1 or less: unchanged)."""
    if granularity <= 1:
        return n_bytes
    return -(-n_bytes // granularity) * granularity


def _buffers(buffers: dict[str, int] | None) -> dict[str, int]:
    sizes = dict(BUFFER_BYTES) if buffers is None else {**BUFFER_BYTES, **buffers}
    unknown = set(sizes) - set(PROTOCOLS)
    if unknown:
        raise ValueError(
            f"unknown protocol(s) {sorted(unknown)} in buffers; use keys among {PROTOCOLS}"
        )
    if any(v < 0 for v in sizes.values()):
        raise ValueError(f"buffer sizes must be 0 or more bytes, got {sizes}")
    return sizes


@dataclass(frozen=True)
class Connection:
    """Device bytes one connection costs: ``receiver`` on the receiving GPU, ``sender`` on the
    sending one (both after cuMem rounding)."""

    receiver: int
    sender: int

    @property
    def total(self) -> int:
        return self.receiver + self.sender


def p2p_connection(
    buffers: dict[str, int] | None = None, *, read: bool = False, cumem: bool = True
) -> Connection:
    """One NVLink/PCIe connection (P2P transport), bytes on each side.

    ``buffers`` overrides :data:`BUFFER_BYTES` per protocol (``NCCL_BUFFSIZE`` is ``Simple``);
    ``read`` puts the Simple buffer on the sender (P2P read); ``cumem`` rounds each side to
    :data:`CUMEM_GRANULARITY_BYTES` (``NCCL_CUMEM_ENABLE=0``: no rounding)."""
    b = _buffers(buffers)
    simple_on_sender = b["Simple"] if read else 0
    receiver = CONN_HEADER_BYTES + b["LL"] + b["LL128"] + b["Simple"] - simple_on_sender
    sender = CONN_HEADER_BYTES + simple_on_sender
    gran = CUMEM_GRANULARITY_BYTES if cumem else 1
    return Connection(round_up(receiver, gran), round_up(sender, gran))


def net_connection(buffers: dict[str, int] | None = None, *, cumem: bool = True) -> Connection:
    """One network connection with GPUDirect RDMA, device bytes on each side: the receiver's
    three buffers and the sender's LL128 and Simple ones (its LL buffer is host memory)."""
    b = _buffers(buffers)
    gran = CUMEM_GRANULARITY_BYTES if cumem else 1
    receiver = b["LL"] + b["LL128"] + b["Simple"]
    sender = b["LL128"] + b["Simple"]
    return Connection(round_up(receiver, gran), round_up(sender, gran))


def ring_bytes(
    channels: int,
    ranks_per_node: int,
    nodes: int = 1,
    buffers: dict[str, int] | None = None,
    *,
    read: bool = False,
    cumem: bool = True,
) -> float:
    """Ring buffers per GPU (bytes, averaged over a node's GPUs) for ``channels`` channels.

    Per channel a node has ``ranks_per_node`` ring links leaving its GPUs; on one node all are
    NVLink/PCIe, on several nodes one of them crosses the network."""
    if channels < 0 or ranks_per_node < 1 or nodes < 1:
        raise ValueError(
            f"channels={channels}, ranks_per_node={ranks_per_node}, nodes={nodes}: need "
            "channels >= 0 and at least one rank per node on one node"
        )
    if ranks_per_node * nodes < 2:
        return 0.0
    p2p = p2p_connection(buffers, read=read, cumem=cumem).total
    if nodes == 1:
        return float(channels * p2p)
    net = net_connection(buffers, cumem=cumem).total
    per_node = (ranks_per_node - 1) * p2p + net
    return channels * per_node / ranks_per_node


@dataclass(frozen=True)
class NvlsLayout:
    """How a release sizes the NVLS buffer: ``channels`` is "nvls" (comm->nvlsChannels) or "comm"
    (comm->nChannels); each slot is ``buffer`` bytes ("simple": NCCL_BUFFSIZE, else the NVLS
    chunk x NCCL_STEPS) plus ``pad`` bytes."""

    releases: str
    channels: str
    buffer: str
    pad: int


#: NVLS buffer layouts by release (``nvlsPerRankSize`` in src/transport/nvls.cc of each tag).
NVLS_LAYOUTS = {
    "2.20": NvlsLayout("2.19-2.20 (checked in 2.20.5)", "comm", "simple", 2 << 20),
    "2.21": NvlsLayout("2.21 (checked in 2.21.5)", "comm", "chunk", 2 << 20),
    "2.22": NvlsLayout("2.22 to 2.30.7", "nvls", "chunk", 0),
}


def nvls_bytes(
    nvls_channels: int = T.NVLS_CHANNELS_SM90,
    heads: int = 8,
    *,
    comm_channels: int | None = None,
    release: str = "2.22",
    chunk_bytes: int = NVLS_CHUNK_BYTES,
    buffsize: int | None = None,
) -> int:
    """NVLS buffer per GPU (bytes): ``channels x 2 x slot x heads`` as ``release`` lays it out.

    ``heads``: NVLS heads, one per GPU of the node on a single node (at most
    NCCL_MAX_NVLS_ARITY); ``comm_channels`` is needed by releases before 2.22, which sized the
    buffer by the communicator's channels; ``buffsize`` is NCCL_BUFFSIZE (default 4 MiB)."""
    if release not in NVLS_LAYOUTS:
        raise ValueError(f"unknown NVLS layout {release!r}; use one of {sorted(NVLS_LAYOUTS)}")
    if not 0 < heads <= T.MAX_NVLS_ARITY:
        raise ValueError(f"heads={heads}: NCCL uses 1 to {T.MAX_NVLS_ARITY} NVLS heads")
    layout = NVLS_LAYOUTS[release]
    if layout.channels == "comm":
        if comm_channels is None:
            raise ValueError(
                f"NCCL {layout.releases} sizes NVLS by the communicator's channels: "
                "pass comm_channels"
            )
        channels = comm_channels
    else:
        channels = nvls_channels
    simple = BUFFER_BYTES["Simple"] if buffsize is None else buffsize
    slot = (simple if layout.buffer == "simple" else chunk_bytes * NCCL_STEPS) + layout.pad
    return channels * 2 * slot * heads


def p2p_bytes(
    peers: int,
    channels_per_peer: int,
    buffers: dict[str, int] | None = None,
    *,
    read: bool = False,
    cumem: bool = True,
) -> int:
    """Send/receive buffers per GPU (bytes) after exchanging with ``peers`` GPUs of the node in
    both directions, each over ``channels_per_peer`` channels."""
    if peers < 0 or channels_per_peer < 0:
        raise ValueError(f"peers={peers}, channels_per_peer={channels_per_peer}: need >= 0")
    return peers * channels_per_peer * p2p_connection(buffers, read=read, cumem=cumem).total


@dataclass(frozen=True)
class Footprint:
    """Bytes per GPU by part: ``ring``, ``nvls`` and ``p2p`` (see the module doc)."""

    ring: float
    nvls: int
    p2p: int

    @property
    def total(self) -> float:
        return self.ring + self.nvls + self.p2p


def footprint(
    ranks_per_node: int,
    nodes: int,
    channels: int,
    *,
    buffers: dict[str, int] | None = None,
    nvls: bool = False,
    nvls_channels: int = T.NVLS_CHANNELS_SM90,
    p2p_peers: int = 0,
    p2p_channels_per_peer: int = 0,
    read: bool = False,
    cumem: bool = True,
) -> Footprint:
    """NCCL 2.22+ buffer memory per GPU (bytes) of one communicator once its rings, NVLS
    (``nvls``: one head per GPU of the node) and ``p2p_peers`` send/receive peers are
    connected."""
    heads = min(ranks_per_node, T.MAX_NVLS_ARITY)
    return Footprint(
        ring=ring_bytes(channels, ranks_per_node, nodes, buffers, read=read, cumem=cumem),
        nvls=nvls_bytes(nvls_channels, heads) if nvls else 0,
        p2p=p2p_bytes(p2p_peers, p2p_channels_per_peer, buffers, read=read, cumem=cumem),
    )


def mib(n_bytes: float) -> float:
    """Bytes as MiB (2**20 bytes)."""
    return n_bytes / (1 << 20)
