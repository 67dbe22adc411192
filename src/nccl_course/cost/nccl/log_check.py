"""The model against an NCCL log: the same cost table and the same choices?

:func:`check_log` reads a log (:mod:`~nccl_course.cost.nccl.log_reader`), builds the system it
describes (the communicator's shape, the graphs NCCL's search printed, the CPU vendor and NVLS
availability it reports, the GPU generation given by the caller), prices it with the tuner of
the log's NCCL release (:mod:`~nccl_course.cost.nccl.releases`) and compares every printed
table cell and every logged call with the model's. This is ``nccl-course model --check-log``.

Tolerances follow the printing: table cells are printed with one decimal (within 0.05 is the
same), times with six decimals of a single-precision float (within one part in a million).

Units: microseconds, GB/s, bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from nccl_course.cost.nccl.log_reader import NcclLog
from nccl_course.cost.nccl.overrides import Enablement
from nccl_course.cost.nccl.releases import TunerRelease
from nccl_course.cost.nccl.select import choose
from nccl_course.cost.nccl.system import Graph, NcclHardware, NcclSystem
from nccl_course.cost.nccl.tuner import A, CostTable, F, P, cost_table

#: Relative tolerance for a printed time ("%f" of a float) and absolute one for a table cell
#: ("%.1f" is within 0.05 of the value; the epsilon absorbs binary rounding at exact halves).
TIME_RTOL = 1e-6
CELL_ATOL = 0.05 + 1e-9


@dataclass(frozen=True)
class LoggedSystem(NcclSystem):
    """A system whose graphs are the model's search except those a log gives."""

    logged_graphs: tuple[tuple[str, Graph], ...] = ()

    @cached_property
    def graphs(self) -> dict[str, Graph | None]:
        return {**super().graphs, **dict(self.logged_graphs)}


@dataclass(frozen=True)
class ChoiceCheck:
    """One logged call next to the model: algorithm, protocol, time (us; None where the log
    prints none) and channels (None where the log prints none)."""

    function: str
    n_bytes: int
    nccl_algorithm: str
    nccl_protocol: str
    nccl_time_us: float | None
    nccl_channels: int | None
    model_algorithm: str
    model_protocol: str
    model_time_us: float
    model_channels: int

    @property
    def relative_error(self) -> float | None:
        if self.nccl_time_us is None:
            return None
        return (self.model_time_us - self.nccl_time_us) / self.nccl_time_us

    @property
    def same_choice(self) -> bool:
        return (self.nccl_algorithm, self.nccl_protocol) == (
            self.model_algorithm,
            self.model_protocol,
        )

    @property
    def matches(self) -> bool:
        """Same choice, and the same time and channels where the log prints them."""
        error = self.relative_error
        return (
            self.same_choice
            and (error is None or abs(error) < TIME_RTOL)
            and (self.nccl_channels is None or self.nccl_channels == self.model_channels)
        )


@dataclass(frozen=True)
class CellCheck:
    """One printed table cell (latency us / bandwidth GB/s) and the model's; ``nccl`` has the
    latency alone where the line is cut after it or its bandwidth is not compared."""

    function: str
    algorithm: str
    protocol: str
    nccl: tuple[float, ...]
    model: tuple[float, float]

    @property
    def matches(self) -> bool:
        return all(abs(a - b) <= CELL_ATOL for a, b in zip(self.nccl, self.model, strict=False))


def compare_calls(log: NcclLog, table: CostTable, function: str = "AllReduce") -> list[ChoiceCheck]:
    """Every logged call (one per function and size, sizes ascending) next to the model's
    choice. ``function``: for lines that do not name theirs (2.20-2.22). From 2.24 the line
    prints count x type size, which for all-gather and reduce-scatter is one rank's part; the
    tuner prices the whole buffer (src/include/enqueue.h line 40), so that is what is compared."""
    seen: dict[tuple[str, int], ChoiceCheck] = {}
    for call in log.calls:
        name = call.function or function
        n_bytes = call.n_bytes
        if call.channels is not None and name in ("AllGather", "ReduceScatter"):
            n_bytes *= table.system.ranks
        if (name, n_bytes) in seen:
            continue
        c = choose(table, name, n_bytes)
        seen[name, n_bytes] = ChoiceCheck(
            name,
            n_bytes,
            call.algorithm,
            call.protocol,
            call.time_us,
            call.channels,
            c.algorithm,
            c.protocol,
            c.time_us,
            c.channels,
        )
    return sorted(seen.values(), key=lambda r: (r.function, r.n_bytes))


