"""Numbers as each language writes them: ``1.5`` and ``26214400`` in English, ``1,5`` and
``26.214.400`` in Turkish.

``format_number`` writes a number the course computed; ``localize_decimals`` rewrites the numbers
of a text written in English; ``delocalize_number`` reads what a learner typed. The browser's
twins are ``formatNumber`` and ``readLocalizedNumber`` in ``nccl_course/static/nccl-page.js``,
and a test runs both on the same numbers.

Turkish (TDK's spelling guide, CLDR ``tr``) writes the decimal separator as a comma and groups
thousands with dots. CLDR groups from four digits on (``1.875`` for 1875); the course groups from
five (``12.500``, ``26.214.400``) and writes four-digit integers plainly (``1875``), so that a
number it writes never looks like an English decimal. English generated numbers are not
grouped: they are the values a learner types back into an answer box.

In MathJax a comma is punctuation and gets a space after it: math writes the decimal comma as
``{,}`` (``1{,}875``).
"""

from __future__ import annotations

import math as _math
import re
from decimal import ROUND_HALF_UP, Decimal

#: The decimal separator of each language the course is written in.
DECIMAL_SEPARATOR = {"en": ".", "tr": ","}
#: The thousands separator of each language, and the fewest integer digits that are grouped
#: (None: never grouped).
GROUP_SEPARATOR = {"en": ",", "tr": "."}
GROUP_FROM_DIGITS = {"en": None, "tr": 5}

_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
# English thousands grouping: "50,000" (a comma before each group of three digits); in math
# "26{,}214{,}400".
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MATH_THOUSANDS_COMMA = re.compile(r"(?<=\d)\{,\}(?=\d{3}(?!\d))")
# A typed number: sign, digits with separators, exponent, then the rest (a unit).
_TYPED = re.compile(r"^(\s*[+-]?)([0-9.,]*[0-9][0-9.,]*)((?:[eE][+-]?[0-9]+)?)(.*)$", re.S)
_GROUPED = re.compile(r"^[1-9][0-9]{0,2}(?:[.,][0-9]{3})+$")


class AmbiguousNumber(ValueError):
    """A typed number that reads two ways: ``1.875`` in Turkish is 1875 with a thousands dot or
    1.875 with a decimal point. ``whole`` and ``fraction`` are the two readings (decimal point)."""

    def __init__(self, text: str, whole: str, fraction: str):
        self.text, self.whole, self.fraction = text, whole, fraction
        super().__init__(f"{text!r} could be {whole} or {fraction}")


def decimal_separator(language: str) -> str:
    try:
        return DECIMAL_SEPARATOR[language]
    except KeyError:
        known = ", ".join(sorted(DECIMAL_SEPARATOR))
        raise ValueError(f"unknown language {language!r}; known: {known}") from None


def _round_decimal(value: float, digits: int | None, sig_figs: int | None) -> tuple[str, bool]:
    """|value| as plain decimal digits (no exponent), and whether to drop trailing zeros.
    Ties round away from zero, on the float's exact binary value, as JavaScript's toFixed and
    toPrecision do."""
    exact = Decimal(abs(value))
    if digits is not None:
        return format(exact.quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP), "f"), False
    if sig_figs is not None:
        if exact == 0:
            return "0", True
        exponent = exact.adjusted()
        if exponent >= sig_figs - 1:  # whole numbers keep all their digits: 123456 stays
            return format(exact.quantize(Decimal(1), ROUND_HALF_UP), "f"), True
        rounded = exact.quantize(Decimal(1).scaleb(exponent - sig_figs + 1), ROUND_HALF_UP)
        if rounded.adjusted() > exponent:  # 9.995 -> 10.0: one figure fewer after the point
            rounded = exact.quantize(Decimal(1).scaleb(exponent - sig_figs + 2), ROUND_HALF_UP)
        return format(rounded, "f"), True
    # The shortest digits that read back as the same float (Python's repr, JavaScript's String).
    return format(Decimal(repr(abs(float(value)))), "f"), True


