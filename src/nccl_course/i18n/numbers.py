"""Numbers as each language writes them: ``1.5`` in English, ``1,5`` in Turkish.

Only the decimal separator differs in what the course prints; thousands are never grouped.
"""

from __future__ import annotations

import re

#: The decimal separator of each language the course is written in.
DECIMAL_SEPARATOR = {"en": ".", "tr": ","}

_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
# English thousands grouping: "50,000" (a comma before each group of three digits).
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# A response written with a decimal comma: "1,5", "-0,25 ms", "2,5e3".
_COMMA_NUMBER = re.compile(r"^(\s*[+-]?[0-9]*),([0-9]+(?:[eE][+-]?[0-9]+)?(?:\s*\S*)\s*)$")


def decimal_separator(language: str) -> str:
    try:
        return DECIMAL_SEPARATOR[language]
    except KeyError:
        known = ", ".join(sorted(DECIMAL_SEPARATOR))
        raise ValueError(f"unknown language {language!r}; known: {known}") from None


def localize_decimals(text: str, language: str) -> str:
    """``text`` (numbers as English writes them) with decimal points and thousands commas
    written as ``language`` writes them: "50,000 h and 1.5 ms" is "50.000 h and 1,5 ms" in
    Turkish."""
    sep = decimal_separator(language)
    if sep == ".":
        return text
    text = _DECIMAL_POINT.sub("\0", text)  # hold the decimal points while commas move
    text = _THOUSANDS_COMMA.sub(".", text)
    return text.replace("\0", sep)


def delocalize_number(text: str, decimal: str) -> str:
    """A response in a language whose decimal separator is ``decimal``, with a decimal point.

    ``"1,5 ms"`` becomes ``"1.5 ms"`` when ``decimal`` is ``","``. A dot is still read as the
    decimal point (people type what their keyboard and code use); a comma is read as one only
    where it stands between the digits of a single number, so ``"1,5"`` is never 15.
    """
    if decimal == ".":
        return text
    m = _COMMA_NUMBER.match(text)
    if not m or "." in m.group(1):
        return text
    return f"{m.group(1)}.{m.group(2)}"