def compare_table(
    log: NcclLog, table: CostTable, latency_only: tuple[tuple[str, str], ...] = ()
) -> tuple[list[CellCheck], list[tuple[str, str, int, int]]]:
    """Every printed cell next to the model's (only the latency for the (function, algorithm)
    pairs in ``latency_only``), and (algorithm, protocol, printed, model) Max NThreads."""
    cells = []
    for (function, algorithm, protocol), printed in log.cells.items():
        f, a, p = F[function], A[algorithm], P[protocol]
        model = (table.latency_us[f][a][p], table.bandwidth_GBps[f][a][p])
        nccl = printed[:1] if (function, algorithm) in latency_only else printed
        cells.append(CellCheck(function, algorithm, protocol, nccl, model))
    threads = [
        (algorithm, protocol, n, table.max_threads[A[algorithm]][P[protocol]])
        for (algorithm, protocol), n in log.threads.items()
    ]
    return cells, threads


def system_from_log(log: NcclLog, hardware: NcclHardware) -> LoggedSystem:
    """The communicator the log describes, on ``hardware`` (its GPU generation, links and
    NICs) with what the log says overriding it: ranks per node, nodes, CPU vendor, NVLS, and
    the graphs NCCL's search found. ValueError naming the debug subsystem a missing part needs."""
    if log.nodes is None or log.local_ranks is None:
        raise ValueError(
            "the log has no 'comm ... nRanks N nNodes M localRanks L' line: run with "
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING"
        )
    if log.ranks != log.nodes * log.local_ranks:
        raise ValueError(
            f"the log's communicator has {log.ranks} ranks on {log.nodes} nodes of "
            f"{log.local_ranks}: the model needs the same number of GPUs on every node"
        )
    changes: dict = {"gpus_per_node": log.local_ranks}
    if log.cpu_vendor:
        changes["cpu_vendor"] = log.cpu_vendor
    if log.nvls_multicast is not None:
        changes["nvls"] = log.nvls_multicast
    hw = replace(hardware, **changes)
    return LoggedSystem(hw, log.nodes, log.local_ranks, True, log.graphs)


@dataclass(frozen=True)
class LogCheck:
    """The outcome of :func:`check_log`: the release used, the system built, the cells, the
    thread counts and the calls compared."""

    release: TunerRelease
    system: LoggedSystem
    cells: list[CellCheck]
    threads: list[tuple[str, str, int, int]]
    calls: list[ChoiceCheck]

    @property
    def mismatches(self) -> int:
        return (
            sum(not c.matches for c in self.cells)
            + sum(n != m for *_, n, m in self.threads)
            + sum(not c.matches for c in self.calls)
        )

    def report(self) -> str:
        """Plain text: a summary line per part, then every mismatch."""
        s = self.system
        lines = [
            f"NCCL {self.release.version} tuner on {s.nodes} node(s) x {s.gpus_per_node} GPU(s), "
            f"sm_{s.cc}, {s.hardware.cpu_vendor} CPUs, NVLS {'on' if s.nvls_support else 'off'}",
            f"graphs: {s.describe()}",
            f"table cells: {sum(c.matches for c in self.cells)} of {len(self.cells)} the same",
            f"Max NThreads: {sum(n == m for *_, n, m in self.threads)} of {len(self.threads)} "
            "the same",
            f"calls: {sum(c.matches for c in self.calls)} of {len(self.calls)} the same",
        ]
        for c in self.cells:
            if not c.matches:
                nccl = "/".join(f"{x:.1f}" for x in c.nccl)
                lines.append(
                    f"  cell {c.function} {c.algorithm}/{c.protocol}: NCCL {nccl}, "
                    f"model {c.model[0]:.1f}/{c.model[1]:.1f}"
                )
        for algorithm, protocol, n, m in self.threads:
            if n != m:
                lines.append(f"  threads {algorithm}/{protocol}: NCCL {n}, model {m}")
        for c in self.calls:
            if not c.matches:
                t = "" if c.nccl_time_us is None else f" {c.nccl_time_us:.6f} us"
                ch = "" if c.nccl_channels is None else f" on {c.nccl_channels} channels"
                lines.append(
                    f"  call {c.function} {c.n_bytes} B: NCCL {c.nccl_algorithm}/"
                    f"{c.nccl_protocol}{t}{ch}; model {c.model_algorithm}/{c.model_protocol} "
                    f"{c.model_time_us:.6f} us on {c.model_channels} channels"
                )
        return "\n".join(lines)


def check_log(
    log: NcclLog,
    hardware: NcclHardware,
    release: TunerRelease,
    *,
    enable=None,
    latency_only: tuple[tuple[str, str], ...] = (),
    function: str = "AllReduce",
) -> LogCheck:
    """Compare ``log`` with the model of ``release`` on the system it describes."""
    system = system_from_log(log, hardware)
    table = cost_table(system, enable or Enablement.defaults(), release)
    cells, threads = compare_table(log, table, latency_only)
    return LogCheck(release, system, cells, threads, compare_calls(log, table, function))
