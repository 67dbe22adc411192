"""The exam's clock: times are UTC, and the API writes them as ISO 8601 with a ``Z``.

Pure functions (no database): the store keeps times in UTC and the exam's rules (deadlines)
compare them with ``utcnow``.
"""

from __future__ import annotations

from datetime import datetime, timezone


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(moment: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; every stored time is UTC, so attach the zone back."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def iso(moment: datetime | None) -> str | None:
    """A stored time as the API writes it: ISO 8601 in UTC with a ``Z``."""
    moment = as_utc(moment)
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")
