"""Backups of a course server: one private archive that keeps its credentials verifying.

``create_backup`` writes one ``tar.gz`` (mode 0600: it holds the issuer's private keys, the
admin token and every learner's e-mail) with

- ``manifest.json`` first: the archive format, when and by which versions it was made (the
  course, Python, SQLite, ``pg_dump``), the database kind and its schema revision (Alembic), the
  issuers (public part only) and the SHA-256 and size in bytes of every other member;
- the database: SQLite as ``data/course.db``, copied with SQLite's online backup API (a
  consistent snapshot while the server keeps writing: in WAL mode the copy reads one snapshot
  and never blocks the writer); PostgreSQL as ``database.pgdump``, ``pg_dump``'s custom format
  (also one snapshot of a running database);
- ``data/admin-token`` and ``data/certs/``: every issuer folder (keys, ``issuer.json`` with the
  issuer history, the command line's ``registry.sqlite``), with the links a new public URL made
  between issuers' ``keys`` folders kept as links.

The database is copied before the keys: the keys only ever grow (``cert rotate`` adds one), so
every credential in the copied database was signed by a key in the archive. Rendered
certificates (``data/certificates/``, redrawn on demand) and lock files are left out.

``nccl_course.store.restore`` reads such an archive back into a new data folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import make_url

from nccl_course import __version__
from nccl_course.certs.history import LOCK_FILE as ISSUERS_LOCK_FILE
from nccl_course.certs.history import issuer_history
from nccl_course.certs.issuer import LOCK_FILE as ISSUER_LOCK_FILE
from nccl_course.certs.issuer import REGISTRY_FILE
from nccl_course.store.data_dir import (
    ADMIN_TOKEN_FILE,
    CERTIFICATE_DIR,
    DATABASE_FILE,
    ISSUERS_DIR,
)
from nccl_course.store.db import head_revision, normalise_url, sqlite_path, sqlite_url
from nccl_course.store.private_files import private_umask

FORMAT = "nccl-course-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
# Members under data/ go into the restored data folder as they are.
DATA_PREFIX = "data/"
SQLITE_MEMBER = DATA_PREFIX + DATABASE_FILE
PG_MEMBER = "database.pgdump"
ARCHIVE_MODE = 0o600
# Never archived: lock files hold no data; rendered certificates are redrawn on demand.
SKIPPED_NAMES = frozenset({ISSUER_LOCK_FILE, ISSUERS_LOCK_FILE})
SKIPPED_DIRS = (CERTIFICATE_DIR,)
COPY_CHUNK = 1 << 20  # bytes read at a time while hashing


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class BackupReport:
    path: Path
    manifest: dict

    @property
    def size(self) -> int:
        """Size of the archive in bytes."""
        return self.path.stat().st_size


def default_archive_name(now: datetime | None = None) -> str:
    """``nccl-course-backup-YYYYMMDDTHHMMSSZ.tar.gz`` (UTC)."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    return f"nccl-course-backup-{stamp}.tar.gz"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(COPY_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def libpq_url(database_url: str) -> tuple[str, str | None]:
    """A SQLAlchemy PostgreSQL URL as ``pg_dump``/``pg_restore`` take it (``postgresql://``,
    no driver), without its password, and the password (for ``PGPASSWORD``, so that it does
    not show in the process list)."""
    url = make_url(normalise_url(database_url))
    password = url.password
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), password


def pg_env(password: str | None) -> dict:
    env = dict(os.environ)
    if password is not None:
        env["PGPASSWORD"] = str(password)
    return env


def find_tool(name: str, given: str | None) -> str:
    """The path of a PostgreSQL client program (``given``, else found on ``PATH``)."""
    found = shutil.which(given or name)
    if found is None:
        raise BackupError(
            f"{given or name} not found: PostgreSQL backups need the PostgreSQL client "
            f"programs (pg_dump, pg_restore) of the server's major version or newer, e.g. "
            f"'apt-get install postgresql-client'; or name the program with --{name.replace('_', '-')}"
        )
    return found


def tool_version(program: str) -> str:
    result = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    return result.stdout.strip()


def is_sqlite(database_url: str) -> bool:
    return make_url(normalise_url(database_url)).get_backend_name() == "sqlite"


