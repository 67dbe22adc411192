"""Reading what NCCL says about its tuner in an ``NCCL_DEBUG=INFO`` log.

With ``NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING`` (``NCCL_DEBUG_FILE`` keeps it apart from the
program's output) NCCL prints, among much else:

* ``NCCL version 2.30.7+cuda12.9`` (every release);
* ``comm 0x.. rank 0 nRanks 16 nNodes 2 localRanks 8 ...`` (INIT, src/init.cc line 1422 of
  v2.30.7-1), the communicator's shape;
* ``Pattern 4, crossNic 0, nChannels 8, bw 24.000000/24.000000, type NVL/PIX, sameChannels 1``
  (GRAPH, src/graph/search.cc line 1319), one line per graph the topology search found, in the
  order ring, tree, CollNet chain and direct (with a CollNet plugin), NVLS (src/init.cc lines
  1175-1216); pattern 4 is a ring, 1-3 trees, 5 NVLS, 6 CollNet direct (src/include/graph.h);
* ``CPU/0-0 (1/1/2)`` in the topology dump: architecture / vendor / model codes (vendor 1 Intel,
  2 AMD; src/include/graph.h lines 82-85);
* ``NVLS multicast support is available on dev 0`` where NVLink SHARP can run;
* the cost table (TUNING, src/graph/tuning.cc lines 543-585): blocks of three algorithms with an
  ``Algorithm`` row naming them, ``Max NThreads``, then ``latency/bandwidth`` per function;
* one line per call: ``<bytes> Bytes -> Algo <i> proto <j> time <us>`` in 2.20-2.22, prefixed
  with the function from 2.23, and ``<Function>: <bytes> Bytes -> Algo RING proto SIMPLE
  channel{Lo..Hi}={0..7}`` without a time from 2.24 (src/enqueue.cc line 822 of v2.30.7-1).

* the network a communicator uses between nodes: ``NET/IB : No device found.`` then ``Using
  network Socket`` where no InfiniBand/RoCE device is usable and NCCL falls back to TCP sockets;
* one line per connection: ``Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read`` (``[send]`` or
  ``[receive]`` before ``via`` on a network connection), the channel, the two ranks (with
  their devices) and the transport (P2P, SHM, NET/IB, NET/Socket);
* PyTorch's watchdog (ProcessGroupNCCL) when a collective never completes: ``[Rank 3]
  Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=
  262144, NumelOut=262144, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.``

* the rings rank 0 prints for each channel: ``Channel 01/02 :    0   1   3   2``, the ranks in ring
  order (``Trees [0] ...`` lines are not read);
* two errors with one cause each: ``NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on
  CUDA device 1b000`` (two ranks were given one GPU) and ``NCCL WARN Error: failed to extend
  /dev/shm/nccl-wuxVWm to 9637892 bytes`` (the shared-memory file system is too small, as in a
  container's default 64 MB ``/dev/shm``).

* entries of PyTorch's flight recorder, one per line as ``nccl_trace_rank_3: {...}``: the dump
  file's name (``TORCH_NCCL_DEBUG_INFO_TEMP_FILE`` + rank) and one of its ``entries`` as JSON
  (``collective_seq_id``, ``profiling_name`` such as ``nccl:all_reduce``, ``input_sizes``,
  ``state``: scheduled, started or completed; other keys may be left out).

:func:`read_log` takes the first of each (rank 0 prints the table and the calls) and returns
an :class:`NcclLog`. Units as printed: microseconds, GB/s, bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.system import Graph

#: The line every NCCL release prints first at INFO level: "NCCL version 2.30.7+cuda13.0".
VERSION_LINE = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_COMM = re.compile(r"comm 0x[0-9a-f]+ rank \d+ nRanks (\d+) nNodes (\d+) localRanks (\d+)")
_PATTERN = re.compile(
    r"Pattern (\d+), crossNic \d+, nChannels (\d+), bw ([0-9.]+)/([0-9.]+), "
    r"type (\w+)/(\w+), sameChannels (\d)"
)
_CPU = re.compile(r"\bCPU/[0-9a-f]+(?:-[0-9a-f]+)? \((\d+)/(\d+)/(\d+)\)")
_NVLS = re.compile(r"NVLS multicast support is (not )?available")
_ALGO_HEADER = re.compile(r"\bAlgorithm\s+\|(.*)$", re.M)
_FUNCTION_ROW = re.compile(r"\b(Broadcast|Reduce|AllGather|ReduceScatter|AllReduce) \|(.*)$", re.M)
_THREADS = re.compile(r"Max NThreads \|(.*)$", re.M)
_CALL = re.compile(
    r"(?:(Broadcast|Reduce|AllGather|ReduceScatter|AllReduce): )?(\d+) Bytes -> Algo (\w+) "
    r"proto (\w+)(?: time ([0-9.]+))?(?: channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})?"
)
_NETWORK = re.compile(r"NCCL INFO Using network (\w+)")
_NO_IB = re.compile(r"NCCL INFO NET/IB : No device found")
_CONNECTION = re.compile(
    r"NCCL INFO Channel (\d+)/\d+ : (\d+)\[\d+\] -> (\d+)\[\d+\](?: \[(send|receive)\])? "
    r"via ([\w/]+)"
)
_WATCHDOG = re.compile(
    r"\bRank (\d+)\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), "
    r"OpType=(\w+), NumelIn=(\d+), NumelOut=(\d+), Timeout\(ms\)=(\d+)\) ran for (\d+) "
    r"milliseconds"
)
_RING = re.compile(r"NCCL INFO Channel (\d+)/\d+ :((?: +\d+)+) *$", re.M)
_DUPLICATE_GPU = re.compile(
    r"Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device (\w+)"
)
_SHM_EXTEND = re.compile(r"failed to extend (\S+) to (\d+) bytes")
_FLIGHT_RECORD = re.compile(r"trace_rank_(\d+)\S*?:\s*(\{.*\})\s*$", re.M)
_CPU_VENDORS = {1: "Intel", 2: "AMD"}
# "host:pid" of the process that logs the communicator's rank 0
_RANK0 = re.compile(r"^(\S+:\d+):\d+ \[\d+\] NCCL INFO comm 0x[0-9a-f]+ rank 0 ", re.M)


@dataclass(frozen=True)
class LoggedCall:
    """One ``Bytes -> Algo`` line: ``function`` (None before 2.23, which does not print it),
    ``time_us`` (None from 2.24, which does not print it), ``channels`` (from 2.24)."""

    function: str | None
    n_bytes: int
    algorithm: str
    protocol: str
    time_us: float | None = None
    channels: int | None = None


@dataclass(frozen=True)
class Connection:
    """One ``Channel ... via`` line: ``transport`` as printed (``P2P/CUMEM/read``, ``SHM/direct``,
    ``NET/Socket/0``); ``direction`` is ``send``/``receive`` on network connections, else None."""

    channel: int
    src: int
    dst: int
    transport: str
    direction: str | None = None


@dataclass(frozen=True)
class WatchdogTimeout:
    """A collective PyTorch's watchdog gave up on: the rank, the collective's sequence number in
    its process group, its type (``ALLREDUCE``), element counts, and milliseconds."""

    rank: int
    seq: int
    op: str
    numel_in: int
    numel_out: int
    timeout_ms: int
    ran_ms: int


@dataclass(frozen=True)
class FlightRecord:
    """One flight-recorder entry of one rank: the collective's sequence number in its process
    group, its name (``nccl:all_reduce``), its inputs' shapes and its state."""

    rank: int
    seq: int
    op: str
    input_sizes: tuple[tuple[int, ...], ...]
    state: str


