"""Byte sizes with units, as people write them on command lines and in questions.

Decimal prefixes are powers of 1000 (kB, MB, GB), binary ones powers of 1024 (KiB, MiB, GiB),
following IEC 80000-13. Bandwidths in this course are GB/s = 1e9 bytes/s, as nccl-tests prints.
"""

from __future__ import annotations

import re

_FACTORS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "m": 1000**2,
    "mb": 1000**2,
    "g": 1000**3,
    "gb": 1000**3,
    "t": 1000**4,
    "tb": 1000**4,
    "ki": 1024,
    "kib": 1024,
    "mi": 1024**2,
    "mib": 1024**2,
    "gi": 1024**3,
    "gib": 1024**3,
    "ti": 1024**4,
    "tib": 1024**4,
}

_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_size(text: str | int | float) -> int:
    """Parse ``"64MiB"``, ``"1GiB"``, ``"8"``, ``"1.5GB"`` into a whole number of bytes.

    Raises ValueError with a message that says what is accepted.
    """
    if isinstance(text, int | float):
        value, unit = float(text), ""
    else:
        match = _SIZE_RE.match(text)
        if not match:
            raise ValueError(
                f"cannot read size {text!r}: write a number with an optional unit, "
                "e.g. 8, 64KiB, 64MiB, 1GiB, 1.5GB"
            )
        value, unit = float(match.group(1)), match.group(2).lower()
    if unit not in _FACTORS:
        raise ValueError(
            f"unknown unit {unit!r} in {text!r}: use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB"
        )
    nbytes = value * _FACTORS[unit]
    if nbytes < 0 or nbytes != int(nbytes):
        raise ValueError(f"size {text!r} is not a whole, non-negative number of bytes")
    return int(nbytes)


def format_size(nbytes: int | float) -> str:
    """Format bytes with the largest binary unit that keeps the number >= 1 (``64 MiB``)."""
    nbytes = float(nbytes)
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if nbytes >= factor:
            value = nbytes / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{nbytes:.0f} B"
