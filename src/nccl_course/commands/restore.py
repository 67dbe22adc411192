"""``nccl-course restore``: a backup archive into a new data folder (and database)."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="restore a backup archive into a new data folder (and a new PostgreSQL database)",
        description=(
            "Check a backup made by 'nccl-course backup' (its manifest and the SHA-256 of "
            "every member) and restore it into a new data folder: the issuer keys and "
            "history, the admin token and, for SQLite, the database. A PostgreSQL backup is "
            "restored with pg_restore into the empty database named by --database-url. "
            "Nothing is written if a check fails. Then start the server on the folder with "
            "the same --public-url: it is the same issuer with the same keys, and the "
            "credentials it issued verify."
        ),
    )
    parser.add_argument("archive", type=Path, metavar="ARCHIVE", help="the .tar.gz to restore")
    parser.add_argument(
        "--data-dir",
        type=Path,
        required=True,
        help="the new data folder (created; must be empty unless --force)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="PostgreSQL backups: the new, empty database to restore into, e.g. "
        "postgresql://user@host/db (default: $DATABASE_URL); SQLite backups take none",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="restore into a folder (or database) that is not empty, replacing its database, "
        "admin token and certs/ (the keys there are lost)",
    )
    parser.add_argument(
        "--pg-restore",
        default=None,
        metavar="PROGRAM",
        help="the pg_restore program (default: pg_restore on PATH)",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    import os
    from urllib.parse import urlsplit

    from nccl_course.store.backup import BackupError
    from nccl_course.store.restore import restore_backup

    try:
        report = restore_backup(
            args.archive,
            args.data_dir,
            args.database_url or os.environ.get("DATABASE_URL") or None,
            force=args.force,
            pg_restore=args.pg_restore,
        )
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    manifest = report.manifest
    print(
        f"restored the backup of {manifest['created']} (nccl-course "
        f"{manifest['versions']['nccl_course']}, schema revision "
        f"{manifest['database']['schema_revision']}): every member matches its SHA-256"
    )
    print(f"  data folder: {report.data_dir} (folders 0700, files 0600)")
    print(f"  database:    {report.database}")
    for issuer in report.issuers:
        mark = " (current)" if issuer["current"] else ""
        print(f"  issuer:      {issuer['issuer_id']}{mark}, {len(issuer['keys'])} key(s)")
    current = report.current_issuer
    if current and current.get("verify_url"):
        parts = urlsplit(current["verify_url"])
        command = f"nccl-course serve --data-dir {report.data_dir} --public-url "
        command += f"{parts.scheme}://{parts.netloc}"
        if manifest["database"]["kind"] == "postgresql":
            command += " --database-url URL"
        print(f"start it as the same issuer with: {command}")
    return 0