@dataclass(frozen=True)
class NcclLog:
    """What a log says. ``graphs``: (NCCL algorithm name, :class:`Graph`) pairs; ``cells``:
    {(function, algorithm, protocol): (latency us, bandwidth GB/s)} as printed (latency alone
    where a line is cut); ``threads``: {(algorithm, protocol): Max NThreads}."""

    version: str | None = None
    ranks: int | None = None
    nodes: int | None = None
    local_ranks: int | None = None
    graphs: tuple[tuple[str, Graph], ...] = ()
    cpu_vendor: str | None = None
    nvls_multicast: bool | None = None
    cells: dict = field(default_factory=dict)
    threads: dict = field(default_factory=dict)
    calls: tuple[LoggedCall, ...] = ()
    # "Socket", "IB", ... from "Using network"; no_ib: NET/IB found no device (the fallback)
    network: str | None = None
    no_ib: bool = False
    connections: tuple[Connection, ...] = ()
    timeouts: tuple[WatchdogTimeout, ...] = ()
    # rings[c]: channel c's ring as rank 0 printed it, the ranks in order
    rings: tuple[tuple[int, ...], ...] = ()
    # (rank, other rank, device bus id) per "Duplicate GPU detected"
    duplicate_gpus: tuple[tuple[int, int, str], ...] = ()
    # (file, bytes) per shared-memory file NCCL could not grow
    shm_failures: tuple[tuple[str, int], ...] = ()
    flight_records: tuple[FlightRecord, ...] = ()


