"""Units a numeric answer may carry, and how a typed answer is read.

The page's JavaScript gets the factors of the answer's unit family from the answer key and applies
the same regular expression and arithmetic, so the book and Python accept exactly the same inputs.
Factors are to the family's base unit: seconds, bytes, bytes/s, percent.
"""

from __future__ import annotations

import math
import re

from nccl_course.i18n.interface import N_
from nccl_course.i18n.numbers import AmbiguousNumber, delocalize_number, format_number

UNIT_FAMILIES: dict[str, dict[str, float]] = {
    "time": {
        "s": 1.0,
        "ms": 1e-3,
        "us": 1e-6,
        "µs": 1e-6,
        "μs": 1e-6,
        "ns": 1e-9,
        "min": 60.0,
    },
    "size": {
        "B": 1.0,
        "kB": 1e3,
        "KB": 1e3,
        "MB": 1e6,
        "GB": 1e9,
        "TB": 1e12,
        "KiB": 1024.0,
        "MiB": 1024.0**2,
        "GiB": 1024.0**3,
        "TiB": 1024.0**4,
    },
    "bandwidth": {
        "B/s": 1.0,
        "kB/s": 1e3,
        "MB/s": 1e6,
        "GB/s": 1e9,
        "TB/s": 1e12,
        "Gb/s": 1e9 / 8,
        "Gbit/s": 1e9 / 8,
        "Tb/s": 1e12 / 8,
    },
    "percent": {"%": 1.0},
    "number": {"": 1.0},
}

#: Significant figures a numeric answer is shown with when its question gives no ``sig_figs``.
DEFAULT_DISPLAY_SIG_FIGS = 3

# A number, then optional unit text. The JavaScript copy of this pattern is in static/quiz.js.
NUMBER_RE = re.compile(r"^\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(\S*)\s*$")


#: What a learner reads when a typed number reads two ways (``1.875`` in Turkish): the rule is in
#: nccl_course.i18n.numbers.delocalize_number; the page's script shows the same words.
AMBIGUOUS_NUMBER = N_(
    "'{typed}' could be {whole} or {fraction}; write it without a thousands separator,"
    " as {whole} or {fraction}"
)


def unit_family(unit: str) -> str:
    """The family name of ``unit`` ("" is a pure number). Raises ValueError for unknown units."""
    for family, units in UNIT_FAMILIES.items():
        if unit in units:
            return family
    known = ", ".join(repr(u) for units in UNIT_FAMILIES.values() for u in units)
    raise ValueError(f"unknown unit {unit!r}; known: {known}")


def family_units(unit: str) -> dict[str, float]:
    """The units convertible to ``unit``, with their factors to the family's base unit."""
    return dict(UNIT_FAMILIES[unit_family(unit)])


class ResponseError(ValueError):
    """A typed answer that cannot be read as a number in the expected unit.

    ``template`` and ``fields`` keep the message apart from its values, so that a grader can
    show it in the learner's language (``nccl_course.i18n.interface``)."""

    def __init__(self, template: str, **fields):
        self.template = template
        self.fields = fields
        super().__init__(template.format(**fields) if fields else template)


def read_number(
    response: object, unit: str, units: dict[str, float] | None = None, decimal: str = "."
) -> float:
    """Read a response (a number, or text such as ``"23.2 ms"``) as a value in ``unit``.

    A bare number is taken to be in ``unit``. ``decimal`` is the learner's decimal separator
    (``","`` in Turkish: ``"1,5 ms"``, ``"26.214.400 B"``; a point is read too, and a number that
    reads two ways, ``"1.875"``, is refused with a message saying how to write it). Raises
    ResponseError saying what is expected.
    """
    if units is None:
        units = family_units(unit)
    if isinstance(response, bool):
        raise ResponseError(N_("expected a number"))
    if isinstance(response, int | float):
        value = float(response)
        if not math.isfinite(value):
            raise ResponseError(N_("expected a finite number"))
        return value
    if not isinstance(response, str):
        raise ResponseError(
            N_("expected a number, or a number with a unit such as '{example}'"), example="23.2 ms"
        )
    try:
        plain = delocalize_number(response, decimal)
    except AmbiguousNumber as ambiguous:
        raise ResponseError(
            AMBIGUOUS_NUMBER,
            typed=ambiguous.text,
            whole=ambiguous.whole,
            fraction=ambiguous.fraction.replace(".", decimal),
        ) from None
    match = NUMBER_RE.match(plain)
    if not match:
        raise _expected(unit, units)
    value = float(match.group(1))
    given = match.group(2)
    if given == "" or given == unit:
        return value
    if given not in units:
        raise _expected(unit, units)
    return value * units[given] / units[unit]


def _expected(unit: str, units: dict[str, float]) -> ResponseError:
    if unit == "":
        return ResponseError(N_("expected a number without a unit, e.g. {example}"), example="1.75")
    return ResponseError(
        N_("expected a number, optionally with a unit ({units}); a bare number is read in {unit}"),
        units=", ".join(u for u in units),
        unit=unit,
    )


def tolerance(answer: float, rel: float = 0.0, abs_tol: float = 0.0, sig_figs: int | None = None):
    """Absolute tolerance around ``answer``: max(abs, rel*|answer|, half a unit in the last
    significant figure when ``sig_figs`` is given)."""
    half_ulp = 0.0
    if sig_figs is not None and answer != 0:
        exponent = math.floor(math.log10(abs(answer))) - sig_figs + 1
        half_ulp = 0.5 * 10.0**exponent
    return max(abs_tol, rel * abs(answer), half_ulp)


def format_value(value: float, sig_figs: int = DEFAULT_DISPLAY_SIG_FIGS) -> str:
    """``value`` with ``sig_figs`` significant figures as English writes it (whole numbers kept
    whole, no exponent); ``nccl_course.i18n.numbers.format_number`` for other languages."""
    return format_number(value, "en", sig_figs=sig_figs)
