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


_NCCL_TESTS_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]?)")
_NCCL_TESTS_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_nccl_tests_size(text: str | int) -> int:
    """A size as nccl-tests' ``-b``/``-e``/``-i`` read it (``parsesize`` in its src/common.cu):
    a number and an optional letter K, M or G (either case) meaning 1024, 1024**2, 1024**3,
    whatever follows the letter. So ``1K`` is 1024 bytes and ``64M``, ``64MB`` and ``64MiB``
    are all 64 MiB; ``1.5G`` is 1.5 GiB. Raises ValueError on anything else."""
    if isinstance(text, int):
        return parse_size(text)
    match = _NCCL_TESTS_SIZE_RE.match(text)
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _NCCL_TESTS_UNITS:
        raise ValueError(
            f"cannot read size {text!r} as nccl-tests does: a number with an optional K, M or "
            "G (powers of 1024), e.g. 8, 1K, 64M, 1G"
        )
    nbytes = float(match.group(1)) * _NCCL_TESTS_UNITS[unit]
    if nbytes != int(nbytes):
        raise ValueError(f"size {text!r} (read as nccl-tests does) is not a whole number of bytes")
    return int(nbytes)


def format_size(nbytes: int | float) -> str:
    """Format bytes with the largest binary unit that keeps the number >= 1 (``64 MiB``)."""
    nbytes = float(nbytes)
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if nbytes >= factor:
            value = nbytes / factor
            # Three significant digits, but never exponent notation: 1023.99 MiB prints as
            # "1024 MiB" (nccl-tests' sizes that are not a multiple of the ranks land there).
            whole = value == int(value) or value >= 100
            return f"{value:.0f} {unit}" if whole else f"{value:.3g} {unit}"
    return f"{nbytes:.0f} B"