def format_number(
    value: float,
    language: str,
    *,
    digits: int | None = None,
    sig_figs: int | None = None,
    math: bool = False,
) -> str:
    """``value`` written as ``language`` writes numbers.

    ``digits``: exactly that many decimals (``1,50``); ``sig_figs``: that many significant
    figures, trailing zeros dropped, whole numbers kept whole (``2,18``; ``123456``); neither:
    the shortest digits that read back as ``value``. ``math``: for MathJax (``1{,}875``).
    Turkish groups integers of five or more digits with dots (``26.214.400``).
    """
    decimal = decimal_separator(language)
    if isinstance(value, bool) or not _math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if isinstance(value, int) and digits is None:
        text, strip = str(abs(value)), False
    else:
        text, strip = _round_decimal(float(value), digits, sig_figs)
    whole, _, fraction = text.partition(".")
    if strip:
        fraction = fraction.rstrip("0")
    group_from = GROUP_FROM_DIGITS[language]
    if group_from is not None and len(whole) >= group_from:
        group = GROUP_SEPARATOR[language]
        head = len(whole) % 3 or 3
        groups = [whole[:head]] + [whole[i : i + 3] for i in range(head, len(whole), 3)]
        whole = ("{,}" if math and group == "," else group).join(groups)
    if math and decimal == ",":
        decimal = "{,}"
    out = f"{whole}{decimal}{fraction}" if fraction else whole
    negative = value < 0 and out.strip("0.,{}") != ""
    return f"-{out}" if negative else out


def localize_decimals(text: str, language: str, *, math: bool = False) -> str:
    """``text`` (numbers as English writes them) with decimal points and thousands commas
    written as ``language`` writes them: "50,000 h and 1.5 ms" is "50.000 h and 1,5 ms" in
    Turkish. ``math``: ``text`` is MathJax (grouping ``26{,}214{,}400``, decimals ``1{,}5``).
    A version, an address or a name with dots is the caller's to leave out."""
    sep = decimal_separator(language)
    if sep == ".":
        return text
    text = _DECIMAL_POINT.sub("\0", text)  # hold the decimal points while commas move
    if math:
        text = _MATH_THOUSANDS_COMMA.sub(".", text)
    text = _THOUSANDS_COMMA.sub(".", text)
    return text.replace("\0", "{,}" if math else sep)


def delocalize_number(text: str, decimal: str) -> str:
    """A typed response in a language whose decimal separator is ``decimal``, with its number
    written plainly (decimal point, no grouping); text that is not a number comes back as is.

    The rule: the language's own decimal separator, once, is the decimal (``1,5`` in Turkish,
    ``1.5`` in English); a separator repeated in groups of three is grouping (``26.214.400``,
    ``26,214,400``); with both, the last is the decimal (``1.234,5``). In Turkish a single dot is
    read as a decimal point too (keyboards and code write one) unless exactly three digits
    follow one to three leading digits (``1.875``): that reads as 1875 or 1.875 and raises
    :class:`AmbiguousNumber`; so does ``1,875`` in English, which never reads a comma as a
    decimal point.
    """
    m = _TYPED.match(text)
    if not m:
        return text
    sign, body, exponent, rest = m.groups()
    dots, commas = body.count("."), body.count(",")
    if not dots and not commas:
        return text
    last = max(body.rfind("."), body.rfind(","))
    kind = body[last]
    head, tail = body[:last], body[last + 1 :]
    if dots and commas:  # grouped, then a decimal: "1.234,5", "1,234.5"
        if body.count(kind) != 1 or not _GROUPED.match(head):
            return text
        if kind != decimal and kind != ".":
            return text  # English never reads a comma as a decimal point
        return f"{sign}{head.replace(',', '').replace('.', '')}.{tail}{exponent}{rest}"
    if dots + commas > 1:  # grouping alone: "26.214.400"
        return f"{sign}{body.replace(kind, '')}{exponent}{rest}" if _GROUPED.match(body) else text
    if kind == decimal:
        return f"{sign}{head or '0'}.{tail}{exponent}{rest}"
    if _GROUPED.match(body):
        raise AmbiguousNumber(text.strip(), head + tail, f"{head}.{tail}")
    if kind == ".":  # a decimal point typed in a language with a decimal comma
        return f"{sign}{head or '0'}.{tail}{exponent}{rest}"
    return text
