"""NCCL's own tuner output from public logs, and the model's answer for the same systems.

With ``NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING`` NCCL prints its cost table at init (the
``Latency/AlgBw`` table: microseconds / GB/s per function, algorithm and protocol) and, in
2.20 to 2.22, one line per collective call: ``<bytes> Bytes -> Algo <a> proto <p> time <us>``
(src/enqueue.cc, e.g. line 1613 of v2.22.3-1), the choice and NCCL's estimated time. These are
the tuner's outputs, so they check :mod:`~nccl_course.cost.nccl.tuner` and
:mod:`~nccl_course.cost.nccl.select` directly, with no measurement noise.

Each :class:`PublicLog` keeps the lines exactly as posted (rank 0, host prefix removed), where
they come from, the NCCL release, and the system as the thread describes it. Some inputs the
threads do not print are inferred from the printed numbers; each is named in ``inferred``.
NCCL computes in single precision and prints six decimals (times) or one (the table), so
"reproduced" means a relative difference under 1e-6 for times and within 0.05 for table cells.

Units: bytes, microseconds, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.log_check import (
    CellCheck,
    ChoiceCheck,
    LoggedSystem,
    compare_calls,
    compare_table,
)
from nccl_course.cost.nccl.log_reader import NcclLog, read_log
from nccl_course.cost.nccl.overrides import Enablement
from nccl_course.cost.nccl.releases import TunerRelease, release
from nccl_course.cost.nccl.system import Graph, NcclHardware
from nccl_course.cost.nccl.tuner import CostTable, cost_table

_H100 = NcclHardware(
    gpu="H100 SXM",
    compute_capability=90,
    gpus_per_node=8,
    nvlink_links=18,
    pcie_gen=5,
    nics_per_node=8,
    nic_gbit=200.0,
    nvls=True,
    cpu_vendor="Intel",
)


@dataclass(frozen=True)
class PublicLog:
    """One public NCCL log. ``graphs``: graphs the log shows or implies, replacing the
    model's search for those algorithms; ``proto``: the NCCL_PROTO of the run;
    ``table_algorithms``: the algorithms of the printed table block, left to right;
    ``latency_only``: (function, algorithm) cells whose bandwidth is not compared, with why
    in ``inferred``."""

    key: str
    url: str
    nccl: str
    system_text: str
    hardware: NcclHardware
    nodes: int
    text: str
    inferred: tuple[str, ...] = ()
    graphs: tuple[tuple[str, Graph], ...] = ()
    proto: str | None = None
    table_algorithms: tuple[str, ...] = ()
    latency_only: tuple[tuple[str, str], ...] = ()

    @property
    def release(self) -> TunerRelease:
        return release(self.nccl)

    @cached_property
    def system(self) -> LoggedSystem:
        return LoggedSystem(
            self.hardware, self.nodes, self.hardware.gpus_per_node, True, self.graphs
        )

    @cached_property
    def table(self) -> CostTable:
        return cost_table(self.system, Enablement.parse(None, self.proto), self.release)

    @cached_property
    def parsed(self) -> NcclLog:
        return read_log(self.text, self.table_algorithms or None)


def check_choices(log: PublicLog, function: str = "AllReduce") -> list[ChoiceCheck]:
    """The model's choice and time for every call the log shows, sizes ascending."""
    return compare_calls(log.parsed, log.table, function)


def check_table(log: PublicLog) -> tuple[list[CellCheck], list[tuple[str, str, int, int]]]:
    """Every printed latency/bandwidth cell next to the model's, and the printed "Max
    NThreads" next to the model's (algorithm, protocol, printed, model)."""
    return compare_table(log.parsed, log.table, log.latency_only)


#: github.com/NVIDIA/nccl/issues/1453, turn 2 (2024-09): NCCL 2.22.3+cuda12.5, three VMs of
#: 8x H100 80GB HBM3 with 8 ConnectX-7 200 Gb/s NICs each, NVLS multicast available, 16 coll
#: and 16 NVLS channels, nccl-tests all_reduce_perf up to 8 GiB.
NCCL_1453 = PublicLog(
    key="nccl-1453",
    url="https://github.com/NVIDIA/nccl/issues/1453",
    nccl="2.22.3",
    system_text="3 nodes x 8 H100 SXM, 8x 200 Gb/s NICs per node, NVLS, NCCL 2.22.3",
    hardware=_H100,
    nodes=3,
    text="""\
NCCL INFO comm 0x5639e9f0e8c0 rank 0 nRanks 24 nNodes 3 localRanks 8 localRank 0 MNNVL 0
NCCL INFO 16 coll channels, 16 collnet channels, 16 nvls channels, 16 p2p channels, 2 p2p channels per peer
NCCL INFO 8 Bytes -> Algo 0 proto 0 time 25.200924
NCCL INFO 64 Bytes -> Algo 0 proto 0 time 25.207382
NCCL INFO 256 Bytes -> Algo 0 proto 0 time 25.229528
NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.259054
NCCL INFO 1024 Bytes -> Algo 0 proto 0 time 25.331232
NCCL INFO 2048 Bytes -> Algo 0 proto 0 time 25.495272
NCCL INFO 4096 Bytes -> Algo 0 proto 0 time 25.874907
NCCL INFO 8192 Bytes -> Algo 0 proto 0 time 26.549810
NCCL INFO 65536 Bytes -> Algo 0 proto 0 time 37.798233
NCCL INFO 131072 Bytes -> Algo 0 proto 1 time 51.603912
NCCL INFO 524288 Bytes -> Algo 5 proto 2 time 59.553600
NCCL INFO 536870912 Bytes -> Algo 1 proto 2 time 5679.147949
NCCL INFO 1073741824 Bytes -> Algo 1 proto 2 time 11038.536133
NCCL INFO 8589934592 Bytes -> Algo 1 proto 2 time 86069.968750
""",
    inferred=(
        "Intel CPUs: Tree/LL runs at the LL limit for more than two nodes on Intel hosts "
        "(20.4 GB/s; 19.0 on AMD), which the times show",
        "the tree graph ended as NCCL's plain TREE pattern (all of a node's network traffic "
        "through one GPU): the Tree times carry the 0.85 factor NCCL applies only to that "
        "pattern; the model's search assumes the balanced tree. The run set "
        "NCCL_CROSS_NIC=2 and its own NCCL_TOPO_FILE",
    ),
    graphs=(("Tree", Graph(8, 24.0, 24.0, "NVL", "PIX", pattern=T.PATTERN_TREE)),),
)

