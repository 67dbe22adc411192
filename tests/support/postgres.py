"""Where the PostgreSQL programs are and how to run them, for the throw-away clusters of the
tests and the load benchmark."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# Folders searched before $PATH: where this image and Debian's packages put initdb and pg_ctl.
PG_BIN = (
    Path("/usr/local/bin"),
    Path("/usr/lib/postgresql/15/bin"),
    Path("/usr/lib/postgresql/16/bin"),
)


def pg_tool(name: str) -> str | None:
    """The path of PostgreSQL program ``name`` (``initdb``, ``pg_ctl``), or None."""
    for folder in PG_BIN:
        if (folder / name).exists():
            return str(folder / name)
    return shutil.which(name)


def as_postgres_user(cmd: list[str]) -> list[str]:
    """``cmd`` run as the 'postgres' account when we are root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd
