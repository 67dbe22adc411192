"""Reading what nccl-tests' ``*_perf`` binaries print.

The layouts, from NVIDIA/nccl-tests' sources (src/common.cu, and src/util.cu from 2.18):

* before 2.13 every test printed its own leading columns: ``size count type`` (all_gather,
  sendrecv), ``... redop`` (all_reduce, reduce_scatter, alltoall, whose redop is blank),
  ``... root`` (broadcast), ``... redop root`` (reduce); the error column was ``error``;
* from 2.13 all print ``size count type redop root`` ("none" and -1 where they do not apply);
* then per call ``time algbw busbw #wrong`` out of place and again in place, ``N/A`` where
  a value is not reported (#wrong without -c 1, some tests' in place); ``cputime`` for the
  time with -C 1; per-iteration columns (``i_min`` ...) with -I 1 and a date-and-time stamp
  with -S 1 (2.19) are found from the header.

Rows are read by the column header when there is one, else by their width. A log of several
runs one after the other (a script looping over the binaries) is cut to the run of the
collective the user names. The devices are
the ``#  Rank N Group G Pid P on HOST device D [BUS] NAME`` lines (``Group`` from 2.13);
the collective is the binary's name where the file shows one (a command line, ``# Collective
test starting:``), else what the columns allow (:mod:`~nccl_course.cost.measured.identify`).
Lines of other ranks (``[1,3]<stdout>:`` from Open MPI's ``mpirun --tag-output``, ``[3]`` from
MPICH's or Intel MPI's ``mpiexec -prepend-rank``, ``3: `` from ``srun --label``), MPI
warnings, NCCL INFO lines and anything else that is not a row are skipped.

Units as printed: bytes, microseconds, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nccl_course import collectives
from nccl_course.cost.measured.identify import binary_collectives, identify
from nccl_course.cost.measured.measurement import (
    TUNING_ENV,
    Measurement,
    MeasurementError,
    Row,
    Timing,
    nccl_version_of_code,
)
from nccl_course.cost.measured.measurement import half_step as _step
from nccl_course.cost.nccl.log_reader import VERSION_LINE

_OMPI_TAG = re.compile(r"^\[\d+,(\d+)\]<(stdout|stderr)>:\s?")
_SRUN_LABEL = re.compile(r"^\s*(\d+): ")
_HYDRA_TAG = re.compile(r"^\[(\d+)\]\s?")
_HYDRA_ZERO = re.compile(r"\[0\]")
_RANK = re.compile(
    r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(?:(\S+)\s+)?device\s+\d+"
    r"\s+\[[^\]]*\]\s*(.*?)\s*$"
)
_HEADER = re.compile(r"^#?\s*size\s+count\s+type\b")
_DATA = re.compile(r"^\s*\d+\s+\d+\s+\S")
_BINARY = re.compile(r"\b([a-z]+(?:_[a-z]+)*_perf)(?:_mpi)?\b")
_STARTING = re.compile(r"Collective test starting:\s*([a-z_]+_perf)")
_BANNER = re.compile(r"^#\s*nccl-tests version\b")
_LIBRARY_CODE = re.compile(r"nccl-library=(\d{5,})")
_ENV = re.compile(r"\b(" + "|".join(TUNING_ENV) + r")(?:=| set by environment to )([^\s\\'\"]+)")
_COMM = re.compile(r"\bnRanks (\d+) nNodes (\d+)")
_AVERAGE = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_TIME_NAMES = ("time", "cputime")
_GROUP = ("time", "algbw", "busbw", "#wrong")


@dataclass
class _Layout:
    """Where a row's cells are: the leading column names, the names in each timed group,
    how many groups, and how many cells close the row (2 for a date-and-time stamp)."""

    leading: tuple[str, ...]
    group: tuple[str, ...] = _GROUP
    groups: int = 2
    extra: int = 0
    line: int | None = None

    @property
    def width(self) -> int:
        return len(self.leading) + len(self.group) * self.groups + self.extra


def _layout_of_header(words: list[str], line: int) -> _Layout:
    words = ["#wrong" if w == "error" else w for w in words]
    extra = 2 if words[-1] == "timestamp" else 0
    words = words[:-1] if extra else words
    starts = [i for i, w in enumerate(words) if w in _TIME_NAMES]
    if not starts:
        return _Layout(tuple(words), groups=0, line=line)
    end = starts[1] if len(starts) > 1 else len(words)
    return _Layout(
        tuple(words[: starts[0]]), tuple(words[starts[0] : end]), len(starts), extra, line
    )


def _layout_of_row(tokens: list[str]) -> _Layout:
    """The layout of a headerless row, from its width (groups of four)."""
    leading = len(tokens) - 8
    if leading == 4:
        fourth = "root" if tokens[3].lstrip("-").isdigit() else "redop"
        return _Layout(("size", "count", "type", fourth))
    names = {3: ("size", "count", "type"), 5: ("size", "count", "type", "redop", "root")}
    return _Layout(names.get(leading, ("size", "count", "type", "redop", "root")))


@dataclass
class _Scan:
    """What the lines of one file said, gathered in one pass."""

    path: str
    layout: _Layout | None = None
    rows: list[Row] = field(default_factory=list)
    zero_lines: list[int] = field(default_factory=list)
    ranks: dict[int, tuple[int, str, str]] = field(default_factory=dict)
    pids: set[tuple[str, str]] = field(default_factory=set)
    starting: str | None = None
    binaries: set[str] = field(default_factory=set)
    version: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    comm: tuple[int, int] | None = None
    average: str | None = None

    def fail(self, line: int, what: str) -> MeasurementError:
        return MeasurementError(f"{self.path} line {line}: {what}")

    def feed(self, number: int, line: str) -> None:
        if _DATA.match(line):
            self.row(number, line.split())
        elif _HEADER.match(line):
            if self.rows:
                raise self.fail(number, "a second table starts here: keep one run per file")
            self.layout = _layout_of_header(line.lstrip("#").split(), number)
        elif match := _RANK.match(line):
            rank = int(match.group(1))
            if rank in self.ranks:
                raise self.fail(
                    number,
                    f"rank {rank} is listed again (first on line {self.ranks[rank][0]}): each "
                    "process printed its own table, as an nccl-tests built without MPI does "
                    "under mpirun; rebuild it with make MPI=1, or keep one process's output",
                )
            self.ranks[rank] = (number, match.group(3) or "", match.group(4))
            self.pids.add((match.group(3) or "", match.group(2)))
        else:
            self.other(line)

    def other(self, line: str) -> None:
        if match := _AVERAGE.match(line):
            self.average = self.average or match.group(1)
        if match := _STARTING.search(line):
            self.starting = self.starting or match.group(1)
        self.binaries.update(_BINARY.findall(line))
        if self.version is None and (match := VERSION_LINE.search(line)):
            self.version = match.group(1)
        if self.version is None and (match := _LIBRARY_CODE.search(line)):
            self.version = nccl_version_of_code(int(match.group(1)))
        for key, value in _ENV.findall(line):
            self.env.setdefault(key, value)
        if self.comm is None and (match := _COMM.search(line)):
            self.comm = (int(match.group(1)), int(match.group(2)))

    def row(self, number: int, tokens: list[str]) -> None:
        layout = self.layout = self.layout or _layout_of_row(tokens)
        if len(tokens) == layout.width - 1 and layout.leading == ("size", "count", "type", "redop"):
            tokens.insert(3, "")  # alltoall_perf before 2.13 printed an empty redop
        if len(tokens) != layout.width:
            where = f"the column header on line {layout.line}" if layout.line else "the first row"
            raise self.fail(
                number,
                f"a row of {len(tokens)} columns where {where} has {layout.width}: the line is "
                "cut or mixed with other output; remove it or paste the run's output again",
            )
        cells = dict(zip(layout.leading, tokens, strict=False))
        try:
            size, count = int(cells["size"]), int(cells["count"])
            root = int(cells["root"]) if "root" in cells else None
        except (KeyError, ValueError):
            raise self.fail(number, "size, count and root must be whole numbers") from None
        if size == 0:
            self.zero_lines.append(number)
            return
        if first := next((r.line for r in self.rows if r.size == size), None):
            raise self.fail(
                number,
                f"size {size} again (first on line {first}): the file holds more than one "
                "sweep (two runs, or several processes each printing a table); keep one",
            )
        start = len(layout.leading)
        width = len(layout.group)
        timings = [
            self.timing(number, layout.group, tokens[start + g * width : start + (g + 1) * width])
            for g in range(layout.groups)
        ]
        timings += [None] * (2 - len(timings))
        row = Row(number, size, count, cells.get("type"), cells.get("redop"), root, *timings[:2])
        self.rows.append(row)

    def timing(self, number: int, names: tuple[str, ...], cells: list[str]) -> Timing | None:
        values = dict(zip(names, cells, strict=True))
        time = values.get("time", values.get("cputime"))
        printed = (time, values.get("algbw"), values.get("busbw"))
        if None in printed or "N/A" in printed:
            return None  # a group nccl-tests did not run (in place, for some tests)
        try:
            time_us, algbw, busbw = (float(v) for v in printed)
            wrong = values.get("#wrong", "N/A")
            wrong = None if wrong == "N/A" else int(float(wrong))
        except ValueError:
            raise self.fail(number, f"{' '.join(cells)!r} are not numbers") from None
        steps = (_step(v) for v in printed)
        return Timing(time_us, algbw, busbw, wrong, *steps)


def _strip_prefix(line: str) -> str | None:
    """The line without a launcher's rank tag; None for another rank's line or stderr."""
    if match := _OMPI_TAG.match(line):
        return None if match.group(1) != "0" or match.group(2) == "stderr" else line[match.end() :]
    if match := _SRUN_LABEL.match(line):
        return None if match.group(1) != "0" else line[match.end() :]
    if match := _HYDRA_TAG.match(line):
        if match.group(1) != "0":
            return None
        # Hydra tags every write, and nccl-tests prints a row in several: rank 0's tags can
        # sit inside the row too ("-1[0]    1626.5"), where they stand for a break
        return _HYDRA_ZERO.sub(" ", line[match.end() :])
    return line


def _average_note(scan: _Scan) -> list[str]:
    """A note when ``# Avg bus bandwidth`` is not the mean busbw of the printed calls (both
    groups of every row, size 0 included, as nccl-tests averages): rows lost or edited."""
    if scan.average is None:
        return []
    timings = [t for r in scan.rows for t in (r.out_of_place, r.in_place) if t is not None]
    calls = len(timings) + len(scan.zero_lines) * (scan.layout.groups if scan.layout else 2)
    mean = sum(t.busbw for t in timings) / calls
    slack = max((t.busbw_step for t in timings), default=0.0) + _step(scan.average)
    if abs(float(scan.average) - mean) <= slack:
        return []
    return [
        f"the file's Avg bus bandwidth {scan.average} GB/s is not the mean busbw of its rows "
        f"({mean:.4g} GB/s): rows are missing or edited"
    ]


def _ranks(scan: _Scan, named: int | None, k: int | None, size_counts_all_ranks: bool) -> int:
    """Ranks from the file (Rank lines, else an NCCL INFO communicator line), else ``named``,
    else what the sizes say for a collective whose size counts every rank's block."""
    listed = len(scan.ranks) or (scan.comm[0] if scan.comm else None)
    if listed and named and named != listed:
        raise MeasurementError(
            f"{scan.path} lists {listed} ranks, and -p/--ranks says {named}: drop -p"
        )
    ranks = listed or named or (k if size_counts_all_ranks and k and k > 1 else None)
    if ranks is None:
        raise MeasurementError(
            f"{scan.path} does not say how many ranks ran (no '#  Rank' lines): give the "
            "count with -p N"
        )
    if size_counts_all_ranks and k and k != ranks:
        raise MeasurementError(
            f"{scan.path}: each size is {k} x count elements, which means {k} ranks for this "
            f"collective, not {ranks}: is it the collective, and the rank count, you named?"
        )
    return ranks


