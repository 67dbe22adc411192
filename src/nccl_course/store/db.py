"""Database engine, sessions and schema migrations for the course server.

SQLite (the embedded default) runs in WAL mode with ``synchronous=FULL``: a commit is on disk
before the server acknowledges an answer, so neither a killed server nor a power cut loses an
acknowledged answer. Write transactions on SQLite start with ``BEGIN IMMEDIATE`` so that two
writers queue on the database lock (``busy_timeout``) instead of failing with "database is
locked" when a read transaction tries to upgrade. PostgreSQL is selected by a
``postgresql://`` URL (driver psycopg 3).

A SQLite database is private: its file is created with mode 0600 before SQLite opens it
(SQLite gives the ``-wal`` and ``-shm`` files the mode of the database file), connections are
opened under a umask of 077, and an existing database, WAL or shared-memory file that other
users can read is made private (logged) or, if that is not allowed, refused
(``nccl_course.store.private_files``).

PostgreSQL text cannot hold a NUL character (U+0000) and fails the statement, which used to
surface as a server error for any request whose text reached a query (an attempt id in the
path, a credential id in a body). On both databases a statement with such a string parameter
is refused before it runs: ``Invalid`` (code ``nul_character``), a 422 like any malformed
request, and the transaction stays usable.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, inspect, make_url
from sqlalchemy.orm import Session, sessionmaker

from nccl_course.exam.errors import Invalid
from nccl_course.store.private_files import create_private_file, private_umask, secure_paths

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


# The files of a SQLite database: the database itself and what SQLite keeps beside it.
SQLITE_FILE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL; None for an in-memory database or another database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def make_sqlite_private(path: Path) -> None:
    """Create the database file with mode 0600 if it is missing, and make the database and
    its WAL/SHM/journal files private (``PrivateFileError`` if one cannot be)."""
    path = Path(path)
    if path.parent.is_dir():
        create_private_file(path)
    secure_paths(
        [path.with_name(path.name + suffix) for suffix in SQLITE_FILE_SUFFIXES],
        what=f"the database {path}",
    )


NUL_CODE = "nul_character"
NUL_MESSAGE = "text with a NUL character (U+0000) cannot be stored or looked up"


def _refuse_nul(_conn, _cursor, _statement, parameters, _context, executemany) -> None:
    """Refuse a statement with a string parameter holding U+0000 (before it runs)."""
    # "insertmanyvalues" batches (a bulk INSERT .. RETURNING) come with executemany set but
    # one flat row of parameters (a tuple, or a dict on PostgreSQL).
    many = (
        executemany
        and isinstance(parameters, (list, tuple))
        and parameters
        and isinstance(parameters[0], (dict, list, tuple))
    )
    for row in parameters if many else (parameters,):
        values = row.values() if isinstance(row, dict) else (row or ())
        for value in values:
            if isinstance(value, str) and "\x00" in value:
                raise Invalid(NUL_CODE, NUL_MESSAGE)


def _make_engine(url: str, *, immediate: bool = False) -> Engine:
    engine = _make_bare_engine(url, immediate=immediate)
    event.listen(engine, "before_cursor_execute", _refuse_nul)
    return engine


def _make_bare_engine(url: str, *, immediate: bool = False) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=8,
            max_overflow=24,
        )

        @event.listens_for(engine, "do_connect")
        def _private_connect(dialect, _record, cargs, cparams):
            # Whatever SQLite creates while a connection opens and enters WAL mode (the
            # database, its -wal and -shm files) is for this user only.
            with private_umask():
                dbapi_connection = dialect.connect(*cargs, **cparams)
                _configure_sqlite(dbapi_connection)
            return dbapi_connection

        @event.listens_for(engine, "begin")
        def _on_begin(conn):
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _configure_sqlite(dbapi_connection) -> None:
    # Take BEGIN away from the sqlite3 module so we decide when and how it happens.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


class Database:
    """Two session factories over one database: ``read()`` and ``write()``.

    On PostgreSQL both use the same engine. On SQLite writers get their own engine whose
    transactions begin IMMEDIATE (they take the write lock first and wait for it), and
    readers use plain deferred transactions, which never block in WAL mode.
    """

    def __init__(self, url: str):
        self.url = normalise_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self.path = sqlite_path(self.url) if self.is_sqlite else None
        if self.path is not None:
            make_sqlite_private(self.path)
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
    def read_cursor(self) -> Iterator:
        """A driver (DBAPI) cursor in a read transaction, ended when the block ends: for the
        few fixed look-ups of a hot path (a start's standing, ``nccl_course.store.queries``),
        without a session's cost per transaction. Statements must not write."""
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                if self.is_sqlite:  # one snapshot for every statement of the block
                    cursor.execute("BEGIN")
                yield cursor
            finally:
                cursor.close()
                connection.rollback()
        finally:
            connection.close()  # back to the pool

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

    @contextmanager
    def write_cursor(self) -> Iterator:
        """A driver (DBAPI) cursor in a write transaction, committed when the block ends
        without an exception, rolled back otherwise: for hot paths that run a few fixed
        statements (``nccl_course.store.answers``), without SQLAlchemy's cost per statement.
        SQLite: ``BEGIN IMMEDIATE`` under this process's writer lock, as ``write()``."""
        lock = self._write_lock or contextlib.nullcontext()
        with lock:
            connection = self.write_engine.raw_connection()
            try:
                cursor = connection.cursor()
                try:
                    if self.is_sqlite:
                        cursor.execute("BEGIN IMMEDIATE")
                    yield cursor
                    connection.commit()
                except BaseException:
                    connection.rollback()
                    raise
                finally:
                    cursor.close()
            finally:
                connection.close()  # back to the pool

    def upgrade(self, revision: str = "head") -> None:
        upgrade(self.write_engine, revision)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.write_engine is not self.engine:
            self.write_engine.dispose()


# pg_advisory_xact_lock key held while migrating (any constant unique to this program).
MIGRATION_LOCK_KEY = 0x6E63636C


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
        if connection.dialect.name == "postgresql":
            # Several hosts (or worker processes) starting at once: one migrates, the others
            # wait here and then find the schema at head. Released at commit.
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
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
