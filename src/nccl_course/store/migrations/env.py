"""Alembic environment for the course server.

Migrations run programmatically (``nccl_course.store.db.upgrade``), which hands over an open
connection in ``config.attributes["connection"]``; nothing here reads an ini file.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from nccl_course.store.models import Base

target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(context.config.get_main_option("sqlalchemy.url"))
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


def _run(connection) -> None:
    # render_as_batch lets ALTER-style migrations work on SQLite, which rebuilds tables instead.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run them against a DB")
run_migrations_online()
