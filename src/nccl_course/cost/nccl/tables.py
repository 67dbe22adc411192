"""The constants of NCCL's built-in performance model, NCCL 2.30.7 (tag ``v2.30.7-1``, commit
73cf112295c33aee2b895f329f592f2a9b4b0f97 of https://github.com/NVIDIA/nccl), each with the file
and lines it comes from. Only numbers live here; the rules that use them are in
:mod:`~nccl_course.cost.nccl.system` (graph search), :mod:`~nccl_course.cost.nccl.tuner`
(latency and bandwidth per collective x algorithm x protocol) and
:mod:`~nccl_course.cost.nccl.select` (choice, channels, threads).

Units as NCCL keeps them: latencies in microseconds, bandwidths in GB/s (1e9 bytes/s) per
channel or per GPU as named. Tables indexed by algorithm or protocol follow NCCL's order
(:data:`ALGORITHMS`, :data:`PROTOCOLS`); tables indexed by GPU generation follow
:data:`GENERATIONS`.
"""

from __future__ import annotations

NCCL_VERSION = "2.30.7"
NCCL_TAG = "v2.30.7-1"
NCCL_COMMIT = "73cf112295c33aee2b895f329f592f2a9b4b0f97"
SOURCE = f"https://github.com/NVIDIA/nccl/blob/{NCCL_TAG}"

#: NCCL's names, in NCCL's index order (src/init.cc lines 52-55; indices in
#: src/include/plugin/nccl_tuner.h lines 28-40).
FUNCTIONS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")
ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
PROTOCOLS = ("LL", "LL128", "Simple")

#: The course's collective names for NCCL's functions (the tuner knows only these five).
COURSE_TO_FUNCTION = {
    "broadcast": "Broadcast",
    "reduce": "Reduce",
    "all_gather": "AllGather",
    "reduce_scatter": "ReduceScatter",
    "all_reduce": "AllReduce",
}

#: GPU generations as NCCL indexes them (nccl_tuner.h lines 50-53; tuning.cc lines 263-266:
#: compute capability >= 100 Blackwell, >= 90 Hopper, >= 80 Ampere, else Volta).
GENERATIONS = ("Volta", "Ampere", "Hopper", "Blackwell")


def generation_index(compute_capability: int) -> int:
    """NCCL's compCapIndex for a compute capability written as an integer (90 for sm_90)."""
    if compute_capability >= 100:
        return 3
    if compute_capability >= 90:
        return 2
    if compute_capability >= 80:
        return 1
    return 0


# Hardware kinds of the latency table (nccl_tuner.h lines 45-47).
HW_NVLINK, HW_PCI, HW_NET = 0, 1, 2

#: baseLatencies[algorithm][protocol], us (src/graph/tuning.cc lines 150-155).
BASE_LATENCY_US = (
    (6.8, 14.0, 8.4),  # Tree
    (6.6, 14.0, 8.4),  # Ring
    (0.0, 0.0, 0.0),  # CollNetDirect
    (0.0, 0.0, 0.0),  # CollNetChain
    (0.0, 0.0, 0.0),  # NVLS
    (0.0, 0.0, 0.0),  # NVLSTree
    (8.0, 8.0, 8.0),  # PAT
)

#: hwLatencies[hardware][algorithm][protocol], us per hop (tuning.cc lines 157-176).
HW_LATENCY_US = (
    (  # NVLink
        (0.6, 1.25, 4.0),
        (0.6, 1.9, 3.4),
        (0.0, 0.0, 3.7),
        (0.0, 0.0, 2.8),
        (0.0, 0.0, 25.0),
        (0.0, 0.0, 25.0),
        (0.0, 0.0, 4.0),
    ),
    (  # PCI
        (1.0, 1.9, 4.0),
        (1.0, 2.5, 5.7),
        (0.0, 0.0, 3.7),
        (0.0, 0.0, 2.8),
        (0.0, 0.0, 0.0),
        (0.0, 0.0, 0.0),
        (0.0, 0.0, 4.0),
    ),
    (  # network
        (5.0, 8.5, 14.0),
        (2.7, 4.0, 14.0),
        (0.0, 0.0, 31.0),
        (0.0, 0.0, 30.0),
        (0.0, 0.0, 18.0),
        (0.0, 0.0, 20.9),
        (0.0, 0.0, 14.0),
    ),
)

#: llMaxBws[row][nodes index], GB/s (tuning.cc lines 178-183). Row: the GPU generation on one
#: node; on several nodes row 0 for Intel CPUs, row 1 for AMD (tuning.cc lines 268-271).
#: Nodes index: 1 node, 2 nodes, more (tuning.cc line 267).
LL_MAX_BW = (
    (39.0, 39.0, 20.4),
    (87.7, 22.5, 19.0),
    (141.0, 45.0, 35.0),
    (282.0, 90.0, 70.0),
)
#: Per-channel caps by [generation][nodes index], GB/s (tuning.cc lines 184-211).
PER_CH_MAX_RING_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 36.7),
    (40.0, 40.0, 40.0),
)
PER_CH_MAX_TREE_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 29.0),
    (55.6, 31.67, 20.0),
)
PER_CH_MAX_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (38.7, 41.4, 36.0),
    (70.0, 42.8, 24.0),
)
PER_CH_MAX_NVLS_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (0.0, 57.7, 45.5),
    (0.0, 96.0, 80.0),
)

#: NVLS efficiency by generation (tuning.cc lines 139-144).
NVLS_EFFICIENCY = (0.0, 0.0, 0.85, 0.74)

