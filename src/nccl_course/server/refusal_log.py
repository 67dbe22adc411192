"""Refused requests in the server's log as counts, not one line each.

A flood of refused requests (wrong admin tokens, a client over a rate limit) would otherwise
write one WARNING line per request: thousands of lines a minute that hide everything else and
fill the disk. :class:`RefusalLog` counts refusals per kind and source address and writes at
most one WARNING line per kind and interval (``INTERVAL_S``, 60 s): the first refusal after a
quiet interval at once, later ones as a count, with the addresses that sent the most, in the
line written when the next refusal comes after the interval has passed, or when the server
stops (``flush``, at the end of the app's lifespan).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

# At most one line per kind of refusal in this many seconds.
INTERVAL_S = 60.0
# Addresses named in a line (those with the most refusals); the rest are counted together.
NAMED_SOURCES = 5
# Distinct addresses remembered per line; more are counted as "other addresses".
MAX_SOURCES = 1000


@dataclass
class _Pending:
    """What one kind of refusal has not yet written: its count, per address, since when."""

    since: float
    count: int = 0
    sources: Counter = field(default_factory=Counter)
    others: int = 0  # refusals from addresses past MAX_SOURCES


class RefusalLog:
    """Counts refused requests (``record``) and writes them to ``logger`` at most once per
    ``interval_s`` seconds for each kind. ``clock`` gives seconds (monotonic)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.logger = logger
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._last_line: dict[str, float] = {}

    def record(self, kind: str, source: str) -> None:
        """One refused request of ``kind`` (what was refused, as the log says it) from the
        address ``source``."""
        now = self.clock()
        with self._lock:
            pending = self._pending.setdefault(kind, _Pending(since=now))
            pending.count += 1
            source = str(source)[:100]
            if source in pending.sources or len(pending.sources) < MAX_SOURCES:
                pending.sources[source] += 1
            else:
                pending.others += 1
            last = self._last_line.get(kind)
            if last is not None and now - last < self.interval_s:
                return
            self._last_line[kind] = now
            del self._pending[kind]
        self._write(kind, pending, now)

    def flush(self) -> None:
        """Write what is still counted (when the server stops)."""
        now = self.clock()
        with self._lock:
            pending, self._pending = self._pending, {}
        for kind, counted in pending.items():
            self._write(kind, counted, now)

    def _write(self, kind: str, pending: _Pending, now: float) -> None:
        named = ", ".join(f"{s} x{n}" for s, n in pending.sources.most_common(NAMED_SOURCES))
        rest = len(pending.sources) - NAMED_SOURCES
        if rest > 0:
            named += f" and {rest} other address{'es' if rest > 1 else ''}"
        if pending.others:
            named += f" (and {pending.others} from addresses not counted one by one)"
        self.logger.warning(
            "%s: %d refused in the last %d s, from %s",
            kind,
            pending.count,
            round(now - pending.since),
            named,
        )
