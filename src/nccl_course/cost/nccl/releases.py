"""Which NCCL release the tuner model follows, and what older releases did differently.

The model follows NCCL 2.30.7 (:mod:`~nccl_course.cost.nccl.tables`). Public logs that show
the tuner's own numbers (the ``NCCL_DEBUG_SUBSYS=TUNING`` table, ``Bytes -> Algo`` lines) come
from older releases, so checking the model against them needs the older numbers and rules.
A :class:`TunerRelease` holds everything in ``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime``
that changed between the releases listed here; everything else is the same in all of them.
Each older release is written as its differences from the next newer one, with the lines of
``src/graph/tuning.cc`` at that tag (https://github.com/NVIDIA/nccl/blob/<tag>/src/graph/tuning.cc).

The releases and the tags they were read from:

* 2.30.7 (v2.30.7-1): the model's own release.
* 2.22.3 (v2.22.3-1): also 2.21.5; ``tuning.cc`` differs between them only in code paths
  the tuner table does not take (user-set channel counts, the ring back-up bandwidth).
* 2.20.5 (v2.20.5-1): also 2.20.3 (the file is the same).

Units as NCCL keeps them: latencies in microseconds, bandwidths in GB/s (1e9 bytes/s).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nccl_course.cost.nccl import tables as T


@dataclass(frozen=True)
class TunerRelease:
    """The release-dependent part of NCCL's tuner.

    ``base_latency_us`` / ``hw_latency_us`` / ``ll_max_bw``: the tables of the same names in
    :mod:`~nccl_course.cost.nccl.tables` as this release had them.
    ``ring_ll``: how Ring/LL bandwidth follows from the ring's: ``"half"`` (x 0.5, 2.21 on) or
    ``"quarter"`` (x 1/4 between nodes and for all-reduce and reduce, else x 1/3, before 2.21).
    ``ring_ll128_one_gpu_per_node``: the Ring/LL128 factor with one GPU per node (0.92 as with
    more GPUs from 2.23 on; 0.7 before).
    ``nvls_efficiency_model``: NVLS and NVLSTree bandwidth from the NVSwitch's efficiency and
    converted like a ring (2.28 on); before, the smaller of the graph's intra and inter speeds
    (NVLSTree: half the inter speed beyond two nodes) times 5/6.
    ``all_reduce_network_steps_per_node``: ring all-reduce latency counts 2 (nodes - 1) network
    steps (False, 2.23 on) or 2 nodes (True, before).
    ``one_gpu_per_node_tree_latency``: with one GPU per node the network latency of every
    algorithm is Tree's (2.23 on).
    ``pat``: the PAT algorithm exists (2.23 on).
    ``ll128_volta_to_hopper_only``: LL128 is enabled by default on compute capability 70, 80
    and 90 only (before 2.23; later releases allow it from 70 up).
    ``nvls_tree_cap``: NVLSTree bandwidth is capped per channel (``PER_CH_MAX_NVLS_TREE_BW``,
    2.28 on).
    ``nvls_tree_correction``: NVLSTree all-reduce gets the Tree correction on Blackwell (2.29
    on).

    Releases between those listed (2.23 to 2.29) mix the two sides and are not modelled.
    """

    version: str
    tag: str
    base_latency_us: tuple
    hw_latency_us: tuple
    ll_max_bw: tuple
    ring_ll: str = "half"
    ring_ll128_one_gpu_per_node: float = 0.92
    nvls_efficiency_model: bool = True
    all_reduce_network_steps_per_node: bool = False
    one_gpu_per_node_tree_latency: bool = True
    pat: bool = True
    ll128_volta_to_hopper_only: bool = False
    nvls_tree_cap: bool = True
    nvls_tree_correction: bool = True

    @property
    def algorithms(self) -> tuple[str, ...]:
        """The algorithms this release has, in NCCL's order (no PAT before 2.23)."""
        return T.ALGORITHMS if self.pat else tuple(a for a in T.ALGORITHMS if a != "PAT")

    @property
    def source(self) -> str:
        """The release's tuning.cc on GitHub."""
        return f"https://github.com/NVIDIA/nccl/blob/{self.tag}/src/graph/tuning.cc"


