"""Database engine, sessions and schema migrations for the course server.

SQLite (the embedded default) runs in WAL mode with ``synchronous=FULL``: a commit is on disk
before the server acknowledges an answer, so neither a killed server nor a power cut loses an
acknowledged answer. Write transactions on SQLite start with ``BEGIN IMMEDIATE`` so that two
writers queue on the database lock (``busy_timeout``) instead of failing with "database is
locked" when a read transaction tries to upgrade. PostgreSQL is selected by a
``postgresql://`` URL (driver psycopg 3).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """Accept the common spellings of a PostgreSQL URL and use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


def _make_engine(url: str, *, immediate: bool = False) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=8,
            max_overflow=24,
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):
            # Take BEGIN away from the sqlite3 module so we decide when and how it happens.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


class Database:
    """Two session factories over one database: ``read()`` and ``write()``.

    On PostgreSQL both use the same engine. On SQLite writers get their own engine whose
    transactions begin IMMEDIATE (they take the write lock first and wait for it), and
    readers use plain deferred transactions, which never block in WAL mode.
    """

    def __init__(self, url: str):
        self.url = normalise_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self.engine = _make_engine(self.url)
        self.write_engine = (
            _make_engine(self.url, immediate=True) if self.is_sqlite else self.engine
        )
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        # SQLite has one writer at a time. Writers of this process queue on a lock instead
        # of polling the file lock (busy_timeout sleeps and retries, which under load turns
        # into multi-second tail latencies); other processes still meet busy_timeout.
        self._write_lock = threading.Lock() if self.is_sqlite else None
        self._write = sessionmaker(self.write_engine, expire_on_commit=False)

    @contextmanager
    def read(self) -> Iterator[Session]:
        # Closing the session ends its transaction; loaded objects stay readable (detached).
        with self._read() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session whose work is committed when the block ends without an exception."""
        lock = self._write_lock or contextlib.nullcontext()
        with lock, self._write() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def upgrade(self, revision: str = "head") -> None:
        upgrade(self.write_engine, revision)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.write_engine is not self.engine:
            self.write_engine.dispose()


def alembic_config(engine: Engine | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (default: the newest). Existing rows are kept."""
    from alembic import command

    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def table_names(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())
