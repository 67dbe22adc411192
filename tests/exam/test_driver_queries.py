"""The start's look-ups on the driver's cursor read what the sessions' queries read: the same
learner (times converted by the column types), the same attempts, the same refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest

from nccl_course.exam.clock import as_utc, utcnow
from nccl_course.exam.errors import Unauthenticated
from nccl_course.exam.learners import token_hash
from nccl_course.store.db import Database
from nccl_course.store.models import Learner
from nccl_course.store.queries import (
    attempts_of,
    driver_cursor,
    find_learner,
    insert_attempt,
    learner_by_key,
    refuse_key,
)


def check_driver_queries_match_sessions(db: Database) -> None:
    """On ``db`` (migrated): a confirmed and an unconfirmed learner, an attempt; the cursor
    functions agree with the session queries, and unknown keys are refused."""
    now = utcnow().replace(microsecond=123456)
    with db.write() as session:
        for n, confirmed in ((1, now - timedelta(hours=2)), (2, None)):
            session.add(
                Learner(
                    public_id=f"p{n}",
                    name=f"Ada {n}",
                    email=f"ada{n}@example.org",
                    token_hash=token_hash(f"key-{n}"),
                    created_at=now - timedelta(days=n),
                    email_confirmed_at=confirmed,
                )
            )
    dialect = db.engine.dialect
    with db.write_cursor() as cursor:
        learner = learner_by_key(cursor, dialect, "key-1")
        values = {
            "public_id": "a1",
            "learner_id": learner.id,
            "exam_id": "exam",
            "number": 1,
            "seed": 7,
            "blueprint_digest": "d",
            "status": "open",
            "started_at": now,
            "deadline_at": now + timedelta(hours=1),
            "language": "tr",
        }
        pk = insert_attempt(cursor, dialect, values)
    assert pk > 0
    columns = [c.key for c in Learner.__table__.c]
    for key in ("key-1", "key-2"):
        with db.read() as session:
            expected = find_learner(session, key)
            cursor, session_dialect = driver_cursor(session)
            from_session_cursor = attempts_of(cursor, session_dialect, expected.id)
            cursor.close()
        with db.read_cursor() as cursor:
            got = learner_by_key(cursor, dialect, key)
            attempts = attempts_of(cursor, dialect, got.id)
        assert [getattr(got, c) for c in columns] == [getattr(expected, c) for c in columns]
        assert attempts == from_session_cursor
    assert got.email_confirmed_at is None
    with db.read_cursor() as cursor:
        learner = learner_by_key(cursor, dialect, "key-1")
        # SQLite keeps no time zone: both read UTC back, aware on PostgreSQL
        assert as_utc(learner.email_confirmed_at) == now - timedelta(hours=2)
        ((public_id, exam_id, status, deadline_at, passed),) = attempts_of(
            cursor, dialect, learner.id
        )
        assert (public_id, exam_id, status, passed) == ("a1", "exam", "open", None)
        assert as_utc(deadline_at) == now + timedelta(hours=1)
        assert learner_by_key(cursor, dialect, "no such key") is None
        assert learner_by_key(cursor, dialect, None) is None
    with db.read() as session:
        for token, code in ((None, "no_token"), ("", "no_token"), ("no such key", "bad_token")):
            with pytest.raises(Unauthenticated) as refused:
                refuse_key(session, token)
            assert refused.value.code == code


def test_driver_queries_match_sessions_on_sqlite(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'exam.db'}")
    db.upgrade()
    try:
        check_driver_queries_match_sessions(db)
    finally:
        db.dispose()
