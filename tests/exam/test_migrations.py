"""Schema migrations: the head matches the models, and an upgrade keeps every row."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from nccl_course.store.db import (
    Database,
    current_revision,
    head_revision,
    sqlite_url,
    table_names,
    upgrade,
)


def test_head_schema_matches_models(tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from nccl_course.store.models import Base

    engine = create_engine(sqlite_url(tmp_path / "head.db"))
    upgrade(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == []


def test_upgrade_from_first_revision_keeps_rows(tmp_path):
    url = sqlite_url(tmp_path / "old.db")
    engine = create_engine(url)
    upgrade(engine, "0001")
    assert current_revision(engine) == "0001"
    assert "credentials" not in table_names(engine)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO learners (id, public_id, name, email, token_hash, created_at) "
                "VALUES (1, 'p1', 'Ada', 'ada@example.org', :h, '2026-01-01 10:00:00')"
            ),
            {"h": "a" * 64},
        )
        conn.execute(
            text(
                "INSERT INTO attempts (id, public_id, learner_id, exam_id, number, seed, "
                "blueprint_digest, status, started_at, deadline_at, score, points, max_points, "
                "passed, closed_at) VALUES (1, 'att1', 1, 'e', 1, 1234567890123, :d, "
                "'submitted', '2026-01-01 10:00:00', '2026-01-01 10:45:00', 0.8, 4, 5, 1, "
                "'2026-01-01 10:30:00')"
            ),
            {"d": "b" * 64},
        )
        conn.execute(
            text(
                "INSERT INTO attempt_questions (attempt_id, position, chapter, question_id, "
                "instance_seed, public, key) VALUES (1, 0, 'alpha', 'a-single', 42, "
                '\'{"type": "single"}\', \'{"type": "single", "correct": [1]}\')'
            )
        )
        conn.execute(
            text(
                "INSERT INTO answers (attempt_id, question_index, response, revision, "
                "updated_at) VALUES (1, 0, '1', 2, '2026-01-01 10:10:00')"
            )
        )
    before = _dump(engine, ["learners", "attempts", "attempt_questions", "answers"])
    engine.dispose()

    db = Database(url)  # what the server does at start
    db.upgrade()
    assert current_revision(db.engine) == head_revision() == "0006"
    after = _dump(db.engine, ["learners", "attempts", "attempt_questions", "answers"])
    # 0005 adds learners.email_confirmed_at: the old learner is not confirmed.
    assert after.pop("learners") == [(*row, None) for row in before.pop("learners")]
    # 0006 adds attempts.language: every earlier attempt was drawn in English.
    assert after.pop("attempts") == [(*row, "en") for row in before.pop("attempts")]
    assert after == before
    assert (
        sum(len(rows) for rows in before.values()) == 2
    )  # attempt_questions and answers; learners and attempts are checked above
    with db.write() as session:  # the new table works with the old rows
        session.execute(
            text(
                "INSERT INTO credentials (credential_id, attempt_id, learner_id, document, "
                "issued_at) VALUES ('urn:uuid:x', 1, 1, '{}', '2026-01-01 10:31:00')"
            )
        )
    db.upgrade()  # running again at the next start is a no-op
    assert _dump(db.engine, ["credentials"])["credentials"][0][1] == "urn:uuid:x"
    db.dispose()


def test_sqlite_runs_in_wal_mode(tmp_path):
    db = Database(sqlite_url(tmp_path / "wal.db"))
    db.upgrade()
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    db.dispose()


def _dump(engine, tables):
    with engine.connect() as conn:
        return {t: conn.execute(text(f"SELECT * FROM {t} ORDER BY id")).all() for t in tables}