def _one_run(lines: list[tuple[int, str]], path: str, collective: str | None):
    """The (number, line) pairs of one run: all of them, or, in a log of several runs one
    after the other (each from its ``# nccl-tests version`` and ``# Collective test
    starting`` lines), what comes before the first and the run of ``collective``."""
    starts = [i for i, (_, line) in enumerate(lines) if _STARTING.search(line)]
    if len(starts) < 2:
        return lines
    begins = [i - 1 if i and _BANNER.match(lines[i - 1][1]) else i for i in starts]
    ends = begins[1:] + [len(lines)]
    programs = [_STARTING.search(lines[i][1]).group(1) for i in starts]
    by_binary = binary_collectives()
    listed = ", ".join(programs)
    if collective is None:
        example = next((by_binary[p] for p in programs if p in by_binary), "all_reduce")
        raise MeasurementError(
            f"{path} holds {len(programs)} runs ({listed}): name the collective to compare, "
            f"e.g. nccl-course model {example} --compare {path}"
        )
    chosen = [k for k, program in enumerate(programs) if by_binary.get(program) == collective]
    if not chosen:
        raise MeasurementError(f"{path} holds runs of {listed}, none of {collective}")
    if len(chosen) > 1:
        where = ", ".join(str(lines[starts[k]][0]) for k in chosen)
        raise MeasurementError(
            f"{path} holds {len(chosen)} runs of {programs[chosen[0]]} (lines {where}): keep one"
        )
    k = chosen[0]
    return lines[: begins[0]] + lines[begins[k] : ends[k]]


