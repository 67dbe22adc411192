"""How NCCL cuts a collective into steps, slices and chunks, and what its proxy thread counts.

Every connection between two ranks on a channel has a buffer per protocol (the sizes in
:data:`~nccl_course.cost.nccl.call_cost.BUFFER_BYTES`, ``NCCL_BUFFSIZE`` for Simple) split in
:data:`NCCL_STEPS` slots of one *step* each. A *slice* is the data one send posts, ``slice
steps`` slots; a *chunk* is what one rank owns in one loop of the ring, ``chunk steps`` slots.
The proxy thread of a network (or CE-copy P2P) connection advances a counter per step; the
number of steps it is told to expect for one call (``ncclProxyOp.nsteps``) is what
:func:`ring_all_reduce_plan` computes.

The rules are NCCL 2.30.7's (tag v2.30.7-1): ``NCCL_STEPS`` in src/include/device.h,
``*_SLICESTEPS`` / ``*_CHUNKSTEPS`` in src/include/collectives.h, ``calcCollChunking`` and the
channel split (``MinTrafficPerChannel``) in src/enqueue.cc, the ring loop of
src/device/all_reduce.h and the slice rule of src/device/prims_simple.h. Chunk and slice steps
apply to Ring with the Simple protocol; every other algorithm and protocol uses one step per
chunk and per slice.

Units: bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.nccl.call_cost import BUFFER_BYTES

#: Slots of every connection's buffer (``NCCL_STEPS``, src/include/device.h; 8 since NCCL 2.4).
NCCL_STEPS = 8

#: (slice steps, chunk steps) per collective for Ring/Simple (src/include/collectives.h):
#: all-reduce, all-gather and reduce-scatter send a chunk of NCCL_STEPS / 2 steps as two slices of
#: NCCL_STEPS / 4; the others send one step at a time.
RING_SIMPLE_STEPS = {
    "all_reduce": (NCCL_STEPS // 4, NCCL_STEPS // 2),
    "all_gather": (NCCL_STEPS // 4, NCCL_STEPS // 2),
    "reduce_scatter": (NCCL_STEPS // 4, NCCL_STEPS // 2),
    "broadcast": (1, 1),
    "reduce": (1, 1),
}

#: LL lines are 16 bytes, 8 of data and 8 of flags (``union ncclLLFifoLine``).
LL_DATA_SHARE = (1, 2)
#: LL128 lines are 16 eight-byte elements, 15 of data (``NCCL_LL128_LINEELEMS``/``DATAELEMS``).
LL128_LINE_ELEMS, LL128_DATA_ELEMS = 16, 15

#: Bytes a chunk is a multiple of (``ncclProtoGrainSize``, src/include/device.h): LL 16; LL128
#: one warp's 32 threads x 8 elements, data part only (32 x 8 / 16 x 15 x 8 = 1920); Simple 512.
GRAIN_BYTES = {
    "LL": 16,
    "LL128": 32 * 8 // LL128_LINE_ELEMS * LL128_DATA_ELEMS * 8,
    "Simple": 512,
}

#: The least traffic NCCL 2.30.7 gives a channel (``MinTrafficPerChannel``, src/enqueue.cc): an
#: all-reduce counts 2 bytes of traffic per byte, LL four times that, so a small call uses few
#: channels.
MIN_TRAFFIC_PER_CHANNEL = 32 << 10

#: Point-to-point chunk (= step) sizes for Simple send/recv, NCCL 2.30.7 defaults (src/init.cc,
#: ``computeBuffSizes``): NCCL_P2P_NET_CHUNKSIZE when the communicator spans nodes (doubled on
#: Arm hosts with Blackwell GPUs), NCCL_P2P_NVL_CHUNKSIZE when every GPU pair is NVLink, else
#: NCCL_P2P_PCI_CHUNKSIZE; never above NCCL_BUFFSIZE / NCCL_STEPS.
P2P_CHUNK_BYTES = {"net": 1 << 17, "nvlink": 1 << 19, "pci": 1 << 17}


def _div_up(a: int, b: int) -> int:
    return -(-a // b)


def _buffer(protocol: str, buffsize: int | None) -> int:
    if protocol not in BUFFER_BYTES:
        raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(BUFFER_BYTES)}")
    size = BUFFER_BYTES[protocol] if buffsize is None else int(buffsize)
    if size < NCCL_STEPS:
        raise ValueError(f"buffer of {size} bytes is smaller than NCCL_STEPS = {NCCL_STEPS} slots")
    return size


def step_bytes(protocol: str, buffsize: int | None = None) -> int:
    """Bytes of one step (slot) of a connection's buffer: buffsize / NCCL_STEPS, flags included
    (``buffsize``: the protocol's buffer, default NCCL's)."""
    return _buffer(protocol, buffsize) // NCCL_STEPS


@dataclass(frozen=True)
class Chunking:
    """How a ring collective cuts its data for one protocol: ``step`` bytes per slot (flags
    included), ``slice_steps`` and ``chunk_steps`` slots per slice and per chunk, ``chunk`` and
    ``slice`` bytes of user data, and ``slices_in_flight``, the slices a connection's buffer
    holds at once."""

    protocol: str
    step: int
    slice_steps: int
    chunk_steps: int
    chunk: int
    slice: int

    @property
    def slices_in_flight(self) -> int:
        return NCCL_STEPS // self.slice_steps


def ring_chunking(collective: str, protocol: str, buffsize: int | None = None) -> Chunking:
    """NCCL's chunk for a Ring ``collective`` in ``protocol`` (``calcCollChunking``): step x
    chunk steps, halved for LL's flags, 15/16 for LL128's, rounded down to the protocol's grain."""
    if collective not in RING_SIMPLE_STEPS:
        raise ValueError(
            f"unknown ring collective {collective!r}; known: {', '.join(RING_SIMPLE_STEPS)}"
        )
    step = step_bytes(protocol, buffsize)
    slice_steps, chunk_steps = RING_SIMPLE_STEPS[collective] if protocol == "Simple" else (1, 1)
    chunk = step * chunk_steps
    if protocol == "LL":
        chunk = chunk * LL_DATA_SHARE[0] // LL_DATA_SHARE[1]
    elif protocol == "LL128":
        chunk = chunk // LL128_LINE_ELEMS * LL128_DATA_ELEMS
    chunk = chunk // GRAIN_BYTES[protocol] * GRAIN_BYTES[protocol]
    return Chunking(
        protocol, step, slice_steps, chunk_steps, chunk, chunk // chunk_steps * slice_steps
    )