def redacted(database_url: str) -> str:
    """The URL without its password, for the manifest and messages."""
    return make_url(normalise_url(database_url)).render_as_string(hide_password=True)


def _sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite database (the online backup API, all pages in one
    step, so the copy is one snapshot)."""
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with private_umask():
        src = sqlite3.connect(source, timeout=30)
        try:
            dst = sqlite3.connect(target)
            try:
                src.backup(dst)
                # One self-contained file (no -wal beside it); the server turns WAL on again.
                dst.execute("PRAGMA journal_mode=DELETE")
            finally:
                dst.close()
        finally:
            src.close()
    os.chmod(target, 0o600)


def sqlite_revision(path: Path) -> str | None:
    """The Alembic revision recorded in a SQLite database file (None without one)."""
    connection = sqlite3.connect(path)
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    finally:
        connection.close()
    return row[0] if row else None


def _dump_sqlite(database_url: str, staging: Path) -> dict:
    source = sqlite_path(normalise_url(database_url))
    if source is None or not source.is_file():
        raise BackupError(
            f"no database at {source or database_url}: is this the server's data folder "
            "(--data-dir), or is its database elsewhere (--database-url)?"
        )
    target = staging / SQLITE_MEMBER
    try:
        _sqlite_copy(source, target)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy the database {source}: {exc}") from None
    return {
        "kind": "sqlite",
        "member": SQLITE_MEMBER,
        "schema_revision": sqlite_revision(target),
        "sqlite": sqlite3.sqlite_version,
    }


def _dump_postgres(database_url: str, staging: Path, pg_dump: str | None) -> dict:
    from sqlalchemy import create_engine

    from nccl_course.store.db import current_revision

    program = find_tool("pg_dump", pg_dump)
    engine = create_engine(normalise_url(database_url))
    try:
        revision = current_revision(engine)
    except Exception as exc:  # cannot connect, no such database
        raise BackupError(f"cannot read the database {redacted(database_url)}: {exc}") from None
    finally:
        engine.dispose()
    url, password = libpq_url(database_url)
    target = staging / PG_MEMBER
    command = [program, "--format=custom", f"--file={target}", f"--dbname={url}"]
    with private_umask():
        result = subprocess.run(command, capture_output=True, text=True, env=pg_env(password))
    if result.returncode != 0:
        raise BackupError(f"pg_dump failed: {result.stderr.strip() or result.returncode}")
    os.chmod(target, 0o600)
    return {
        "kind": "postgresql",
        "member": PG_MEMBER,
        "schema_revision": revision,
        "url": redacted(database_url),
        "pg_dump": tool_version(program),
    }


def _copy_data_files(data_dir: Path, staging: Path) -> None:
    """The admin token and the issuers' folders, into ``staging/data`` (links kept)."""
    out = staging / DATA_PREFIX.rstrip("/")
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = data_dir / ADMIN_TOKEN_FILE
    if token.is_file():
        shutil.copy2(token, out / ADMIN_TOKEN_FILE)
    certs = data_dir / ISSUERS_DIR
    if not certs.is_dir():
        return
    for folder, dirs, files in os.walk(certs):
        here = Path(folder)
        relative = here.relative_to(data_dir)
        (out / relative).mkdir(mode=0o700, parents=True, exist_ok=True)
        for name in [*dirs, *files]:
            path = here / name
            if name in SKIPPED_NAMES:
                continue
            if path.is_symlink():
                target = os.readlink(path)
                if os.path.isabs(target):  # made by hand: keep it inside the archive's tree
                    target = os.path.relpath(target, here)
                os.symlink(target, out / relative / name)
            elif path.is_file() and name == REGISTRY_FILE:
                _sqlite_copy(path, out / relative / name)  # a database the CLI may be writing
            elif path.is_file():
                shutil.copy2(path, out / relative / name)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]


