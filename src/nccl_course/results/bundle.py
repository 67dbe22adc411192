"""Reading a GPU-check results folder (``labs/gpu_check.sh RESULTS_DIR``).

The folder may hold (any part may be missing: the node can go away mid-run):

* ``steps.jsonl``: one JSON object per step, ``{"name", "status": pass|fail|skip, "seconds",
  "log"}`` (``log`` relative to the folder); ``summary.txt`` says the same in text;
* ``environment.json``: ``nccl-course doctor --json``, either ``{"environment": {...},
  "checks": [{"id", "title", "status", "detail", "fix"}]}`` or, from older doctors, the
  environment object alone;
* ``topology.txt`` (``nvidia-smi topo -m``), ``bench-<collective>.json`` (the benchmark's
  record, :func:`nccl_course.bench.harness.run_benchmark`), ``nccl-log.<host>.<pid>`` (NCCL's
  INIT,GRAPH,TUNING log, one per process) and ``model-vs-nccl-log.txt``.

:func:`read_bundle` returns a :class:`Bundle`, or raises :class:`BundleError` with one line
that names the file (and the line, for malformed JSON) and says what to do. The content is
untrusted: values are checked for their type here and escaped where the page shows them.
Symbolic links are not followed, so a copied folder cannot pull other files into the page.

Units: seconds, bytes, microseconds, GB/s (1e9 bytes/s), as the files hold them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

STEPS = "steps.jsonl"
SUMMARY = "summary.txt"
ENVIRONMENT = "environment.json"
TOPOLOGY = "topology.txt"
MODEL_VS_LOG = "model-vs-nccl-log.txt"
BENCH_GLOB = "bench-*.json"
NCCL_LOG_GLOB = "nccl-log.*"

#: A communicator's rank 0 announcing itself (NCCL's INIT line, see
#: :mod:`nccl_course.cost.nccl.log_reader`): the file holding it is rank 0's log.
_RANK0_COMM = re.compile(r"NCCL INFO comm 0x[0-9a-f]+ rank 0 nRanks \d+")


class BundleError(ValueError):
    """A results folder that cannot be read; the message is one line for the user."""


@dataclass(frozen=True)
class Step:
    """One step of the check: ``status`` as written (pass, fail, skip), ``seconds`` (None when
    not written), ``log``: the log's path relative to the folder, as written (None: none)."""

    name: str
    status: str
    seconds: float | None
    log: str | None


@dataclass(frozen=True)
class Finding:
    """One of the doctor's checks: ``status`` ok, warn, fail or n/a; ``fix``: what to do."""

    id: str
    title: str
    status: str
    detail: str
    fix: str


@dataclass(frozen=True)
class Measurement:
    """One size of the benchmark: ``size`` bytes (as nccl-tests reports it), ``time_us``
    microseconds per call, ``algbw`` and ``busbw`` GB/s, ``wrong`` elements that differed."""

    size: int
    time_us: float
    algbw: float
    busbw: float
    wrong: int


@dataclass(frozen=True)
class BenchRecord:
    """A ``bench-*.json`` file: the collective, ranks, backend, rows and the environment
    rank 0 recorded (``nccl_env``: the NCCL_* variables the run had)."""

    file: str
    collective: str
    nranks: int
    backend: str
    rows: tuple[Measurement, ...]
    environment: dict

    @property
    def nccl_env(self) -> dict[str, str]:
        env = self.environment.get("nccl_env")
        return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


@dataclass(frozen=True)
class Bundle:
    """What a results folder holds. A part the folder lacks is None (or empty); ``missing``
    names the files the check writes that are absent; ``skipped``: files not read (links)."""

    folder: Path
    steps: tuple[Step, ...] | None
    summary: str | None
    environment: dict | None
    findings: tuple[Finding, ...] | None
    topology: str | None
    benches: tuple[BenchRecord, ...]
    nccl_logs: tuple[str, ...]
    rank0_log: str | None
    model_vs_log: str | None
    missing: tuple[str, ...]
    skipped: tuple[str, ...]
    newest_mtime: float | None

    def file(self, name: str) -> Path | None:
        """The regular file ``name`` (relative, inside the folder), or None: absent, a link,
        or a path leading out of the folder (the names come from the bundle itself)."""
        relative = Path(name)
        if not name or relative.is_absolute() or ".." in relative.parts or "\\" in name:
            return None
        path = self.folder
        for part in relative.parts:
            path = path / part
            if path.is_symlink():
                return None
        return path if path.is_file() else None

    def read_log(self, name: str) -> str:
        """An NCCL log file of the bundle as text (undecodable bytes replaced)."""
        return (self.folder / name).read_text(encoding="utf-8", errors="replace")


