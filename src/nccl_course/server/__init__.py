"""The course server: the built book, the server-graded exam and its credentials.

``create_app(Settings(...))`` builds the FastAPI app (``nccl_course.server.app``); ``nccl-course
serve`` runs it with uvicorn. Storage is SQLAlchemy 2 (SQLite in WAL mode by default, PostgreSQL
through ``DATABASE_URL``) with Alembic migrations applied at start.
"""

from __future__ import annotations


def create_app(settings=None):
    from nccl_course.server.app import create_app as _create_app

    return _create_app(settings)


__all__ = ["create_app"]