def channels_used(n_bytes: int, channels: int, protocol: str) -> int:
    """Channels a lone all-reduce of ``n_bytes`` spreads over (NCCL 2.30.7's split of the call
    into cells of :data:`MIN_TRAFFIC_PER_CHANNEL` traffic: each channel gets a whole number of
    cells), out of the ``channels`` its algorithm may use."""
    traffic_per_byte = 2 * (4 if protocol == "LL" else 1)
    cell = _div_up(MIN_TRAFFIC_PER_CHANNEL, traffic_per_byte)
    cells = max(1, _div_up(n_bytes, cell))
    per_channel = _div_up(cells, max(1, channels))
    return _div_up(cells, per_channel)


@dataclass(frozen=True)
class RingPlan:
    """One channel of a ring all-reduce as NCCL 2.30.7 runs it (the channel with the most data):
    ``channel_bytes`` of user data in ``loops`` loops of ``ranks`` chunks; ``proxy_steps`` the
    steps each of its connections counts (``ncclProxyOp.nsteps``); ``sends`` the slices each
    rank posts in order, ``send_bytes`` the data of the largest, ``chunking`` the full sizes."""

    ranks: int
    channels: int
    channel_bytes: int
    loops: int
    proxy_steps: int
    sends: int
    send_bytes: int
    chunking: Chunking

    @property
    def slice_fill(self) -> float:
        """How full the largest send's slice is: its data over a full slice's."""
        return self.send_bytes / self.chunking.slice


def ring_all_reduce_plan(
    n_bytes: int, ranks: int, channels: int, protocol: str, buffsize: int | None = None
) -> RingPlan:
    """The busiest channel of a Ring all-reduce of ``n_bytes`` on ``ranks`` ranks and up to
    ``channels`` channels in ``protocol`` (see :class:`RingPlan`)."""
    if ranks < 2:
        raise ValueError(f"a ring needs 2 ranks or more, got {ranks}")
    if n_bytes < 0:
        raise ValueError(f"size must be non-negative, got {n_bytes}")
    c = ring_chunking("all_reduce", protocol, buffsize)
    used = channels_used(n_bytes, channels, protocol)
    channel_bytes = _div_up(n_bytes, used)
    loop_bytes = ranks * c.chunk
    loops = max(1, _div_up(channel_bytes, loop_bytes))
    # the last loop shrinks its chunk to its share of what is left, 16-byte aligned
    last = channel_bytes - (loops - 1) * loop_bytes
    last_chunk = _div_up(_div_up(last, ranks), 16) * 16
    slices_per_chunk = c.chunk_steps // c.slice_steps
    if loops > 1:
        send = c.slice
    elif protocol == "Simple":
        # a slice is at least 1/32 of a full one (prims_simple.h): a small chunk goes in one send
        send = min(last_chunk, max(_div_up(last_chunk, 16 * slices_per_chunk) * 16, c.slice // 32))
    else:
        send = last_chunk
    hops = 2 * (ranks - 1)
    return RingPlan(
        ranks=ranks,
        channels=used,
        channel_bytes=channel_bytes,
        loops=loops,
        proxy_steps=hops * loops * c.chunk_steps,
        sends=hops * loops * slices_per_chunk,
        send_bytes=send,
        chunking=c,
    )
