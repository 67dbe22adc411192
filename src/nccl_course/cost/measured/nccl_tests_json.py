"""Reading the JSON file nccl-tests writes with ``-J FILE.json`` (``--output_file``, from
nccl-tests 2.18.5; the layout of its src/util.cu, JSON file version 3 in 2.19).

One object: ``args`` (the command line, the binary first), ``env`` ("KEY=value" strings),
``nccl_version`` (NCCL_VERSION_CODE, e.g. 22703), ``config`` (``nthreads``, ``ngpus`` and
``devices``: one entry per process, the first GPU of each) and ``results``: per size
``size``, ``count``, ``type``, ``redop``, ``root`` (text, e.g. "    -1"), and
``out_of_place`` / ``in_place``, each ``null`` or ``time`` (``cpu_time`` with -C 1),
``alg_bw``, ``bus_bw`` and ``nwrong`` (``null`` without -c 1). The numbers are stored
unrounded, so rows are checked with the exact slack of
:func:`~nccl_course.cost.measured.measurement.rounding_slack`. Keys this reader does not use
(per-iteration statistics, times, the average) are ignored.

Units: bytes, microseconds, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

import re

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

SOURCE = "nccl-tests JSON"
_LEADING = ("size", "count", "type", "redop", "root")
_BINARY = re.compile(r"([a-z]+(?:_[a-z]+)*_perf)(?:_mpi)?$")


def is_nccl_tests_json(data) -> bool:
    """Whether parsed JSON is nccl-tests' file (a ``results`` list beside ``config`` or
    ``args``) rather than the course's bench record."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("results"), list)
        and ("config" in data or "args" in data)
    )


def _number(value, where: str, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MeasurementError(f"{path}: {where} must be a number, got {str(value)[:40]!r}")
    return float(value)


def _whole(value, where: str, path: str) -> int:
    number = _number(value, where, path)
    if number != int(number) or number < 0:
        raise MeasurementError(f"{path}: {where} must be a whole number of 0 or more")
    return int(number)


def _timing(group, where: str, path: str) -> tuple[Timing | None, bool]:
    """(the timing, whether its time is cputime) of one ``out_of_place`` / ``in_place``."""
    if group is None:
        return None, False
    if not isinstance(group, dict):
        raise MeasurementError(f"{path}: {where} must be an object or null")
    cpu = "cpu_time" in group and "time" not in group
    time_us = _number(group.get("cpu_time" if cpu else "time"), f"{where}.time", path)
    algbw = _number(group.get("alg_bw"), f"{where}.alg_bw", path)
    busbw = _number(group.get("bus_bw"), f"{where}.bus_bw", path)
    wrong = group.get("nwrong")
    wrong = None if wrong is None else _whole(wrong, f"{where}.nwrong", path)
    return Timing(time_us, algbw, busbw, wrong), cpu


def _row(index: int, item, path: str) -> tuple[Row, bool]:
    where = f"results[{index}]"
    if not isinstance(item, dict):
        raise MeasurementError(f"{path}: {where} must be an object")
    size = _whole(item.get("size"), f"{where}.size", path)
    count = item.get("count")
    count = None if count is None else _whole(count, f"{where}.count", path)
    root = str(item.get("root", "")).strip()
    if root and not root.lstrip("-").isdigit():
        raise MeasurementError(f"{path}: {where}.root must be a whole number, got {root[:20]!r}")
    timings = [_timing(item.get(k), f"{where}.{k}", path) for k in ("out_of_place", "in_place")]
    if timings[0][0] is None and timings[1][0] is None:
        raise MeasurementError(f"{path}: {where} has neither out_of_place nor in_place times")
    row = Row(
        line=index,
        size=size,
        count=count,
        dtype=str(item["type"]) if "type" in item else None,
        redop=str(item["redop"]) if "redop" in item else None,
        root=int(root) if root else None,
        out_of_place=timings[0][0],
        in_place=timings[1][0],
    )
    return row, timings[0][1] or timings[1][1]


def _whole_or(config: dict, key: str, default: int, path: str) -> int:
    return _whole(config[key], f"config.{key}", path) if key in config else default


def read(
    data: dict, path: str, *, collective: str | None = None, ranks: int | None = None
) -> Measurement:
    """The measurement in nccl-tests' parsed JSON ``data`` (read from ``path``, named in
    errors); ``collective`` and ``ranks`` say what the file does not (a file that says
    otherwise is an error). Raises :class:`MeasurementError` with one line for the user."""
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    devices = config.get("devices") if isinstance(config.get("devices"), list) else []
    devices = [d for d in devices if isinstance(d, dict)]
    rows, zero, cpu_time = [], 0, False
    for index, item in enumerate(data["results"]):
        row, cpu = _row(index, item, path)
        cpu_time |= cpu
        if row.size == 0:
            zero += 1
        elif any(r.size == row.size for r in rows):
            raise MeasurementError(
                f"{path}: size {row.size} again in results[{index}]: the file holds more than "
                "one sweep (several types or operators); keep one"
            )
        else:
            rows.append(row)
    if not rows:
        raise MeasurementError(f"{path} has no results with a size above 0 to compare")
    # one entry per process in config.devices; each process drives nthreads x ngpus ranks
    per_process = _whole_or(config, "nthreads", 1, path) * _whole_or(config, "ngpus", 1, path)
    listed = per_process * len(devices) if devices else None
    if listed and ranks and listed != ranks:
        raise MeasurementError(f"{path} lists {listed} ranks, and -p/--ranks says {ranks}: drop -p")
    args = data.get("args") if isinstance(data.get("args"), list) else []
    match = _BINARY.search(str(args[0]).rsplit("/", 1)[-1]) if args else None
    binary = binary_collectives().get(match.group(1)) if match else None
    name, blocks = identify(
        tuple(rows), _LEADING, path, named=collective, binary=binary, ranks=listed or ranks
    )
    count_all = collectives.get(name).size_counts_all_ranks
    total = listed or ranks or (blocks if count_all and blocks and blocks > 1 else None)
    if total is None:
        raise MeasurementError(
            f"{path} does not say how many ranks ran (no config.devices): give the count with -p N"
        )
    env = {}
    for entry in data.get("env") if isinstance(data.get("env"), list) else []:
        key, _, value = str(entry).partition("=")
        if key in TUNING_ENV:
            env[key] = value
    code = data.get("nccl_version")
    version = nccl_version_of_code(code) if isinstance(code, int) and code > 0 else None
    hosts = {str(d.get("hostname")) for d in devices if d.get("hostname")}
    notes = [f"skipped {zero} result(s) of size 0: a call of 0 bytes moves nothing"] if zero else []
    return Measurement(
        path=path,
        source=SOURCE,
        collective=name,
        ranks=total,
        rows=tuple(rows),
        nodes=len(hosts) or None,
        gpu_names=tuple(str(d.get("device_info", "")) for d in devices),
        nccl_version=version,
        env=env,
        notes=tuple(notes),
        time_is_cpu=cpu_time,
        # one process driving several GPUs (-g N, -t N) launches them in turn every call
        harness="nccl-tests -g" if per_process > 1 else "nccl-tests",
    )


__all__ = ["SOURCE", "is_nccl_tests_json", "read"]