#: Tree all-reduce bandwidth correction by [protocol][log2(bytes / 64)] for 64 B .. 256 MiB
#: (tuning.cc lines 623-627); applied only for indices 0..22 (tuning.cc line 640).
TREE_CORRECTION = (
    (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0, 1.0),
    (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0, 1.0),
    (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9,
     .9, .9),
)  # fmt: skip

#: Graph-search speeds, GB/s per channel, tried from the first down (src/graph/search.cc lines
#: 1051-1065): intra-node searches (no network) and inter-node searches, by generation
#: (before Hopper, Hopper, Blackwell).
SPEEDS_INTRA = {
    "pre_sm90": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    "sm90": (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
    "sm100": (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0),
}
SPEEDS_INTER = {
    "pre_sm90": (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
                 4.0, 3.0, 2.4, 1.2, 0.24, 0.12),
    "sm90": (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4,
             1.2, 0.24, 0.12),
    "sm100": (96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0,
              12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12),
}  # fmt: skip


def speed_family(compute_capability: int) -> str:
    """Which speed list the search uses (search.cc lines 1155-1161)."""
    if compute_capability >= 100:
        return "sm100"
    return "sm90" if compute_capability >= 90 else "pre_sm90"


#: GB/s of one NVLink by compute capability (src/graph/topo.h lines 19-25).
NVLINK_BW_PER_LINK = {60: 18.0, 70: 20.0, 80: 20.0, 86: 12.0, 90: 20.6, 100: 40.1}
#: PCIe x16 Gen3, the threshold below which Ring/Simple uses 256 threads (topo.h line 26,
#: tuning.cc line 245).
PCI_BW = 12.0
#: PCIe GB/s = lanes x rate / 80 (src/graph/topo.cc line 657), rate by generation from
#: topo.cc lines 545-555 (Gen3 60, Gen4 120, Gen5 240, Gen6 480).
PCIE_RATE = {3: 60, 4: 120, 5: 240, 6: 480}
#: Network GB/s = Mb/s / 8000 (topo.cc lines 418, 461, 481); NDR is 4 lanes x 100000 Mb/s
#: (src/transport/net_ib/init.cc line 125).
MBPS_PER_GBPS = 8000.0

#: Channel limits: MAXCHANNELS (src/include/device.h line 91), NVLS channels per generation
#: (src/transport/nvls.cc lines 155-157: Hopper 16, Blackwell 32 multi-node / 24 on one node).
MAX_CHANNELS = 64
NVLS_CHANNELS_SM90 = 16
NVLS_CHANNELS_SM100 = 32
NVLS_CHANNELS_SM100_ONE_NODE = 24
#: NCCL_MAX_NVLS_ARITY (device.h line 213), NCCL_MAX_DIRECT_ARITY (device.h line 199).
MAX_NVLS_ARITY = 32
MAX_DIRECT_ARITY = 7

#: Threads (src/include/device.h lines 93-97, 114) and the bytes per thread before NCCL adds
#: threads or channels (src/include/comm.h lines 49-51).
WARP_SIZE = 32
MAX_NTHREADS = 640
SIMPLE_MAX_NTHREADS = 512
LL_MAX_NTHREADS = 512
LL128_MAX_NTHREADS = 640
LL_THREAD_THRESHOLD = 8
LL128_THREAD_THRESHOLD = 8
SIMPLE_THREAD_THRESHOLD = 64

#: Path types (src/include/graph.h lines 117-154): smaller is closer.
PATH = {"LOC": 0, "NVL": 1, "NVB": 2, "C2C": 3, "PIX": 4, "PXB": 5, "P2C": 6, "PXN": 7,
        "PHB": 8, "SYS": 9, "NET": 10, "DIS": 11}  # fmt: skip

#: Graph patterns (src/include/graph.h lines 160-166): the tree search ends as one of these.
PATTERN_BALANCED_TREE, PATTERN_SPLIT_TREE, PATTERN_TREE = 1, 2, 3

#: GB/s NCCL gives the link between two CPU sockets (src/graph/topo.h lines 26-30, chosen in
#: src/graph/topo.cc lines 60-83): Intel by model class (topo.cc lines 748-751: Broadwell and
#: older, Skylake to Ice Lake from model 0x55, Sapphire Rapids from 0x8F, Emerald Rapids from
#: 0xCF), every AMD x86 CPU alike.
INTER_CPU_BW = {"BDW": 6.0, "SKL": 10.0, "SRP": 22.0, "ERP": 40.0}
AMD_INTER_CPU_BW = 16.0
#: Intel root complexes cut GPU-to-GPU traffic into 64-byte PCIe packets: a path through an
#: Intel CPU of type PHB loads its PCIe links with 6/5 of the channel's speed (topo.h line 39,
#: src/graph/search.cc lines 86-92).
INTEL_P2P_OVERHEAD = 6.0 / 5.0
#: The farthest path over which NCCL uses PCIe peer-to-peer between GPUs by default (PXB,
#: src/graph/paths.cc line 356; SYS on AMD x86 hosts with at most 2 GPUs, lines 360-362) and
#: GPUDirect RDMA between a GPU and a NIC (NCCL_NET_GDR_LEVEL's default PXB, line 511). Farther
#: apart, NCCL routes the traffic through the CPU's memory (paths.cc lines 762-773 and 844-855).
P2P_LEVEL = "PXB"
AMD_P2P_LEVEL = "SYS"
AMD_P2P_MAX_GPUS = 2
NET_GDR_LEVEL = "PXB"
