"""The issuer's status-list index registry, kept in the course database.

Every worker process and every host on one database shares it (table ``status_allocations``,
revision 0003), so a revocation made through one server is in the status list every other
server publishes, and no two credentials get the same index: an index is drawn at random and
inserted; the unique (issuer, list, index) refuses a taken one, and the draw is repeated.

The issuer (``nccl_course.certs.Issuer``) only sees the ``nccl_course.certs.registry``
interface. A write made while ``bound(session)`` is active happens in that session (the
caller's transaction: an issued credential and its index are committed together, and on
SQLite a second writer connection would wait on the first); otherwise each call is its own
transaction.

A ``registry.sqlite`` left in an issuer's folder by an earlier version is imported on the
first start (``import_file``) and renamed ``registry.sqlite.imported``.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nccl_course.certs.registry import (
    MAX_DRAWS,
    DuplicateCredential,
    SqliteIndexRegistry,
    draw,
    now,
)
from nccl_course.store.db import Database
from nccl_course.store.models import StatusAllocation

log = logging.getLogger("nccl_course.exam")
IMPORTED_SUFFIX = ".imported"

_bound: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "status_registry_session", default=None
)


@contextlib.contextmanager
def bound(session: Session | None) -> Iterator[None]:
    """Registry work inside this block runs in ``session`` (None: each call on its own)."""
    token = _bound.set(session)
    try:
        yield
    finally:
        _bound.reset(token)


class DatabaseIndexRegistry:
    """``nccl_course.certs.registry.IndexRegistry`` over the course database, for one issuer
    (its DID)."""

    def __init__(self, db: Database, issuer: str):
        self.db = db
        self.issuer = issuer

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Session]:
        session = _bound.get()
        if session is not None:
            yield session
        else:
            with self.db.write() as session:
                yield session

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Session]:
        session = _bound.get()
        if session is not None:
            yield session
        else:
            with self.db.read() as session:
                yield session

    def allocate(self, credential_id: str, list_size: int, fill_limit: int) -> tuple[int, int]:
        for _ in range(MAX_DRAWS):
            try:
                with self._writing() as session, session.begin_nested():
                    count = session.scalar(
                        select(func.count())
                        .select_from(StatusAllocation)
                        .where(StatusAllocation.issuer == self.issuer)
                    )
                    list_number, index = 1 + count // fill_limit, draw(list_size)
                    session.add(
                        StatusAllocation(
                            issuer=self.issuer,
                            list_number=list_number,
                            list_index=index,
                            credential_id=credential_id,
                            issued_at=now(),
                        )
                    )
                    session.flush()
                return list_number, index
            except IntegrityError:
                if self._find(credential_id) is not None:
                    raise DuplicateCredential(
                        f"credential id {credential_id} was issued before"
                    ) from None
                # the index was taken (by another process or host): draw again
        raise RuntimeError("could not draw a free status list index")

    def _find(self, credential_id: str) -> StatusAllocation | None:
        with self._reading() as session:
            return session.scalar(
                select(StatusAllocation).where(StatusAllocation.credential_id == credential_id)
            )

    def release(self, credential_id: str) -> None:
        with self._writing() as session:
            session.execute(
                delete(StatusAllocation).where(
                    StatusAllocation.issuer == self.issuer,
                    StatusAllocation.credential_id == credential_id,
                )
            )

    def revoke(self, credential_id: str) -> None:
        with self._writing() as session:
            row = session.scalar(
                select(StatusAllocation.id).where(
                    StatusAllocation.issuer == self.issuer,
                    StatusAllocation.credential_id == credential_id,
                )
            )
            if row is None:
                raise LookupError(f"credential {credential_id} was not issued by this issuer")
            session.execute(
                update(StatusAllocation)
                .where(StatusAllocation.id == row, StatusAllocation.revoked_at.is_(None))
                .values(revoked_at=now())
            )

    def is_revoked(self, credential_id: str) -> bool:
        with self._reading() as session:
            revoked = session.scalar(
                select(StatusAllocation.revoked_at).where(
                    StatusAllocation.issuer == self.issuer,
                    StatusAllocation.credential_id == credential_id,
                )
            )
        return revoked is not None

    def lists(self) -> list[int]:
        with self._reading() as session:
            rows = session.scalars(
                select(StatusAllocation.list_number)
                .where(StatusAllocation.issuer == self.issuer)
                .distinct()
                .order_by(StatusAllocation.list_number)
            ).all()
        return list(rows)

    def revoked(self, list_number: int) -> list[tuple[int, str]]:
        with self._reading() as session:
            rows = session.execute(
                select(StatusAllocation.list_index, StatusAllocation.revoked_at)
                .where(
                    StatusAllocation.issuer == self.issuer,
                    StatusAllocation.list_number == list_number,
                    StatusAllocation.revoked_at.is_not(None),
                )
                .order_by(StatusAllocation.list_index)
            ).all()
        return [(r[0], r[1]) for r in rows]

    def count(self) -> int:
        with self._reading() as session:
            return session.scalar(
                select(func.count())
                .select_from(StatusAllocation)
                .where(StatusAllocation.issuer == self.issuer)
            )

    def import_file(self, path: Path) -> int:
        """Copy the allocations of a ``registry.sqlite`` into the database (those not there
        yet; several workers may do it at once), then rename the file ``*.imported``.
        Returns how many rows were added."""
        path = Path(path)
        if not path.exists():
            return 0
        rows = SqliteIndexRegistry(path).export()
        added = 0
        for attempt in range(5):
            try:
                with self.db.write() as session:
                    present = set(
                        session.scalars(
                            select(StatusAllocation.credential_id).where(
                                StatusAllocation.issuer == self.issuer
                            )
                        )
                    )
                    fresh = [r for r in rows if r.credential_id not in present]
                    session.add_all(
                        StatusAllocation(
                            issuer=self.issuer,
                            list_number=r.list_number,
                            list_index=r.index,
                            credential_id=r.credential_id,
                            issued_at=r.issued_at,
                            revoked_at=r.revoked_at,
                        )
                        for r in fresh
                    )
                added = len(fresh)
                break
            except IntegrityError:
                if attempt == 4:
                    raise RuntimeError(
                        f"cannot import {path}: its indices clash with ones in the database"
                    ) from None
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{path}{suffix}", f"{path}{suffix}{IMPORTED_SUFFIX}")
        log.warning(
            "status-list registry %s imported into the database (%d new rows); the file is "
            "kept as %s%s",
            path,
            added,
            path.name,
            IMPORTED_SUFFIX,
        )
        return added