def _flight_records(text: str) -> tuple[FlightRecord, ...]:
    records = []
    for m in _FLIGHT_RECORD.finditer(text):
        entry = json.loads(m.group(2))
        records.append(
            FlightRecord(
                rank=int(m.group(1)),
                seq=int(entry["collective_seq_id"]),
                op=entry["profiling_name"],
                input_sizes=tuple(tuple(shape) for shape in entry.get("input_sizes", ())),
                state=entry["state"],
            )
        )
    return tuple(records)


def _rings(text: str) -> tuple[tuple[int, ...], ...]:
    """Rank 0's rings by channel; the first print of a channel wins (other ranks repeat it)."""
    found: dict[int, tuple[int, ...]] = {}
    for m in _RING.finditer(_rank0_lines(text)):
        found.setdefault(int(m.group(1)), tuple(int(r) for r in m.group(2).split()))
    return tuple(found[c] for c in sorted(found))


def _name(token: str, names: tuple[str, ...]) -> str:
    """An algorithm or protocol as logged: an index (2.20-2.23) or a name (RING, NVLS_TREE)."""
    if token.isdigit():
        return names[int(token)]
    wanted = token.replace("_", "").lower()
    for name in names:
        if name.lower() == wanted:
            return name
    raise ValueError(f"unknown NCCL name {token!r} in the log")


def _rank0_lines(text: str) -> str:
    """The lines of rank 0's process where lines carry NCCL's ``host:pid:tid [dev]`` prefix
    (several ranks writing to one file), else all of them."""
    rank0 = _RANK0.search(text)
    if not rank0:
        return text
    process = rank0.group(1)
    return "\n".join(line for line in text.splitlines() if line.startswith(process + ":"))


def _graphs(text: str) -> tuple[tuple[str, Graph], ...]:
    """Rank 0's graphs in search order; a repeat (a second communicator) ends the first set."""
    found: dict[str, Graph] = {}
    trees = 0
    for m in _PATTERN.finditer(_rank0_lines(text)):
        pattern = int(m.group(1))
        graph = Graph(
            n_channels=int(m.group(2)),
            bw_intra=float(m.group(3)),
            bw_inter=float(m.group(4)),
            type_intra=m.group(5),
            type_inter=m.group(6),
            pattern=pattern,
            same_channels=m.group(7) == "1",
        )
        if pattern in (T.PATTERN_BALANCED_TREE, T.PATTERN_SPLIT_TREE, T.PATTERN_TREE):
            trees += 1
            names = ("Tree", "PAT") if trees == 1 else ("CollNetChain",)
        else:
            names = {4: ("Ring",), 5: ("NVLS", "NVLSTree"), 6: ("CollNetDirect",)}.get(pattern, ())
        if names and names[0] in found:
            break  # the next rank's copy of the same search
        for name in names:
            found[name] = graph
    return tuple(found.items())


