"""Reading the record ``nccl-course bench ... --json FILE`` writes.

Its shape is :func:`nccl_course.bench.harness.run_benchmark`'s: ``collective``, ``nranks``,
``backend``, ``rows`` (each ``size``, ``count``, ``type``, ``redop``, ``root``, ``time_us``,
``algbw``, ``busbw``, ``wrong``) and ``environment`` (rank 0's: ``gpu_names``,
``nccl_version``, ``nccl_env``). The bench runs on one node and times one call per size,
like nccl-tests' out-of-place column. The numbers are stored unrounded. Only what a
comparison needs is required; every value is checked for its type, and a malformed file is
named with what is wrong.

Units: bytes, microseconds, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

import json

from nccl_course import collectives
from nccl_course.cost.measured.measurement import Measurement, MeasurementError, Row, Timing


def _number(value, what: str, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MeasurementError(f"{path}: {what} must be a number, got {json.dumps(value)[:40]}")
    return float(value)


def _row(index: int, item, path: str) -> Row:
    if not isinstance(item, dict):
        raise MeasurementError(f"{path}: rows[{index}] must be a JSON object")
    where = f"rows[{index}]"
    size = _number(item.get("size"), f"{where}.size", path)
    if size != int(size) or size < 0:
        raise MeasurementError(f"{path}: {where}.size must be a whole number of bytes")
    time_us, algbw, busbw = (
        _number(item.get(key), f"{where}.{key}", path) for key in ("time_us", "algbw", "busbw")
    )
    count = item.get("count")
    root = item.get("root")
    wrong = item.get("wrong")
    return Row(
        line=index,
        size=int(size),
        count=int(count) if isinstance(count, int) else None,
        dtype=str(item["type"]) if "type" in item else None,
        redop=str(item["redop"]) if "redop" in item else None,
        root=int(root) if isinstance(root, int) else None,
        out_of_place=Timing(time_us, algbw, busbw, wrong if isinstance(wrong, int) else None),
        in_place=None,
    )


def read(
    text: str, path: str, *, collective: str | None = None, ranks: int | None = None
) -> Measurement:
    """The measurement in a bench JSON record ``text`` (read from ``path``). ``collective``
    and ``ranks`` must agree with the record's. Raises :class:`MeasurementError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MeasurementError(
            f"{path} is malformed JSON ({exc.msg}, line {exc.lineno} column {exc.colno}): it "
            "may have been cut short by a run that stopped; measure again (nccl-tests -J "
            "FILE.json, or nccl-course bench ... --json FILE)"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise MeasurementError(
            f"{path} is JSON but neither nccl-tests' -J file (no 'results' list) nor an "
            "nccl-course bench record (no 'rows' list): give one of those, or nccl-tests' text "
            "output"
        )
    name, nranks = data.get("collective"), data.get("nranks")
    if not isinstance(name, str) or isinstance(nranks, bool) or not isinstance(nranks, int):
        raise MeasurementError(f"{path}: a bench record needs 'collective' (text) and 'nranks'")
    try:
        collectives.get(name)
    except ValueError as exc:
        raise MeasurementError(f"{path}: {exc}") from None
    if nranks < 1:
        raise MeasurementError(f"{path}: 'nranks' must be at least 1, got {nranks}")
    for given, recorded, flag in ((collective, name, "the collective"), (ranks, nranks, "-p")):
        if given is not None and given != recorded:
            raise MeasurementError(f"{path} records {recorded!r}; {flag} says {given!r}: drop it")
    backend = data.get("backend")
    if backend is not None and backend != "nccl":
        raise MeasurementError(
            f"{path} was measured on {backend} (CPU processes), not NCCL: NCCL's model "
            "describes NCCL on GPUs; run nccl-course bench on GPUs (--backend nccl)"
        )
    env = data.get("environment") if isinstance(data.get("environment"), dict) else {}
    rows, notes, zero = [], [], 0
    for index, item in enumerate(data["rows"]):
        row = _row(index, item, path)
        if row.size == 0:
            zero += 1
        else:
            rows.append(row)
    if zero:
        notes.append(f"skipped {zero} row(s) of size 0: a call of 0 bytes moves nothing")
    if not rows:
        raise MeasurementError(f"{path} has no rows with a size above 0 to compare")
    names = env.get("gpu_names") if isinstance(env.get("gpu_names"), list) else []
    nccl_env = env.get("nccl_env") if isinstance(env.get("nccl_env"), dict) else {}
    version = env.get("nccl_version")
    return Measurement(
        path=path,
        source="nccl-course bench",
        harness="torch.distributed",
        collective=name,
        ranks=nranks,
        rows=tuple(rows),
        nodes=1,
        gpu_names=tuple(str(n) for n in names[:nranks]),
        nccl_version=version if isinstance(version, str) else None,
        env={str(k): str(v) for k, v in nccl_env.items()},
        notes=tuple(notes),
    )
