"""Check a lab file one part at a time inside a launch, so one missing step does not hide the rest.

A checks worker (run on every rank) calls :func:`run_parts` with the lab's functions; each part's
value or error comes back per rank. A test then calls :func:`values_of` to get the part's values
(or fail with the learner's own error, e.g. ``NotImplementedError: TODO(step 3): ...``).

A part that raises on *some* ranks only, in the middle of a collective, can still leave the other
ranks waiting; the launch timeout catches that.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any


def run_parts(parts: dict[str, Callable[[], Any]], lab_file: str | None = None) -> dict[str, dict]:
    """Call each part in order; return ``{name: {"value": v}}`` or ``{name: {"error": text}}``.

    The error text is the exception and, when ``lab_file`` is given, the line of that file it
    came from.
    """
    results: dict[str, dict] = {}
    for name, call in parts.items():
        try:
            results[name] = {"value": call()}
        except Exception as exc:
            results[name] = {"error": describe_error(exc, lab_file)}
    return results


def describe_error(exc: BaseException, lab_file: str | None = None) -> str:
    text = f"{type(exc).__name__}: {exc}"
    if lab_file:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == lab_file]
        if frames:
            last = frames[-1]
            text += f" (at line {last.lineno} of {last.filename}: {last.line})"
    return text


def values_of(per_rank: list[dict[str, dict]], part: str) -> list[Any]:
    """The values of ``part`` on every rank, in rank order; an AssertionError naming the first
    rank where the part raised, with the learner's error, otherwise."""
    values = []
    for rank, results in enumerate(per_rank):
        outcome = results[part]
        if "error" in outcome:
            raise AssertionError(f"{part} raised on rank {rank}: {outcome['error']}")
        values.append(outcome["value"])
    return values