#: github.com/NVIDIA/nccl/issues/1595 (2025-02): one node of 8x H100, NCCL_PROTO=Simple, a
#: 768 MiB fp16 all-reduce; the release is 2.20 to 2.22 (this line format). Ring/Simple won,
#: so NVLS was not available on that node.
NCCL_1595 = PublicLog(
    key="nccl-1595",
    url="https://github.com/NVIDIA/nccl/issues/1595",
    nccl="2.22.3",
    system_text="1 node x 8 H100 SXM, no NVLS, NCCL_PROTO=Simple, NCCL 2.20-2.22",
    hardware=replace(_H100, nics_per_node=0, nic_gbit=0.0, nvls=False),
    nodes=1,
    text="NCCL INFO 805306368 Bytes -> Algo 1 proto 2 time 3970.683594\n",
    inferred=("no NVLS: NCCL chose Ring/Simple, where NVLS would have won if available",),
    proto="Simple",
)

#: github.com/NVIDIA/nccl/issues/1519 (2024-11): two Google Cloud a3-megagpu-8g VMs (8x H100,
#: 8x 200 Gb/s NICs reached over PHB paths). The first block of the TUNING table as posted;
#: the stored copy's AllReduce row stops after Ring/LL128's latency. The release is 2.20: Ring/LL is a
#: quarter of Ring/Simple (2.21 made it a half) and all-gather lists CollNetDirect (new in 2.20).
NCCL_1519 = PublicLog(
    key="nccl-1519",
    url="https://github.com/NVIDIA/nccl/issues/1519",
    nccl="2.20.5",
    system_text="2 nodes x 8 H100 SXM (GCP a3-megagpu-8g), 8x 200 Gb/s NICs, NCCL 2.20",
    hardware=_H100,
    nodes=2,
    text="""\
NCCL INFO comm 0x55d35c3a9ec0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0
NCCL INFO   Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |
NCCL INFO  Max NThreads |            512 |            640 |            512 |            512 |            640 |            512 |              0 |              0 |            640 |
NCCL INFO     Broadcast |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     9.3/   5.0 |    18.0/   0.0 |    22.4/  20.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
NCCL INFO        Reduce |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     9.3/   5.0 |    18.0/   0.0 |    22.4/  20.0 |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |
NCCL INFO     AllGather |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.3/   5.3 |    44.6/   0.0 |    70.0/  21.3 |     5.6/   0.0 |     5.6/   0.0 |    44.0/   0.0 |
NCCL INFO ReduceScatter |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |    23.3/   5.3 |    44.6/   0.0 |    70.0/  21.3 |     5.6/   0.0 |     5.6/   0.0 |    44.0/   0.0 |
NCCL INFO     AllReduce |    25.2/   0.0 |    48.5/   0.0 |   448.0/   0.0 |    43.4/   2.7 |    79.4
""",  # noqa: E501 (log lines as NCCL prints them)
    inferred=(
        "the ring graph: 20 GB/s in all (the Broadcast Ring/Simple cell), which among NCCL's "
        "Hopper search speeds can only be one channel of 20 GB/s; path types NVL/PHB as the "
        "thread's NVLS graph line shows",
        "Intel CPUs: ring latencies between nodes count a 1 us network overhead per step "
        "(2 us on AMD)",
        "Tree's bandwidths are 0.0 in the log (Tree was off in that run; the stored copy does "
        "not show why), so only Tree's latencies are compared",
    ),
    graphs=(
        ("Ring", Graph(1, 20.0, 20.0, "NVL", "PHB", pattern=4)),
        ("NVLS", Graph(7, 3.0, 3.0, "NVL", "PHB", pattern=5, same_channels=False)),
        ("NVLSTree", Graph(7, 3.0, 3.0, "NVL", "PHB", pattern=5, same_channels=False)),
    ),
    table_algorithms=("Tree", "Ring", "CollNetDirect"),
    latency_only=(("AllReduce", "Tree"),),
)

#: The logs, in the order the book shows them.
LOGS = (NCCL_1453, NCCL_1595, NCCL_1519)
