"""``nccl-course backup``: one private archive of the course server's database and keys."""

from __future__ import annotations

import sys
from pathlib import Path

from nccl_course.store.data_dir import DATA_DIR_ENV, default_data_dir


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="back up the course server (database, issuer keys and history) into one archive",
        description=(
            "Write one tar.gz with everything a course server needs to keep its credentials "
            "verifying: the database (SQLite: an online copy with SQLite's backup API; "
            "PostgreSQL: pg_dump's custom format), the issuer keys and issuer history "
            "(DATA_DIR/certs), the admin token, and a manifest (versions, schema revision, "
            "date, SHA-256 of every member). Safe while the server runs. The archive holds "
            "private keys and learners' e-mails: it is created with mode 0600; keep it as "
            "private as the data folder. Restore it with 'nccl-course restore'."
        ),
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help=f"the server's data folder (default: ${DATA_DIR_ENV}, else ./.data)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="the server's database if not SQLite in the data folder, e.g. "
        "postgresql://user@host/db (default: $DATABASE_URL, as for serve)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("."),
        help="the archive to write, or a folder for nccl-course-backup-DATE.tar.gz in it "
        "(default: the current folder); keep it outside the data folder",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing archive")
    parser.add_argument(
        "--pg-dump",
        default=None,
        metavar="PROGRAM",
        help="the pg_dump program (default: pg_dump on PATH; its major version must be the "
        "server's or newer)",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    import os

    from nccl_course.store.backup import BackupError, create_backup

    try:
        report = create_backup(
            args.data_dir,
            args.output,
            args.database_url or os.environ.get("DATABASE_URL") or None,
            force=args.force,
            pg_dump=args.pg_dump,
        )
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    manifest = report.manifest
    database = manifest["database"]
    print(f"wrote {report.path} ({report.size} bytes)")
    print(
        f"  database: {database['kind']}, schema revision {database['schema_revision']}; "
        f"{len(manifest['members'])} members, each with its SHA-256 in manifest.json"
    )
    for issuer in manifest["issuers"]:
        mark = " (current)" if issuer["current"] else ""
        print(f"  issuer:   {issuer['issuer_id']}{mark}, {len(issuer['keys'])} key(s)")
    print(
        "  private: the archive holds the issuer's private keys and learners' e-mails; it "
        "was created with mode 0600 (owner only). Store it encrypted or off this host, "
        "never where others can read it."
    )
    return 0