def _table(text: str, algorithms: tuple[str, ...] | None) -> tuple[dict, dict]:
    """Cells and threads of the first printed table. Each block's columns are named by the
    ``Algorithm`` row above it, or by ``algorithms`` for a block printed without one."""
    cells: dict = {}
    threads: dict = {}
    block: list[str] = list(algorithms or ())
    for line in text.splitlines():
        header = _ALGO_HEADER.search(line)
        if header:
            block = [name.strip() for name in header.group(1).split("|") if name.strip()]
            continue
        m = _THREADS.search(line)
        if m and block:
            counts = [int(x) for x in re.findall(r"\d+", m.group(1))]
            for i, n in enumerate(counts[: 3 * len(block)]):
                threads.setdefault((block[i // 3], T.PROTOCOLS[i % 3]), n)
            continue
        m = _FUNCTION_ROW.search(line)
        if m and block and "Bytes ->" not in line:
            printed = [c.strip() for c in m.group(2).split("|") if c.strip()]
            for i, cell in enumerate(printed[: 3 * len(block)]):
                key = (m.group(1), block[i // 3], T.PROTOCOLS[i % 3])
                cells.setdefault(key, tuple(float(x) for x in cell.split("/")))
    return cells, threads


def read_log(text: str, table_algorithms: tuple[str, ...] | None = None) -> NcclLog:
    """Everything :class:`NcclLog` holds that ``text`` contains (missing parts stay empty).
    ``table_algorithms``: the algorithms of a table block whose ``Algorithm`` row is missing."""
    version = VERSION_LINE.search(text)
    comm = _COMM.search(text)
    cpu = _CPU.search(text)
    nvls = _NVLS.search(text)
    calls = []
    for m in _CALL.finditer(text):
        lo, hi = m.group(6), m.group(7)
        calls.append(
            LoggedCall(
                function=m.group(1),
                n_bytes=int(m.group(2)),
                algorithm=_name(m.group(3), T.ALGORITHMS),
                protocol=_name(m.group(4), T.PROTOCOLS),
                time_us=float(m.group(5)) if m.group(5) else None,
                channels=int(hi) - int(lo) + 1 if lo is not None else None,
            )
        )
    cells, threads = _table(text, table_algorithms)
    network = _NETWORK.search(text)
    connections = tuple(
        Connection(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(5), m.group(4))
        for m in _CONNECTION.finditer(text)
    )
    timeouts = tuple(
        WatchdogTimeout(
            *(int(m.group(i)) for i in (1, 2)), m.group(3), *map(int, m.group(4, 5, 6, 7))
        )
        for m in _WATCHDOG.finditer(text)
    )
    return NcclLog(
        version=version.group(1) if version else None,
        ranks=int(comm.group(1)) if comm else None,
        nodes=int(comm.group(2)) if comm else None,
        local_ranks=int(comm.group(3)) if comm else None,
        graphs=_graphs(text),
        cpu_vendor=_CPU_VENDORS.get(int(cpu.group(2))) if cpu else None,
        nvls_multicast=(nvls.group(1) is None) if nvls else None,
        cells=cells,
        threads=threads,
        calls=tuple(calls),
        network=network.group(1) if network else None,
        no_ib=_NO_IB.search(text) is not None,
        connections=connections,
        timeouts=timeouts,
        rings=_rings(text),
        duplicate_gpus=tuple(
            (int(m.group(1)), int(m.group(2)), m.group(3)) for m in _DUPLICATE_GPU.finditer(text)
        ),
        shm_failures=tuple((m.group(1), int(m.group(2))) for m in _SHM_EXTEND.finditer(text)),
        flight_records=_flight_records(text),
    )
