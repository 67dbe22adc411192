"""The server on PostgreSQL: migrations keep rows, the lifecycle holds, concurrent saves and
submits are serialised by row locks.

Uses ``DATABASE_URL`` when it names a PostgreSQL server (a fresh database is created and
dropped on it); otherwise starts a throw-away cluster with the ``initdb``/``pg_ctl`` found on
the machine (about 5 s); otherwise the tests are skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from nccl_course.launcher import free_port
from nccl_course.quiz.keys import correct_response
from nccl_course.store.db import Database, current_revision, normalise_url, upgrade
from tests.exam.test_driver_queries import check_driver_queries_match_sessions
from tests.support.postgres import as_postgres_user, pg_tool


@pytest.fixture(scope="module")
def pg_server_url():
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://", "postgresql+psycopg://")):
        yield normalise_url(url)
        return
    initdb, pg_ctl = pg_tool("initdb"), pg_tool("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL tests need DATABASE_URL=postgresql://... or initdb/pg_ctl")
    if os.geteuid() == 0 and subprocess.run(["id", "postgres"], capture_output=True).returncode:
        pytest.skip("running as root without a 'postgres' account to run the server as")
    folder = Path(tempfile.mkdtemp(prefix="nccl-course-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, user="postgres")
    data, port = folder / "data", free_port()
    try:
        subprocess.run(
            as_postgres_user(
                [initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
        subprocess.run(
            as_postgres_user(
                [pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"could not start a temporary PostgreSQL: {exc}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            as_postgres_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def pg_url(pg_server_url):
    """A fresh, empty database on the server for one test."""
    name = f"nccl_course_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(pg_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = pg_server_url.rsplit("/", 1)[0] + f"/{name}"
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


def test_postgres_upgrade_keeps_rows(pg_url):
    engine = create_engine(pg_url)
    upgrade(engine, "0001")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO learners (public_id, name, email, token_hash, created_at) "
                "VALUES ('p1', 'Ada', 'ada@example.org', :h, now())"
            ),
            {"h": "a" * 64},
        )
        # Written by other means: the same address once normalised (revision 0005 keeps it).
        conn.execute(
            text(
                "INSERT INTO learners (public_id, name, email, token_hash, created_at) "
                "VALUES ('p2', 'Ada 2', ' Ada@Example.org', :h, now())"
            ),
            {"h": "b" * 64},
        )
    engine.dispose()
    db = Database(pg_url)
    db.upgrade()
    assert current_revision(db.engine) == "0006"
    with db.engine.connect() as conn:
        assert conn.execute(
            text("SELECT name, email, email_confirmed_at FROM learners ORDER BY id")
        ).all() == [("Ada", "ada@example.org", None), ("Ada 2", " Ada@Example.org", None)]
        assert conn.execute(text("SELECT count(*) FROM credentials")).scalar() == 0
    db.dispose()


def test_postgres_driver_queries_match_sessions(pg_url):
    db = Database(pg_url)
    db.upgrade()
    try:
        check_driver_queries_match_sessions(db)
    finally:
        db.dispose()


@pytest.fixture()
def pg_client(pg_url, tmp_path, quizzes_dir):
    import warnings

    from nccl_course.server.app import create_app
    from nccl_course.server.settings import Settings

    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=pg_url,
        quizzes_dir=quizzes_dir,
        book_dir=tmp_path / "no-book",
        admin_token="pg-admin",
        email_confirmation=False,
    )
    app = create_app(settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    with TestClient(app) as client:
        yield app, client
    app.state.db.dispose()


def test_postgres_lifecycle_concurrent_saves_and_submits(pg_client):
    from nccl_course.store.models import Answer, Attempt, AttemptQuestion

    app, client = pg_client
    assert client.get("/exam/api/health").json()["database"] == "postgresql"
    reg = client.post("/exam/api/register", json={"name": "Ada", "email": "ada@example.org"})
    headers = {"Authorization": "Bearer " + reg.json()["token"]}
    attempt = client.post("/exam/api/attempts", headers=headers).json()
    with app.state.db.read() as session:
        pk = session.scalar(select(Attempt.id).where(Attempt.public_id == attempt["id"]))
        keys = [
            r.key
            for r in session.scalars(
                select(AttemptQuestion)
                .where(AttemptQuestion.attempt_id == pk)
                .order_by(AttemptQuestion.position)
            )
        ]
    errors: list = []

    def save_many(index):
        for _ in range(5):
            r = client.put(
                f"/exam/api/attempts/{attempt['id']}/answers/{index}",
                json={"response": correct_response(keys[index])},
                headers=headers,
            )
            if r.status_code != 200:
                errors.append(r.text)

    threads = [threading.Thread(target=save_many, args=(i,)) for i in range(len(keys))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with app.state.db.read() as session:
        rows = session.scalars(select(Answer).where(Answer.attempt_id == pk)).all()
    assert len(rows) == len(keys) and {r.revision for r in rows} == {5}

    results: list = []

    def submit():
        results.append(
            client.post(f"/exam/api/attempts/{attempt['id']}/submit", headers=headers).json()
        )

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r["closed_at"] for r in results}) == 1  # graded exactly once
    assert results[0]["score"] == 1.0 and results[0]["passed"] is True
    credential = client.get(
        f"/exam/api/attempts/{attempt['id']}/credential", headers=headers
    ).json()
    assert client.post("/exam/api/verify", json=credential).json()["ok"] is True
    refused = client.post("/exam/api/attempts", headers=headers)
    assert refused.status_code == 409


def test_postgres_refuses_nul_characters_instead_of_failing(pg_client):
    """PostgreSQL text cannot hold U+0000: ids with one are refused (422), not a 500."""
    from tests.exam.conftest import Learner
    from tests.exam.test_fuzz import assert_nul_refused

    app, client = pg_client
    learner = Learner(client)
    learner.start()
    assert_nul_refused(client, learner.headers, "pg-admin")
    # the learner's own requests still work after the refusals
    assert client.get("/exam/api/me", headers=learner.headers).status_code == 200