def read(
    text: str, path: str, *, collective: str | None = None, ranks: int | None = None
) -> Measurement:
    """The measurement in nccl-tests' output ``text`` (read from ``path``, named in errors).
    Raises :class:`MeasurementError` with one line for the user."""
    scan = _Scan(path)
    numbered = [(n, _strip_prefix(raw.rstrip("\r"))) for n, raw in enumerate(text.splitlines(), 1)]
    for number, line in _one_run(
        [(n, line) for n, line in numbered if line is not None], path, collective
    ):
        scan.feed(number, line)
    if not scan.rows:
        raise MeasurementError(
            f"{path} has no data rows (lines like '1048576  262144  float  sum  -1  ...'): "
            "save the whole output of an nccl-tests binary, e.g. all_reduce_perf -b 8 -e 1G"
        )
    by_binary = binary_collectives()
    found = {by_binary[b] for b in scan.binaries if b in by_binary}
    binary = by_binary.get(scan.starting) or (found.pop() if len(found) == 1 else None)
    listed = len(scan.ranks) or (scan.comm[0] if scan.comm else None) or ranks
    name, k = identify(
        scan.rows, scan.layout.leading, path, named=collective, binary=binary, ranks=listed
    )
    count_all = collectives.get(name).size_counts_all_ranks
    notes = []
    if scan.zero_lines:
        notes.append(
            f"skipped {len(scan.zero_lines)} row(s) of size 0 (line {scan.zero_lines[0]}"
            + (f"-{scan.zero_lines[-1]}" if len(scan.zero_lines) > 1 else "")
            + "): a call of 0 bytes moves nothing"
        )
    notes += _average_note(scan)
    hosts = {host for _, host, _ in scan.ranks.values() if host}
    return Measurement(
        path=path,
        source="nccl-tests",
        collective=name,
        ranks=_ranks(scan, ranks, k, count_all),
        rows=tuple(scan.rows),
        nodes=len(hosts) or (scan.comm[1] if scan.comm else None),
        gpu_names=tuple(scan.ranks[r][2] for r in sorted(scan.ranks)),
        nccl_version=scan.version,
        env=dict(scan.env),
        notes=tuple(notes),
        time_is_cpu="cputime" in scan.layout.group,
        # one process driving several GPUs (-g N, -t N) launches them in turn every call
        harness="nccl-tests -g" if 0 < len(scan.pids) < len(scan.ranks) else "nccl-tests",
    )


__all__ = ["read"]
