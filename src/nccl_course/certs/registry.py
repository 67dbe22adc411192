"""Status-list index registries: which status-list index each issued credential holds, and
which are revoked.

The issuer (``nccl_course.certs.issuer.Issuer``) takes any object with the methods of
``IndexRegistry``; this package stays independent of where the registry is kept:

- ``SqliteIndexRegistry``: a SQLite file in the issuer's folder (``registry.sqlite``), for the
  command line and for an issuer used on its own;
- the exam server supplies one backed by its course database
  (``nccl_course.issuing.status_registry``), so that several worker processes and several hosts
  on one database share it.

Indices are drawn at random (Bitstring Status List privacy advice); the registry's unique
constraint on (list, index) keeps two processes from taking the same one, and a draw that
meets a taken index draws again.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

from nccl_course.certs.credential import xsd_datetime

# Draws before giving up: with lists at most half full, 1000 collisions in a row do not happen.
MAX_DRAWS = 1000


class DuplicateCredential(ValueError):
    """The credential id already holds an index."""


@dataclass(frozen=True)
class Allocation:
    """One row of a registry (``issued_at``/``revoked_at``: XML Schema dateTime strings)."""

    list_number: int
    index: int
    credential_id: str
    issued_at: str
    revoked_at: str | None = None


class IndexRegistry(Protocol):
    def allocate(self, credential_id: str, list_size: int, fill_limit: int) -> tuple[int, int]:
        """A fresh random index (list ``1 + allocated // fill_limit``) for ``credential_id``;
        raises ``DuplicateCredential`` if that id holds one already."""

    def release(self, credential_id: str) -> None:
        """Give the credential's index back (issuing failed after the draw)."""

    def revoke(self, credential_id: str) -> None:
        """Mark the credential's index revoked (idempotent); ``LookupError`` if unknown."""

    def is_revoked(self, credential_id: str) -> bool: ...

    def lists(self) -> list[int]:
        """The list numbers holding at least one allocation, ascending."""

    def revoked(self, list_number: int) -> list[tuple[int, str]]:
        """(index, revoked_at) of the revoked entries of one list, by index."""


def now() -> str:
    return xsd_datetime(datetime.now(timezone.utc))


def draw(list_size: int) -> int:
    return secrets.randbelow(list_size)


class SqliteIndexRegistry:
    """The registry in a SQLite file (mode 0600, WAL). ``BEGIN IMMEDIATE`` and the primary
    key on (list, idx) keep processes sharing the file from taking the same index."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def connect(self) -> sqlite3.Connection:
        # Created 0600 before SQLite opens it: SQLite gives -wal and -shm the same mode.
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS allocation (list INTEGER NOT NULL, idx INTEGER NOT NULL,"
            " credential_id TEXT NOT NULL UNIQUE, issued_at TEXT NOT NULL,"
            " PRIMARY KEY (list, idx))"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS revocation (list INTEGER NOT NULL, idx INTEGER NOT NULL,"
            " revoked_at TEXT NOT NULL, PRIMARY KEY (list, idx))"
        )
        os.chmod(self.path, 0o600)
        return conn

    @contextlib.contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        conn = self.connect()
        try:
            yield conn
        finally:
            conn.close()

    def allocate(self, credential_id: str, list_size: int, fill_limit: int) -> tuple[int, int]:
        with self._conn() as conn:
            for _ in range(MAX_DRAWS):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    count = conn.execute("SELECT COUNT(*) FROM allocation").fetchone()[0]
                    list_number = 1 + count // fill_limit
                    index = draw(list_size)
                    conn.execute(
                        "INSERT INTO allocation VALUES (?, ?, ?, ?)",
                        (list_number, index, credential_id, now()),
                    )
                    conn.execute("COMMIT")
                    return list_number, index
                except sqlite3.IntegrityError as exc:
                    conn.execute("ROLLBACK")
                    if "credential_id" in str(exc):
                        raise DuplicateCredential(
                            f"credential id {credential_id} was issued before"
                        ) from None
            raise RuntimeError("could not draw a free status list index")

    def release(self, credential_id: str) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM allocation WHERE credential_id = ?", (credential_id,))

    def revoke(self, credential_id: str) -> None:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT list, idx FROM allocation WHERE credential_id = ?", (credential_id,)
            ).fetchone()
            if row is None:
                raise LookupError(f"credential {credential_id} was not issued by this issuer")
            conn.execute(
                "INSERT OR IGNORE INTO revocation VALUES (?, ?, ?)", (row[0], row[1], now())
            )

    def is_revoked(self, credential_id: str) -> bool:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT 1 FROM allocation a JOIN revocation r ON a.list = r.list AND a.idx = r.idx"
                " WHERE a.credential_id = ?",
                (credential_id,),
            ).fetchone()
        return row is not None

    def lists(self) -> list[int]:
        with self._conn() as conn:
            rows = conn.execute("SELECT DISTINCT list FROM allocation ORDER BY list").fetchall()
        return [r[0] for r in rows]

    def revoked(self, list_number: int) -> list[tuple[int, str]]:
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT idx, revoked_at FROM revocation WHERE list = ? ORDER BY idx",
                (list_number,),
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def count(self) -> int:
        with self._conn() as conn:
            return conn.execute("SELECT COUNT(*) FROM allocation").fetchone()[0]

    def export(self) -> list[Allocation]:
        """Every allocation with its revocation time, for moving the registry elsewhere."""
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT a.list, a.idx, a.credential_id, a.issued_at, r.revoked_at"
                " FROM allocation a LEFT JOIN revocation r ON a.list = r.list AND a.idx = r.idx"
                " ORDER BY a.list, a.idx"
            ).fetchall()
        return [Allocation(*row) for row in rows]
