"""What a measurement is, and whether each of its rows agrees with nccl-tests' definitions.

A :class:`Measurement` is one sweep of one collective: per size a :class:`Row` with the
out-of-place and in-place :class:`Timing` (either may be missing). nccl-tests prints
``algbw = size / time`` and ``busbw = algbw x factor`` (the collective's factor in
:mod:`nccl_course.collectives`), each rounded to what it prints; :func:`inconsistencies`
finds the rows whose numbers disagree by more than that rounding allows, which catches a
number edited or mistyped by hand. A value's rounding is half a unit of its last printed
digit, read from the printed text itself, so every nccl-tests version's formats (``%.2f``,
``%.1f``, ``%.0f`` and ``%.1e`` as the value grows) are covered; exact values (the course's
JSON) get a relative slack of 1e-6.

Units: bytes, microseconds, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nccl_course.cost.busbw import busbw_factor

#: Relative slack for values stored unrounded (JSON floats: the course's bench, nccl-tests -J).
EXACT_SLACK = 1e-6

#: The NCCL settings a measurement file may show that change what NCCL's tuner chooses.
TUNING_ENV = ("NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE")

#: How each source names where a row is (a JSON row's index, else its line in the file).
ROW_PLACES = {"nccl-course bench": "rows[{}]", "nccl-tests JSON": "results[{}]"}


class MeasurementError(ValueError):
    """A file that cannot be read as a measurement; the message is one line for the user."""


def nccl_version_of_code(code: int) -> str:
    """NCCL_VERSION_CODE (major x 10000 + minor x 100 + patch, NCCL from 2.9) as "2.27.3"."""
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"


def half_step(printed: str) -> float:
    """Half a unit of the last digit of ``printed`` ("12.34" -> 0.005, "18535" -> 0.5,
    "1.2e+06" -> 50000.0): the largest error rounding to that text can hide."""
    mantissa, _, exponent = printed.strip().lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


@dataclass(frozen=True)
class Timing:
    """One timed call: ``time_us`` (microseconds), ``algbw`` and ``busbw`` (GB/s), ``wrong``
    (elements that differed; None where not checked, "N/A"). ``*_step``: half the last
    printed digit of each value, 0 for values stored exactly."""

    time_us: float
    algbw: float
    busbw: float
    wrong: int | None = None
    time_step: float = 0.0
    algbw_step: float = 0.0
    busbw_step: float = 0.0


@dataclass(frozen=True)
class Row:
    """One size: ``size`` in bytes as nccl-tests reports it, ``count`` elements, ``dtype``,
    ``redop`` and ``root`` as printed (None where the layout has no such column), the two
    timings, and ``line``: where the row is in its file (1-based; the row's index for JSON)."""

    line: int
    size: int
    count: int | None
    dtype: str | None
    redop: str | None
    root: int | None
    out_of_place: Timing | None
    in_place: Timing | None

    @property
    def timing(self) -> Timing | None:
        """The timing compared with the model: out of place, as published numbers quote,
        else in place."""
        return self.out_of_place or self.in_place


@dataclass(frozen=True)
class Measurement:
    """A sweep read from ``path``: ``source`` ("nccl-tests", "nccl-tests JSON" or
    "nccl-course bench"), the
    ``collective`` (course name), ``ranks``, ``nodes`` (distinct hosts), the GPUs' names,
    the NCCL version the run used, ``env``: the NCCL_* settings the file shows, the rows in
    file order, ``notes`` (what was skipped or assumed), and ``time_is_cpu``: the time
    column is nccl-tests' ``cputime`` (-C 1), which its bandwidths are not computed from;
    ``harness``: what timed the calls (:data:`nccl_course.cost.nccl.call_cost.HARNESSES`)."""

    path: str
    source: str
    collective: str
    ranks: int
    rows: tuple[Row, ...]
    nodes: int | None = None
    gpu_names: tuple[str, ...] = ()
    nccl_version: str | None = None
    env: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    time_is_cpu: bool = False
    harness: str = "nccl-tests"


@dataclass(frozen=True)
class Inconsistency:
    """A printed ``quantity`` ("algbw" or "busbw") of the row at ``where`` ("line 12", or
    "rows[3]" in JSON; ``line`` is the row's :attr:`Row.line`) in ``group`` ("out of place" or
    "in place") that is not ``expected`` within ``slack`` (GB/s)."""

    where: str
    line: int
    size: int
    group: str
    quantity: str
    printed: float
    expected: float
    slack: float
    rule: str

    def message(self) -> str:
        return (
            f"{self.where} (size {self.size}, {self.group}): {self.quantity} "
            f"{self.printed:g} GB/s is not {self.rule} = {self.expected:.4g} GB/s (the digits "
            f"kept explain at most {self.slack:.2g} GB/s): edited or mistyped?"
        )

    def as_dict(self) -> dict:
        return {
            "where": self.where,
            "line": self.line,
            "size": self.size,
            "group": self.group,
            "quantity": self.quantity,
            "printed_GBps": self.printed,
            "expected_GBps": self.expected,
            "slack_GBps": self.slack,
        }


def rounding_slack(step: float, value: float) -> float:
    """How far the true value can be from ``value``: its printed ``step``, else (a value
    stored exactly) :data:`EXACT_SLACK` of it."""
    return step if step > 0 else EXACT_SLACK * abs(value)


def _check(where: str, row: Row, group: str, t: Timing, factor: float, time_is_cpu: bool):
    """The inconsistencies of one timing (0, 1 or 2)."""
    found = []
    # The time must carry information beyond its rounding to say anything about algbw.
    if not time_is_cpu and t.time_us > t.time_step:
        expected = row.size / (t.time_us * 1e3)  # bytes / us / 1e3 = GB/s
        # size / time moves by at most expected * dt / (t - dt) within the time's rounding.
        time_slack = rounding_slack(t.time_step, t.time_us)
        slack = rounding_slack(t.algbw_step, t.algbw) + expected * time_slack / (
            t.time_us - time_slack
        )
        if abs(t.algbw - expected) > slack + 1e-12:
            found.append(
                Inconsistency(
                    where,
                    row.line,
                    row.size,
                    group,
                    "algbw",
                    t.algbw,
                    expected,
                    slack,
                    "size / time",
                )
            )
    expected = t.algbw * factor
    algbw_slack = rounding_slack(t.algbw_step, t.algbw)
    slack = rounding_slack(t.busbw_step, t.busbw) + algbw_slack * factor
    if abs(t.busbw - expected) > slack + 1e-12:
        rule = f"algbw x {factor:.6g} (the bus factor)"
        found.append(
            Inconsistency(where, row.line, row.size, group, "busbw", t.busbw, expected, slack, rule)
        )
    return found


def inconsistencies(m: Measurement) -> tuple[Inconsistency, ...]:
    """Every printed algbw that is not size / time, and every busbw that is not algbw x the
    collective's bus factor on ``m.ranks`` ranks, beyond what rounding to the printed digits
    explains; in file order, out of place before in place."""
    factor = busbw_factor(m.collective, m.ranks)
    found = []
    place = ROW_PLACES.get(m.source, "line {}")
    for row in m.rows:
        where = place.format(row.line)
        for group, timing in (("out of place", row.out_of_place), ("in place", row.in_place)):
            if timing is not None:
                found += _check(where, row, group, timing, factor, m.time_is_cpu)
    return tuple(found)