def _fail(name: str, line: int | None, what: str) -> BundleError:
    where = f"{name} line {line}" if line is not None else name
    return BundleError(f"{where}: {what}")


def _loads(text: str, name: str, line_offset: int = 0):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(
            name,
            exc.lineno + line_offset,
            f"malformed JSON ({exc.msg}, column {exc.colno}); the file may have been cut short: "
            "copy it again from the node, or delete it to render the rest",
        ) from None


def _string(value, name: str, line: int | None, key: str, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _fail(name, line, f"{key!r} must be text, got {type(value).__name__}")
    return str(value)


def _number(value, name: str, line: int | None, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(name, line, f"{key!r} must be a number, got {json.dumps(value)[:40]}")
    return float(value)


def _object(value, name: str, line: int | None, what: str) -> dict:
    if not isinstance(value, dict):
        raise _fail(name, line, f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def read_steps(text: str, name: str = STEPS) -> tuple[Step, ...]:
    """The steps of ``steps.jsonl`` (blank lines skipped)."""
    steps = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        item = _object(_loads(line, name, number - 1), name, number, "a step")
        seconds = item.get("seconds")
        log = item.get("log")
        steps.append(
            Step(
                name=_string(item.get("name"), name, number, "name"),
                status=_string(item.get("status"), name, number, "status").lower(),
                seconds=None if seconds is None else _number(seconds, name, number, "seconds"),
                log=_string(log, name, number, "log") if log not in (None, "") else None,
            )
        )
    return tuple(steps)


def read_environment(text: str, name: str = ENVIRONMENT) -> tuple[dict, tuple[Finding, ...] | None]:
    """(environment, findings) from the doctor's JSON; findings None for doctors that wrote
    the environment alone."""
    data = _object(_loads(text, name), name, None, "the doctor's output")
    if "environment" in data:
        environment = _object(data["environment"], name, None, "'environment'")
    elif "python" in data or "host" in data:  # doctors before "checks": the environment alone
        return data, None
    else:
        raise _fail(
            name, None, "not the output of 'nccl-course doctor --json' (no 'environment' object)"
        )
    checks = data.get("checks")
    if checks is None:
        return environment, None
    if not isinstance(checks, list):
        raise _fail(name, None, f"'checks' must be a list, got {type(checks).__name__}")
    findings = []
    for i, check in enumerate(checks):
        what = f"check {i + 1}"
        check = _object(check, name, None, what)
        findings.append(
            Finding(
                id=_string(check.get("id"), name, None, f"{what} id", required=False),
                title=_string(check.get("title"), name, None, f"{what} title"),
                status=_string(check.get("status"), name, None, f"{what} status").lower(),
                detail=_string(check.get("detail"), name, None, f"{what} detail", required=False),
                fix=_string(check.get("fix"), name, None, f"{what} fix", required=False),
            )
        )
    return environment, tuple(findings)


def read_bench(text: str, name: str) -> BenchRecord:
    """A benchmark record (``nccl-course bench ... --json``)."""
    data = _object(_loads(text, name), name, None, "the benchmark record")
    rows_data = data.get("rows")
    if not isinstance(rows_data, list):
        raise _fail(name, None, "no 'rows' list: not a record of 'nccl-course bench --json'")
    rows = []
    for i, row in enumerate(rows_data):
        what = f"row {i + 1}"
        row = _object(row, name, None, what)
        size = _number(row.get("size"), name, None, f"{what} size")
        if not math.isfinite(size) or size < 1 or size != int(size):
            raise _fail(name, None, f"{what}: size must be a whole number of bytes >= 1")
        rows.append(
            Measurement(
                size=int(size),
                time_us=_number(row.get("time_us"), name, None, f"{what} time_us"),
                algbw=_number(row.get("algbw"), name, None, f"{what} algbw"),
                busbw=_number(row.get("busbw"), name, None, f"{what} busbw"),
                wrong=int(_number(row.get("wrong", 0), name, None, f"{what} wrong")),
            )
        )
    nranks = _number(data.get("nranks"), name, None, "nranks")
    if nranks < 1 or nranks != int(nranks):
        raise _fail(name, None, "'nranks' must be a whole number >= 1")
    environment = data.get("environment") or {}
    return BenchRecord(
        file=name,
        collective=_string(data.get("collective"), name, None, "collective"),
        nranks=int(nranks),
        backend=_string(data.get("backend"), name, None, "backend"),
        rows=tuple(sorted(rows, key=lambda r: r.size)),
        environment=_object(environment, name, None, "'environment'"),
    )


def _regular(folder: Path, pattern: str, skipped: list[str]) -> list[Path]:
    """Regular files of ``folder`` matching ``pattern``, sorted; links go to ``skipped``."""
    found = []
    for path in sorted(folder.glob(pattern)):
        if path.is_symlink():
            skipped.append(path.name)
        elif path.is_file():
            found.append(path)
    return found


def _is_rank0_log(path: Path) -> bool:
    """Whether ``path`` holds rank 0's communicator line (NCCL prints it at init, near the
    top, so a long log is read only that far)."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        return any(_RANK0_COMM.search(line) for line in lines)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def read_bundle(folder: str | Path) -> Bundle:
    """Read a results folder; BundleError if it is not one or a JSON file is malformed."""
    folder = Path(folder)
    if not folder.exists():
        raise BundleError(f"{folder}: no such folder; give the folder labs/gpu_check.sh wrote")
    if not folder.is_dir():
        raise BundleError(f"{folder}: not a folder; give the folder labs/gpu_check.sh wrote")
    skipped: list[str] = []
    single = {}
    for name in (STEPS, SUMMARY, ENVIRONMENT, TOPOLOGY, MODEL_VS_LOG):
        paths = _regular(folder, name, skipped)
        single[name] = paths[0] if paths else None
    bench_paths = _regular(folder, BENCH_GLOB, skipped)
    log_paths = _regular(folder, NCCL_LOG_GLOB, skipped)
    present = [p for p in (*single.values(), *bench_paths, *log_paths) if p is not None]
    if not present:
        raise BundleError(
            f"{folder}: none of the files labs/gpu_check.sh writes (steps.jsonl, summary.txt, "
            "environment.json, bench-all_reduce.json, nccl-log.*): give its results folder"
        )
    try:
        steps = read_steps(_text(single[STEPS])) if single[STEPS] else None
        environment, findings = (
            read_environment(_text(single[ENVIRONMENT])) if single[ENVIRONMENT] else (None, None)
        )
        benches = tuple(read_bench(_text(p), p.name) for p in bench_paths)
        rank0 = next((p.name for p in log_paths if _is_rank0_log(p)), None)
        texts = {n: _text(p) if p else None for n, p in single.items()}
        newest = max(p.stat().st_mtime for p in present)
    except OSError as exc:
        raise BundleError(f"{folder}: cannot read {exc.filename}: {exc.strerror}") from None
    on_gpus = any(b.backend == "nccl" for b in benches) or bool(
        (environment or {}).get("gpu_count")
    )
    have = {p.name for p in present} | ({NCCL_LOG_GLOB} if log_paths else set())
    expected = [STEPS, SUMMARY, ENVIRONMENT, "bench-all_reduce.json"]
    if on_gpus:
        expected += [TOPOLOGY, NCCL_LOG_GLOB, MODEL_VS_LOG]
    return Bundle(
        folder=folder,
        steps=steps,
        summary=texts[SUMMARY],
        environment=environment,
        findings=findings,
        topology=texts[TOPOLOGY],
        benches=benches,
        nccl_logs=tuple(p.name for p in log_paths),
        rank0_log=rank0,
        model_vs_log=texts[MODEL_VS_LOG],
        missing=tuple(name for name in expected if name not in have),
        skipped=tuple(skipped),
        newest_mtime=newest,
    )