def _members(staging: Path) -> dict[str, dict]:
    """Every file and link under ``staging``: its archive name -> SHA-256 and size, or link."""
    members: dict[str, dict] = {}
    for folder, dirs, files in os.walk(staging):
        here = Path(folder)
        for name in [*dirs, *files]:
            path = here / name
            arcname = path.relative_to(staging).as_posix()
            if path.is_symlink():
                members[arcname] = {"link": os.readlink(path)}
            elif path.is_file():
                members[arcname] = {"sha256": sha256_of(path), "size": path.stat().st_size}
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
    return dict(sorted(members.items()))


def public_issuers(data_dir: Path) -> list[dict]:
    """The issuer history (``cert issuers``) without local paths: DIDs and public keys."""
    keep = ("issuer_id", "name", "verify_url", "first_used", "last_used", "keys_from", "current")
    return [
        {
            **{k: entry[k] for k in keep},
            "keys": [{"id": k["id"], "public_key": k["public_key"]} for k in entry["keys"]],
        }
        for entry in issuer_history(data_dir)
    ]


def _write_archive(staging: Path, manifest: dict, output: Path, force: bool) -> None:
    """The tar.gz, manifest first, created with mode 0600 and moved into place whole."""
    partial = output.with_name(f".{output.name}.partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, ARCHIVE_MODE)
    os.fchmod(fd, ARCHIVE_MODE)  # whatever the umask
    now = int(datetime.now(timezone.utc).timestamp())
    try:
        with os.fdopen(fd, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
                body = json.dumps(manifest, indent=2, sort_keys=True).encode()
                tar.addfile(_info(MANIFEST, now, size=len(body)), _bytes(body))
                for arcname, entry in manifest["members"].items():
                    if "link" in entry:
                        info = _info(arcname, now, link=entry["link"])
                        tar.addfile(info)
                    else:
                        with open(staging / arcname, "rb") as handle:
                            tar.addfile(_info(arcname, now, size=entry["size"]), handle)
            raw.flush()
            os.fsync(raw.fileno())
        if output.exists() and not force:
            raise BackupError(f"{output} exists: choose another --output, or --force")
        os.replace(partial, output)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _info(name: str, mtime: int, *, size: int = 0, link: str | None = None) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
    if link is not None:
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, link, 0o777
    else:
        info.size, info.mode = size, 0o600
    return info


def _bytes(data: bytes):
    import io

    return io.BytesIO(data)


def create_backup(
    data_dir: Path,
    output: Path,
    database_url: str | None = None,
    *,
    force: bool = False,
    pg_dump: str | None = None,
) -> BackupReport:
    """Back up the server whose data folder is ``data_dir`` (and whose database is
    ``database_url``, default SQLite in the data folder) into the archive ``output`` (a file,
    or a folder to put ``default_archive_name()`` in). Safe while the server runs."""
    data_dir = Path(data_dir).resolve()
    if not data_dir.is_dir():
        raise BackupError(f"{data_dir} does not exist: give the server's data folder (--data-dir)")
    if not (data_dir / ISSUERS_DIR).is_dir():
        raise BackupError(
            f"{data_dir} holds no issuer ({ISSUERS_DIR}/): is it the server's data folder? "
            "(--data-dir; the server makes the issuer on its first start)"
        )
    output = Path(output)
    if output.is_dir():
        output = output / default_archive_name()
    output = output.resolve()
    if output.exists() and not force:
        raise BackupError(f"{output} exists: choose another --output, or --force")
    if data_dir == output.parent or data_dir in output.parents:
        raise BackupError(f"write the archive outside the data folder {data_dir}")
    output.parent.mkdir(parents=True, exist_ok=True)
    database_url = database_url or sqlite_url(data_dir / DATABASE_FILE)
    staging = Path(tempfile.mkdtemp(prefix=".nccl-course-backup-", dir=output.parent))
    try:
        if is_sqlite(database_url):
            database = _dump_sqlite(database_url, staging)
        else:
            database = _dump_postgres(database_url, staging, pg_dump)
        with private_umask():
            _copy_data_files(data_dir, staging)
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "versions": {
                "nccl_course": __version__,
                "python": platform.python_version(),
                "schema_head": head_revision(),
            },
            "data_dir": str(data_dir),
            "database": database,
            "issuers": public_issuers(data_dir),
            "members": _members(staging),
        }
        _write_archive(staging, manifest, output, force)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BackupReport(output, manifest)