def _with(table: tuple, changes: dict) -> tuple:
    """``table`` (nested tuples) with the entries at the index paths in ``changes`` replaced."""

    def put(node, path, value):
        if not path:
            return value
        items = list(node)
        items[path[0]] = put(items[path[0]], path[1:], value)
        return tuple(items)

    for path, value in changes.items():
        table = put(table, path, value)
    return table


_TREE, _NVLS, _NVLS_TREE = 0, 4, 5
_SIMPLE = 2

#: NCCL 2.30.7: the numbers of :mod:`~nccl_course.cost.nccl.tables`.
NCCL_2_30_7 = TunerRelease(
    version=T.NCCL_VERSION,
    tag=T.NCCL_TAG,
    base_latency_us=T.BASE_LATENCY_US,
    hw_latency_us=T.HW_LATENCY_US,
    ll_max_bw=T.LL_MAX_BW,
)

#: NCCL 2.22.3 (and 2.21.5), from 2.30.7 (v2.22.3-1 tuning.cc lines 56-105 tables, 118-290 model, 411-445 time):
#: Tree/Simple had no base latency and 28 us per hop on every link, NVLSTree's network hop was
#: 14 us, no PAT, the older NVLS, ring-step, LL128 and one-GPU-per-node rules.
NCCL_2_22_3 = replace(
    NCCL_2_30_7,
    version="2.22.3",
    tag="v2.22.3-1",
    base_latency_us=_with(T.BASE_LATENCY_US, {(_TREE, _SIMPLE): 0.0}),
    hw_latency_us=_with(
        T.HW_LATENCY_US,
        {
            (T.HW_NVLINK, _TREE, _SIMPLE): 28.0,
            (T.HW_PCI, _TREE, _SIMPLE): 28.0,
            (T.HW_NET, _TREE, _SIMPLE): 28.0,
            (T.HW_NET, _NVLS_TREE, _SIMPLE): 14.0,
        },
    ),
    ring_ll128_one_gpu_per_node=0.7,
    nvls_efficiency_model=False,
    all_reduce_network_steps_per_node=True,
    one_gpu_per_node_tree_latency=False,
    pat=False,
    ll128_volta_to_hopper_only=True,
    nvls_tree_cap=False,
    nvls_tree_correction=False,
)

#: NCCL 2.20.5 (and 2.20.3), from 2.22.3 (v2.20.5-1 tuning.cc lines 65-90, 181): NVLS hops
#: inside a node were 23 us, Hopper used Ampere's LL limits, and Ring/LL was a quarter of the
#: ring's bandwidth (a third for broadcast and all-gather / reduce-scatter on one node).
NCCL_2_20_5 = replace(
    NCCL_2_22_3,
    version="2.20.5",
    tag="v2.20.5-1",
    hw_latency_us=_with(
        NCCL_2_22_3.hw_latency_us,
        {(T.HW_NVLINK, _NVLS, _SIMPLE): 23.0, (T.HW_NVLINK, _NVLS_TREE, _SIMPLE): 23.0},
    ),
    ll_max_bw=_with(T.LL_MAX_BW, {(2,): T.LL_MAX_BW[1]}),
    ring_ll="quarter",
)

#: The releases by version, newest first; :data:`CURRENT` is the model's default.
RELEASES = {r.version: r for r in (NCCL_2_30_7, NCCL_2_22_3, NCCL_2_20_5)}
CURRENT = NCCL_2_30_7


#: Releases whose tuner is the same as a listed one's (see the module docstring).
_ALIASES = {"2.21.5": "2.22.3", "2.20.3": "2.20.5"}


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def release(version: str) -> TunerRelease:
    """The :class:`TunerRelease` for ``version`` ("2.30.7", "2.22.3", "2.20.5"; 2.21.5 and
    2.20.3 map to the release whose tuner they share). Raises ValueError naming the known ones."""
    found = RELEASES.get(_ALIASES.get(version, version))
    if found is None:
        known = ", ".join(sorted([*RELEASES, *_ALIASES], key=_numbers, reverse=True))
        raise ValueError(f"no tuner model for NCCL {version}; known releases: {known}")
    return found
