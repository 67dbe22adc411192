"""A learner's own measurements, read and set against the course's NCCL model.

* :mod:`~nccl_course.cost.measured.measurement`: what a measurement is (rows of size, time,
  algbw and busbw, out of place and in place) and the check that every row agrees with
  nccl-tests' definitions within the printing's rounding;
* :mod:`~nccl_course.cost.measured.nccl_tests_text`: the text ``all_reduce_perf`` and its
  siblings print (every layout from nccl-tests 2.0 to 2.19), with other processes' output,
  MPI warnings and NCCL INFO lines around and between the rows;
* :mod:`~nccl_course.cost.measured.nccl_tests_json`: the JSON file ``all_reduce_perf -J
  FILE.json`` writes (nccl-tests 2.18.5 and later);
* :mod:`~nccl_course.cost.measured.bench_json`: the record ``nccl-course bench --json`` writes;
* :mod:`~nccl_course.cost.measured.comparison`: each size against
  :func:`nccl_course.cost.nccl.predict`, and the median error by size range.

:func:`read_measurement` reads any of the three. Units: bytes, microseconds, GB/s = 1e9 B/s.
"""

from __future__ import annotations

from pathlib import Path

from nccl_course.cost.measured.measurement import Measurement, MeasurementError


def _json(text: str):
    """The parsed JSON, or None where ``text`` is not JSON."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def read_measurement(
    path: str | Path, *, collective: str | None = None, ranks: int | None = None
) -> Measurement:
    """The measurement in ``path``: nccl-tests' JSON (``-J``) or the course's bench JSON when
    the file is JSON, else nccl-tests' text. ``collective`` and ``ranks`` say what the file cannot (a file that
    says otherwise is an error). Raises :class:`MeasurementError` with one line for the user."""
    from nccl_course.cost.measured import bench_json, nccl_tests_json, nccl_tests_text

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise MeasurementError(f"no such file: {path}") from None
    except OSError as exc:
        raise MeasurementError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        raise MeasurementError(
            f"{path} is empty: save the whole output of an nccl-tests binary (e.g. "
            "all_reduce_perf -b 8 -e 1G -f 2 > out.txt) or of nccl-course bench --json"
        )
    start = text.lstrip()[:1]
    # "[" also opens the lines of mpirun --tag-output ("[1,0]<stdout>:"): JSON only if it parses
    data = _json(text) if start in ("{", "[") else None
    if nccl_tests_json.is_nccl_tests_json(data):
        return nccl_tests_json.read(data, str(path), collective=collective, ranks=ranks)
    reader = bench_json if start == "{" or data is not None else nccl_tests_text
    return reader.read(text, str(path), collective=collective, ranks=ranks)


__all__ = ["Measurement", "MeasurementError", "read_measurement"]
