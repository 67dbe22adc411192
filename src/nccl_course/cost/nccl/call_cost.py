"""What one NCCL call costs, at every size: NCCL's own estimate plus what it leaves out.

NCCL's tuner (:mod:`~nccl_course.cost.nccl.tuner`) estimates a time per algorithm and protocol
only to *choose* between them; nothing in NCCL checks that estimate against a clock. Measured
against published nccl-tests sweeps (:mod:`nccl_course.cost.sweeps`) it misses in three ways,
which this module adds back, on top of NCCL's choice (algorithm, protocol and channels stay
exactly what the tuner picks):

1. **A fixed cost per call** that the tuner's latencies leave out: the host's enqueue and
   kernel launch, and how the harness issues calls. It depends on who calls NCCL
   (:data:`HARNESSES`): nccl-tests with one process per GPU issues one launch per call; one
   process driving several GPUs (``-g 8``) launches one kernel per GPU in turn; a Python loop
   of ``torch.distributed`` adds its own overhead per call.
2. **Pipeline fill**: each channel of a protocol streams through a buffer of
   :data:`BUFFER_BYTES` (NCCL's defaults, ``DEFAULT_LL_BUFFSIZE``, ``DEFAULT_LL128_BUFFSIZE``
   and ``DEFAULT_BUFFSIZE`` = 4 MiB in src/init.cc, split in ``NCCL_STEPS`` = 8 slots). Until a
   call has filled every channel's buffer, the steps do not overlap and the data moves at a
   fraction of the bandwidth; past that, the fill costs about a constant. Modelled as
   ``fill = FILL_FRACTION[protocol] x (n x cap / (n + cap)) / bandwidth`` with
   ``cap = channels x BUFFER_BYTES[protocol]``: a term that grows like the size up to about
   ``cap`` and then levels off at ``cap / bandwidth``, so it matters from about 1 MiB to a few
   hundred MiB and vanishes in relative terms beyond.
3. **Achievable, not nominal, network bandwidth**: the tuner's network bandwidth comes from
   the NIC's nominal speed. :data:`NETWORKS` holds, per class of network, what it achieves
   against that figure and the latency it adds per call. The share applies where the network
   sets the tuner's bandwidth: not to NVLS / NVLSTree calls that NVLink SHARP inside the node
   limits more than the network (NCCL takes the smaller of the two, tuning.cc).

``time = fixed + network latency + NCCL's latency + fill + transfer / efficiency`` where
NCCL's latency is its estimate at 0 bytes and transfer the rest of its estimate. On Blackwell
the latency also carries what its NVLink hops take beyond NCCL's table
(:mod:`~nccl_course.cost.nccl.hop_latency`), and an NVLSTree call on two nodes that NVLink
SHARP bounds moves its bytes at one node's NVLS rate
(:func:`~nccl_course.cost.nccl.estimate.node_nvls_busbw`).

Every constant is either from NCCL's source (buffer sizes) or **fitted** to published sweeps;
each fitted constant names the sweeps it was fitted on. ``scripts/fit_call_cost.py`` refits
them and prints the error on the sweeps left out of the fit. A learner's own calibration
(:class:`Calibration`, written by ``nccl-course model --calibrate``) replaces the fixed cost and
the efficiency of the link class its measurement exercised.

Units: microseconds for times, bytes, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: Bytes of one channel's buffer per protocol, NCCL 2.30.7 defaults (src/init.cc
#: DEFAULT_LL_BUFFSIZE = 8 lines x 512 threads x 8 steps x 16 B; DEFAULT_LL128_BUFFSIZE = 120
#: elements x 640 threads x 8 steps x 8 B; DEFAULT_BUFFSIZE = 1 << 22). NCCL_BUFFSIZE,
#: NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE change them.
BUFFER_BYTES = {"LL": 8 * 512 * 8 * 16, "LL128": 120 * 640 * 8 * 8, "Simple": 1 << 22}

#: The published sweeps the fitted constants below were fitted on (ids in
#: nccl_course/cost/published_sweeps); every other sweep there is held out and reported
#: separately by scripts/fit_call_cost.py and the book.
FITTED_ON = (
    "nvidia-dgxc-8xh100",
    "nccl-tests-309-2x8xh100-ndr",
    "aikitoria-8xrtx5090-pcie",
    "stas00-8xh200-nvls",
)

#: The sweeps the network constants of :data:`NETWORKS` were fitted on (one per network).
NETWORK_FITTED_ON = (
    "a3mega-2x8xh100",
    "dstack-a3mega-2x8xh100-allgather",
    "stas00-4x8xb200-efa",
    "dranet-gke-a3ultra-2x1xh200-allgather",
    "dranet-gke-a4-2x1xb200-allgather",
)

#: Fitted: the share of a full buffer's transfer time that the pipeline fill costs, per
#: protocol (see the module doc), on :data:`FITTED_ON`.
FILL_FRACTION = {"LL": 0.2, "LL128": 0.0, "Simple": 0.75}


@dataclass(frozen=True)
class Harness:
    """Who calls NCCL: ``fixed_us``, the per-call cost outside NCCL's estimate (fitted on
    ``fitted_on``), and what it is."""

    name: str
    fixed_us: float
    description: str
    fitted_on: tuple[str, ...]


#: Fitted: the fixed cost per call of each way of timing NCCL.
HARNESSES = {
    h.name: h
    for h in (
        Harness(
            "nccl-tests",
            3.0,
            "nccl-tests with one process (or MPI rank) per GPU: -g 1, the usual multi-node launch",
            ("nvidia-dgxc-8xh100", "nccl-tests-309-2x8xh100-ndr"),
        ),
        Harness(
            "nccl-tests -g",
            6.0,
            "nccl-tests with one process driving several GPUs (-g 8): it launches one kernel "
            "per GPU in turn in every call",
            ("aikitoria-8xrtx5090-pcie",),
        ),
        Harness(
            "torch.distributed",
            17.0,
            "a Python loop of torch.distributed calls timed with CUDA events (the kind of "
            "loop a training step runs)",
            ("stas00-8xh200-nvls",),
        ),
    )
}

DEFAULT_HARNESS = "nccl-tests"


@dataclass(frozen=True)
class Network:
    """A class of network between nodes: ``efficiency`` = achievable / the tuner's bandwidth
    on multi-node calls, ``latency_us`` added per call; ``source`` says where they come from."""

    name: str
    efficiency: float
    latency_us: float
    source: str


#: The networks the presets name (Preset.network).
NETWORKS = {
    n.name: n
    for n in (
        Network(
            "ib",
            1.0,
            0.0,
            "InfiniBand with GPUDirect RDMA: NCCL's tuner already reproduces the two- and "
            "four-node NDR sweeps of NVIDIA/nccl-tests#309 within 4 % from 256 MiB and within "
            "a few us at 8 B, so nothing is added",
        ),
        Network(
            "roce",
            1.0,
            0.0,
            "RoCE v2 with GPUDirect RDMA: NCCL drives it with the same IB transport and tuner "
            "latencies (src/transport/net_ib, src/graph/tuning.cc); taken as InfiniBand",
        ),
        Network(
            "gke-roce",
            0.68,
            1.0,
            "Google Cloud's RoCE (A3 Ultra, A4: ConnectX-7 400 Gbps) through the gIB plugin. "
            "Fitted on the two runs of one GPU and one NIC on each of 2 nodes, "
            "dranet-gke-a3ultra-2x1xh200-allgather (H200) and dranet-gke-a4-2x1xb200-allgather "
            "(B200); held out: an all_reduce on the same network (dranet-mpijob-2x1xh200-"
            "allreduce) and the 2 x 8 B200 run (dranet-gke-a4-2x8xb200-allgather)",
        ),
        Network(
            "efa",
            1.04,
            253.0,
            "AWS EFA through the aws-ofi-nccl plugin (libfabric). Fitted on one sweep alone, "
            "stas00-4x8xb200-efa (4 nodes x 8 B200, a torch.distributed loop); no held-out "
            "EFA sweep yet, so treat the latency (which includes that loop's synchronisation "
            "across 32 ranks) as a first estimate",
        ),
        Network(
            "tcpxo",
            1.08,
            107.0,
            "Google GPUDirect-TCPXO (A3 Mega: TCP offloaded through the NICs, not RDMA). "
            "Fitted on two A3 Mega runs of 2 nodes x 8 H100: an all-reduce from 8 B "
            "(a3mega-2x8xh100), whose settings the source does not show and whose large sizes "
            "run faster than a ring can (Google's documented settings hand the choice to a "
            "tuner plugin), and an all-gather from 8 MiB (dstack-a3mega-2x8xh100-allgather), a "
            "ring, which moves 91-94 % of the NICs' 200 GB/s per node from 1 GiB; fitted on the "
            "all-reduce alone, the share was 0.42 and the all-gather 58 % off. No held-out TCPXO "
            "sweep yet",
        ),
    )
}


@dataclass(frozen=True)
class Calibration:
    """A learner's fitted constants (``nccl-course model --calibrate``): ``fixed_us`` replaces
    the harness's fixed cost per call (and the network's latency); ``efficiency`` scales the
    course model's bandwidth (the network's efficiency included) of ``link_class`` ("intra":
    inside a node, "inter": between nodes), the one the measurement exercised, and
    ``fill_fraction`` ({protocol: fraction}) replaces
    :data:`FILL_FRACTION` for the protocols the measurement ran (the others keep the
    course's); ``fitted_on`` says what it was fitted on."""

    fixed_us: float
    efficiency: float
    link_class: str
    fitted_on: str
    fill_fraction: dict | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if self.link_class not in ("intra", "inter"):
            raise ValueError(f"link_class must be 'intra' or 'inter', got {self.link_class!r}")
        if not self.efficiency > 0:
            raise ValueError(f"efficiency must be positive, got {self.efficiency}")
        if not self.fixed_us >= 0:
            raise ValueError(f"fixed_us must be zero or more, got {self.fixed_us}")
        for protocol, value in (self.fill_fraction or {}).items():
            if protocol not in BUFFER_BYTES or not 0 <= value < 100:
                raise ValueError(
                    f"fill_fraction: {protocol}: {value} (protocols {', '.join(BUFFER_BYTES)}, "
                    "fractions from 0 up to 100)"
                )

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CallCost:
    """One call's time, in microseconds, term by term (see the module doc)."""

    fixed_us: float
    network_us: float
    latency_us: float
    fill_us: float
    transfer_us: float

    @property
    def total_us(self) -> float:
        return self.fixed_us + self.network_us + self.latency_us + self.fill_us + self.transfer_us


def harness(name: str | None) -> Harness:
    """The harness by name (default nccl-tests); ValueError naming the known ones."""
    try:
        return HARNESSES[name or DEFAULT_HARNESS]
    except KeyError:
        raise ValueError(
            f"unknown harness {name!r}; known: {', '.join(repr(h) for h in HARNESSES)}"
        ) from None


def network(name: str | None) -> Network | None:
    """The network class by name (None: one node); ValueError naming the known ones."""
    if name is None:
        return None
    try:
        return NETWORKS[name]
    except KeyError:
        raise ValueError(f"unknown network {name!r}; known: {', '.join(NETWORKS)}") from None


def call_cost(
    *,
    n_bytes: int,
    protocol: str,
    channels: int,
    latency_us: float,
    estimate_us: float,
    nodes: int,
    harness_name: str | None = None,
    network_name: str | None = None,
    calibration: Calibration | None = None,
    network_bound: bool = True,
    transfer_us: float | None = None,
) -> CallCost:
    """The call's time for NCCL's choice: ``latency_us`` its estimate at 0 bytes and
    ``estimate_us`` at ``n_bytes`` (the tuner's), ``channels`` the channels it runs on,
    ``nodes`` the communicator's nodes, ``network_name`` the preset's network class.
    ``network_bound``: the network sets the bandwidth the tuner gave the algorithm
    (:attr:`~nccl_course.cost.nccl.tuner.CostTable.network_bound`); where NVLink SHARP inside
    the node is slower (NVLS, NVLSTree), the network's efficiency does not slow the call.
    ``transfer_us``: the time the bytes take, where the course knows better than the tuner
    (an NVLSTree call NVLink SHARP bounds, :func:`~nccl_course.cost.nccl.estimate.node_nvls_busbw`);
    default the tuner's estimate less its latency."""
    h = harness(harness_name)
    net = network(network_name) if nodes > 1 else None
    transfer = max(0.0, estimate_us - latency_us) if transfer_us is None else transfer_us
    inter = nodes > 1
    efficiency = net.efficiency if net is not None and network_bound else 1.0
    fixed = h.fixed_us
    net_us = net.latency_us if net is not None else 0.0
    fraction = FILL_FRACTION[protocol]
    if calibration is not None:
        # the fitted fixed cost is everything a call costs beyond NCCL's latency
        fixed, net_us = calibration.fixed_us, 0.0
        if (calibration.link_class == "inter") == inter:
            # measured against the course's model of these links, network efficiency included
            efficiency *= calibration.efficiency
            fraction = (calibration.fill_fraction or {}).get(protocol, fraction)
    fill = 0.0
    if n_bytes > 0 and transfer > 0:
        cap = max(1, channels) * BUFFER_BYTES[protocol]
        in_flight = n_bytes * cap / (n_bytes + cap)
        fill = fraction * transfer * in_flight / n_bytes
    return CallCost(
        fixed_us=fixed,
        network_us=net_us,
        latency_us=latency_us,
        fill_us=fill / efficiency,
        transfer_us=transfer / efficiency,
    )
