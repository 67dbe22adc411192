"""Restore a backup (``nccl_course.store.backup``) into a new data folder.

``restore_backup`` reads the whole archive into a private staging folder in the target and
checks it before anything is put in place: the manifest's format, that every member is
a plain file or a relative link that stays inside the data folder, that the members are exactly
those the manifest lists, each with its SHA-256 and size, and that the database's schema
revision is one this version knows. Only then does it restore a PostgreSQL dump with
``pg_restore`` into the database named by ``database_url`` (empty, unless ``force``), move the
files into the data folder (0700 folders, 0600 files) and report the issuers it holds.

A server started on the restored folder (with the same ``--public-url``) is the same issuer
with the same keys; it migrates an older schema at start as usual.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nccl_course.certs.history import issuer_history
from nccl_course.store.backup import (
    DATA_PREFIX,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    PG_MEMBER,
    SQLITE_MEMBER,
    BackupError,
    find_tool,
    is_sqlite,
    libpq_url,
    pg_env,
    redacted,
    sqlite_revision,
)
from nccl_course.store.data_dir import ADMIN_TOKEN_FILE, DATABASE_FILE, ISSUERS_DIR
from nccl_course.store.private_files import make_private_dir, private_umask, secure_tree

MAX_MANIFEST_BYTES = 16 << 20  # a manifest lists files; anything bigger is not one of ours
# What --force replaces in a folder that is not empty (everything a backup restores).
REPLACED = (DATABASE_FILE, ADMIN_TOKEN_FILE, ISSUERS_DIR)
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class RestoreReport:
    data_dir: Path
    manifest: dict
    database: str  # where the database went: the SQLite file, or the PostgreSQL URL (redacted)
    issuers: list[dict]

    @property
    def current_issuer(self) -> dict | None:
        return next((i for i in self.issuers if i["current"]), None)


def _safe_name(name: str) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or name != path.as_posix():
        raise BackupError(f"the archive holds a member named {name!r}: refusing to restore it")
    return name


def _link_stays_inside(name: str, link: str) -> None:
    """A link must be relative and point inside the archive's ``data/`` tree."""
    target = os.path.normpath(os.path.join(os.path.dirname(name), link))
    if os.path.isabs(link) or not target.startswith(DATA_PREFIX):
        raise BackupError(f"the archive's link {name} -> {link} leaves the data folder")


def _open(archive: Path) -> tarfile.TarFile:
    if not archive.exists():
        raise BackupError(f"{archive} does not exist")
    if not archive.is_file():
        raise BackupError(f"{archive} is not a file")
    try:
        return tarfile.open(archive, mode="r:gz")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise BackupError(f"{archive} is not a readable backup (a tar.gz): {exc}") from None


def _unpack(archive: Path, staging: Path) -> tuple[dict, dict[str, dict]]:
    """Every member into ``staging`` (files 0600), hashing as it goes: (manifest, found)."""
    manifest = None
    found: dict[str, dict] = {}
    try:
        with _open(archive) as tar:
            for member in tar:
                name = _safe_name(member.name)
                if name in found or (name == MANIFEST and manifest is not None):
                    raise BackupError(f"the archive holds {name} twice")
                if member.issym():
                    _link_stays_inside(name, member.linkname)
                    found[name] = {"link": member.linkname}
                    continue
                if member.isdir():
                    continue
                if not member.isfile():
                    raise BackupError(f"the archive's member {name} is not a file or a link")
                source = tar.extractfile(member)
                if name == MANIFEST:
                    manifest = _read_manifest(source.read(MAX_MANIFEST_BYTES + 1))
                    continue
                found[name] = _copy_out(source, staging / name)
    except BackupError:
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise BackupError(f"{archive} is damaged (truncated or corrupt): {exc}") from None
    if manifest is None:
        raise BackupError(f"{archive} has no {MANIFEST}: it is not an nccl-course backup")
    return manifest, found


