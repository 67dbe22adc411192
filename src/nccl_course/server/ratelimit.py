"""Rate limits of the course server, counted in the course database.

The limits themselves are those of the ``limits`` library: ``limits.parse_many`` reads each
group's rule ("20/minute;100/hour") and ``FixedWindowRateLimiter`` decides; the counters live in
the course database through ``SqlStorage``, a ``limits`` storage over the
``rate_limit_counters`` table (revision 0004), so that every worker process and every host on
one database counts in the same rows. One increment is one atomic
``INSERT .. ON CONFLICT DO UPDATE .. RETURNING`` (SQLite and PostgreSQL): two processes never
lose a count, and a window that has ended starts again at the same statement.

Groups (``DEFAULT_RATE_LIMITS``, keyed by the client's address): ``register``, ``verify``,
``start`` (starting an attempt), ``admin`` (admin requests with the right token),
``admin_failed`` (admin requests with a wrong token; never applied to the right one:
``nccl_course.server.admin_access``) and ``resend`` (mailing a confirmation link again). A
refusal is ``RateLimited`` (429 with ``Retry-After``), logged as a count per minute
(``nccl_course.server.refusal_log``), not one line each. The client's address is ``request.client.host``, or
the ``X-Forwarded-For`` address its proxy names when that proxy is one of
``Settings.trusted_proxies``.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import Storage
from limits.strategies import FixedWindowRateLimiter
from sqlalchemy import case, delete, select
from sqlalchemy.exc import SQLAlchemyError

from nccl_course.exam.errors import RateLimited
from nccl_course.server.refusal_log import RefusalLog
from nccl_course.server.settings import DEFAULT_RATE_LIMITS, OFF
from nccl_course.store.db import Database
from nccl_course.store.models import RateLimitCounter

log = logging.getLogger("nccl_course.server.ratelimit")

# What each group counts, for the refusal's sentence.
WHAT = {
    "register": "registrations",
    "verify": "verifications",
    "start": "attempts started",
    "admin": "admin requests",  # with the right token
    "admin_failed": "admin requests with a wrong token",
    "resend": "confirmation mails sent again",
}
# Expired windows are deleted at most this often per process.
SWEEP_EVERY_S = 60.0


def compile_rules(rules: dict[str, str]) -> dict[str, list[RateLimitItem]]:
    """Each group's rule parsed by ``limits``; a group set to "off" has no limit. ValueError
    for an unknown group or a rule ``limits`` cannot read."""
    compiled = {}
    for group, rule in rules.items():
        if group not in DEFAULT_RATE_LIMITS:
            raise ValueError(
                f"rate limits: unknown group {group!r} (groups: {', '.join(DEFAULT_RATE_LIMITS)})"
            )
        if str(rule).strip().lower() in OFF:
            continue
        try:
            compiled[group] = parse_many(str(rule))
        except ValueError as exc:
            raise ValueError(f"rate limits for {group}: {rule!r} is not a rate ({exc})") from None
    return compiled


class SqlStorage(Storage):
    """A ``limits`` storage over the ``rate_limit_counters`` table of the course database
    (fixed windows: ``incr``, ``get``, ``get_expiry``)."""

    STORAGE_SCHEME = None

    def __init__(self, db: Database, wrap_exceptions: bool = False):
        super().__init__(wrap_exceptions=wrap_exceptions)
        self.db = db
        self._last_sweep = 0.0

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def _insert(self):
        if self.db.url.startswith("postgresql"):
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        return insert

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        table = RateLimitCounter.__table__
        insert = self._insert()
        stmt = insert(table).values(key=key, count=amount, expires_at=now + expiry)
        expired = table.c.expires_at <= now
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "count": case((expired, amount), else_=table.c.count + amount),
                "expires_at": case((expired, now + expiry), else_=table.c.expires_at),
            },
        ).returning(table.c.count)
        with self.db.write() as session:
            count = session.execute(stmt).scalar_one()
            if now - self._last_sweep > SWEEP_EVERY_S:
                self._last_sweep = now
                session.execute(delete(table).where(table.c.expires_at <= now))
        return count

    def _row(self, key: str) -> tuple[int, float] | None:
        with self.db.read() as session:
            row = session.execute(
                select(RateLimitCounter.count, RateLimitCounter.expires_at).where(
                    RateLimitCounter.key == key
                )
            ).first()
        if row is None or row.expires_at <= time.time():
            return None
        return row.count, row.expires_at

    def get(self, key: str) -> int:
        row = self._row(key)
        return 0 if row is None else row[0]

    def get_expiry(self, key: str) -> float:
        row = self._row(key)
        return time.time() if row is None else row[1]

    def check(self) -> bool:
        try:
            with self.db.read() as session:
                session.execute(select(1))
            return True
        except SQLAlchemyError:
            return False

    def reset(self) -> int | None:
        with self.db.write() as session:
            return session.execute(delete(RateLimitCounter)).rowcount

    def clear(self, key: str) -> None:
        with self.db.write() as session:
            session.execute(delete(RateLimitCounter).where(RateLimitCounter.key == key))


class RateLimiter:
    """The server's limits: ``hit(group, client)`` counts a request and raises
    ``RateLimited`` past any of the group's limits; ``check`` only looks. A disabled limiter
    (or a group without limits) lets everything through."""

    def __init__(self, db: Database, rules: dict[str, str], *, enabled: bool = True):
        self.enabled = enabled
        self.rules = compile_rules(rules) if enabled else {}
        self.storage = SqlStorage(db)
        self.strategy = FixedWindowRateLimiter(self.storage)
        # Refusals in the log: one line per minute and kind, with counts per address.
        self.refusals = RefusalLog(log)

    def hit(self, group: str, client: str) -> None:
        for item in self.rules.get(group, ()):
            if not self.strategy.hit(item, group, client):
                raise self._refusal(group, item, client)

    def check(self, group: str, client: str) -> None:
        for item in self.rules.get(group, ()):
            if not self.strategy.test(item, group, client):
                raise self._refusal(group, item, client)

    def _refusal(self, group: str, item: RateLimitItem, client: str) -> RateLimited:
        reset = self.strategy.get_window_stats(item, group, client).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        self.refusals.record(f"{WHAT.get(group, group)} over the limit of {item}", client)
        return RateLimited(
            "rate_limited",
            f"too many {WHAT.get(group, 'requests')} from this address (at most {item}); "
            f"try again in {wait} s",
            retry_after=wait,
        )


def client_address(request, trusted_proxies: tuple[str, ...] = ()) -> str:
    """The client's address: ``request.client.host``, unless that is a trusted proxy; then the
    last address in ``X-Forwarded-For`` that is not itself a trusted proxy."""
    host = request.client.host if request.client else "unknown"
    if not trusted_proxies or not _is_trusted(host, trusted_proxies):
        return host
    forwarded = request.headers.get("x-forwarded-for", "")
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted_proxies):
            return hop[:100]
    return hops[0][:100] if hops else host


def _is_trusted(address: str, trusted: tuple[str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address in trusted
    for entry in trusted:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
