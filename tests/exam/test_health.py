"""The monitoring probes: ``/exam/api/health`` (the process answers) and ``/exam/api/ready``
(the database answers: 200 with its schema revision, else 503 in the server's error shape)."""

from __future__ import annotations

from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from nccl_course.store.db import head_revision


def test_ready_reports_the_database_and_its_schema(client):
    response = client.get("/exam/api/ready")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "database": "sqlite", "schema": head_revision()}
    assert response.headers["cache-control"] == "no-store"
    assert client.get("/exam/api/health").json() == {"ok": True, "database": "sqlite"}


def test_ready_is_503_when_the_database_does_not_answer(app, client, tmp_path):
    db = app.state.service.db
    broken = create_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'course.db'}")
    saved = db._read
    db._read = sessionmaker(broken)
    try:
        response = client.get("/exam/api/ready")
        assert response.status_code == 503
        assert response.json() == {
            "ok": False,
            "error": "database_unavailable",
            "detail": "the database does not answer",
        }
        assert client.get("/exam/api/health").status_code == 200  # alive, not ready
    finally:
        db._read = saved
        broken.dispose()
    assert client.get("/exam/api/ready").status_code == 200