def _read_manifest(data: bytes) -> dict:
    if len(data) > MAX_MANIFEST_BYTES:
        raise BackupError(f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise BackupError(f"{MANIFEST} is not JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{MANIFEST} is not the manifest of an nccl-course backup")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BackupError(
            f"backup format version {manifest.get('format_version')!r}: this nccl-course "
            f"reads version {FORMAT_VERSION}; restore with the version that made it"
        )
    if not isinstance(manifest.get("members"), dict) or not isinstance(
        manifest.get("database"), dict
    ):
        raise BackupError(f"{MANIFEST} lacks its members or its database")
    return manifest


def _copy_out(source, target: Path) -> dict:
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
    return {"sha256": digest.hexdigest(), "size": size}


def _check_members(manifest: dict, found: dict[str, dict]) -> None:
    listed = manifest["members"]
    missing = sorted(set(listed) - set(found))
    extra = sorted(set(found) - set(listed))
    if missing:
        raise BackupError(f"the archive lacks members its manifest lists: {', '.join(missing)}")
    if extra:
        raise BackupError(f"the archive holds members its manifest does not list: {extra}")
    for name, entry in listed.items():
        if entry != found[name]:
            what = "link" if "link" in entry else "SHA-256 or size"
            raise BackupError(
                f"{name}: its {what} differs from the manifest's: the archive is corrupt or "
                "was changed"
            )


def _check_revision(revision: str | None) -> None:
    from alembic.script import ScriptDirectory

    from nccl_course.store.db import alembic_config

    known = {r.revision for r in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if revision is not None and revision not in known:
        raise BackupError(
            f"the backup's database is at schema revision {revision}, which this version of "
            "nccl-course does not know: restore with the version that made it (or newer)"
        )


def _check_sqlite(path: Path, manifest: dict) -> None:
    connection = sqlite3.connect(path)
    try:
        verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"the backup's database is not a SQLite database: {exc}") from None
    finally:
        connection.close()
    if verdict != "ok":
        raise BackupError(f"the backup's database fails SQLite's integrity check: {verdict}")
    if sqlite_revision(path) != manifest["database"].get("schema_revision"):
        raise BackupError("the backup's database is not at the schema revision its manifest says")


def _restore_postgres(dump: Path, database_url: str, force: bool, pg_restore: str | None):
    from sqlalchemy import create_engine

    from nccl_course.store.db import current_revision, normalise_url, table_names

    program = find_tool("pg_restore", pg_restore)
    engine = create_engine(normalise_url(database_url))
    try:
        tables = table_names(engine)
    except Exception as exc:
        raise BackupError(f"cannot reach the database {redacted(database_url)}: {exc}") from None
    finally:
        engine.dispose()
    if tables and not force:
        raise BackupError(
            f"the database {redacted(database_url)} is not empty ({len(tables)} tables): "
            "restore into a new database (createdb), or --force to replace its tables"
        )
    url, password = libpq_url(database_url)
    command = [program, "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction"]
    if tables:
        command += ["--clean", "--if-exists"]
    command += [f"--dbname={url}", str(dump)]
    result = subprocess.run(command, capture_output=True, text=True, env=pg_env(password))
    if result.returncode != 0:
        raise BackupError(f"pg_restore failed: {result.stderr.strip() or result.returncode}")
    engine = create_engine(normalise_url(database_url))
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


def _prepare_target(data_dir: Path, force: bool) -> None:
    if data_dir.exists() and not data_dir.is_dir():
        raise BackupError(f"{data_dir} is not a folder")
    if data_dir.is_dir() and any(data_dir.iterdir()):
        if not force:
            raise BackupError(
                f"{data_dir} is not empty: restore into a new folder, or --force to replace "
                f"its {', '.join(REPLACED)}"
            )


def _move_into_place(staging_data: Path, data_dir: Path) -> None:
    make_private_dir(data_dir)
    for name in (*REPLACED, *(DATABASE_FILE + s for s in SQLITE_SIDE_FILES)):
        path = data_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    if staging_data.is_dir():
        for entry in sorted(staging_data.iterdir()):
            os.replace(entry, data_dir / entry.name)
    secure_tree(data_dir)


def restore_backup(
    archive: Path,
    data_dir: Path,
    database_url: str | None = None,
    *,
    force: bool = False,
    pg_restore: str | None = None,
) -> RestoreReport:
    """Check ``archive`` and restore it into the new data folder ``data_dir`` (and, for a
    PostgreSQL backup, into the empty database ``database_url``)."""
    archive, data_dir = Path(archive), Path(data_dir).resolve()
    _prepare_target(data_dir, force)
    created = not data_dir.exists()
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    make_private_dir(data_dir)
    # Staging inside the target: the server's user may write there and nowhere beside it
    # (systemd's StateDirectory), and the final moves are renames on one file system.
    staging = Path(tempfile.mkdtemp(prefix=".nccl-course-restore-", dir=data_dir))
    try:
        with private_umask():  # folders made while unpacking: 0700
            manifest, found = _unpack(archive, staging)
        _check_members(manifest, found)
        for name, entry in manifest["members"].items():
            if "link" in entry:
                os.symlink(entry["link"], staging / name)
        database = manifest["database"]
        _check_revision(database.get("schema_revision"))
        if database.get("kind") == "sqlite" and database.get("member") == SQLITE_MEMBER:
            if database_url and not is_sqlite(database_url):
                raise BackupError(
                    "this backup holds a SQLite database, which goes back into the data "
                    "folder: leave out --database-url (and DATABASE_URL)"
                )
            _check_sqlite(staging / SQLITE_MEMBER, manifest)
            where = str(data_dir / DATABASE_FILE)
        elif database.get("kind") == "postgresql" and database.get("member") == PG_MEMBER:
            if not database_url or is_sqlite(database_url):
                raise BackupError(
                    "this backup holds a PostgreSQL database: give --database-url "
                    "postgresql://USER@HOST/DB of a new, empty database to restore it into"
                )
            revision = _restore_postgres(staging / PG_MEMBER, database_url, force, pg_restore)
            if revision != database.get("schema_revision"):
                raise BackupError("the restored database is not at the manifest's revision")
            where = redacted(database_url)
        else:
            raise BackupError(f"{MANIFEST} names an unknown database {database!r}")
        _move_into_place(staging / DATA_PREFIX.rstrip("/"), data_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return RestoreReport(data_dir, manifest, where, issuer_history(data_dir))
