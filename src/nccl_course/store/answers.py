"""Answer storage: checking a response and saving it, the hot path of the server.

Answers are rows keyed by (attempt, question index): saving again replaces the response and
bumps its revision. An answer is accepted only while the attempt is open and before its
deadline (plus a short grace for the network). Every refusal is raised before anything is
written, so ``GroupCommitWriter`` (``nccl_course.store.batching``) can save many answers in one
transaction and refuse one of them alone.

Saving runs its three statements (the key and attempt, the attempt's question count once, the
upsert) on the driver's cursor, with SQL written once per database: through SQLAlchemy each
statement costs about 0.15 ms of CPU, more than the database takes to run it. The values are
converted by the SQLAlchemy column types (``bind_processor``/``result_processor``), so a row
saved here reads back exactly as one written through the ORM. Looking up why an answer was
refused (a wrong key or someone else's attempt) is rare and goes through the ORM
(``nccl_course.store.queries``).
"""

from __future__ import annotations

import json

from nccl_course.exam.answers import check_response
from nccl_course.exam.attempts import past_deadline
from nccl_course.exam.clock import iso, utcnow
from nccl_course.exam.errors import Conflict, ExamError, Invalid, NotFound
from nccl_course.exam.learners import token_hash
from nccl_course.i18n.interface import N_
from nccl_course.store.db import NUL_CODE, NUL_MESSAGE, Database
from nccl_course.store.models import Answer, Attempt
from nccl_course.store.queries import find_attempt, find_learner

# The statements of a save, per database (driver parameter styles: sqlite3 "?", psycopg "%s").
_SQL = {
    "sqlite": (
        "SELECT attempts.id, attempts.status, attempts.deadline_at FROM attempts "
        "JOIN learners ON learners.id = attempts.learner_id "
        "WHERE learners.token_hash = ? AND attempts.public_id = ?",
        "SELECT count(*) FROM attempt_questions WHERE attempt_id = ?",
        "INSERT INTO answers (attempt_id, question_index, response, revision, updated_at) "
        "VALUES (?, ?, ?, 1, ?) ON CONFLICT (attempt_id, question_index) DO UPDATE SET "
        "response = excluded.response, revision = answers.revision + 1, "
        "updated_at = excluded.updated_at RETURNING revision",
    ),
    "postgresql": (
        "SELECT attempts.id, attempts.status, attempts.deadline_at FROM attempts "
        "JOIN learners ON learners.id = attempts.learner_id "
        "WHERE learners.token_hash = %s AND attempts.public_id = %s FOR UPDATE OF attempts",
        "SELECT count(*) FROM attempt_questions WHERE attempt_id = %s",
        "INSERT INTO answers (attempt_id, question_index, response, revision, updated_at) "
        "VALUES (%s, %s, CAST(%s AS JSON), 1, %s) ON CONFLICT (attempt_id, question_index) "
        "DO UPDATE SET response = excluded.response, revision = answers.revision + 1, "
        "updated_at = excluded.updated_at RETURNING revision",
    ),
}


def _identity(value):
    return value


class AnswerStore:
    def __init__(self, db: Database):
        self.db = db
        self._question_counts: dict[int, int] = {}
        dialect = db.write_engine.dialect
        if dialect.name not in _SQL:
            raise ValueError(f"answers: no SQL for the {dialect.name} database")
        self._lookup, self._count, self._upsert = _SQL[dialect.name]
        # The column types' own conversions (SQLite keeps times as text, JSON as text).
        deadline = Attempt.__table__.c.deadline_at.type.dialect_impl(dialect)
        updated = Answer.__table__.c.updated_at.type.dialect_impl(dialect)
        response = Answer.__table__.c.response.type.dialect_impl(dialect)
        self._read_deadline = deadline.result_processor(dialect, None) or _identity
        self._write_time = updated.bind_processor(dialect) or _identity
        self._write_json = response.bind_processor(dialect) or _json_text

    def save(self, token: str | None, attempt_id: str, index: int, response) -> dict:
        """Store (or replace) the answer to question ``index``; committed before returning.
        (The HTTP route goes through ``GroupCommitWriter``, which batches these.)"""
        check_response(response)
        result = self.save_many([(token, attempt_id, index, response)])[0]
        if isinstance(result, ExamError):
            raise result
        return result

    def save_many(self, saves: list[tuple]) -> list:
        """Save each ``(token, attempt_id, index, response)`` in one transaction, committed
        before returning; the result of each, in order: its acknowledgement, or the
        ``ExamError`` that refused it (nothing of it written). Any other failure rolls the
        whole transaction back and is raised."""
        results: list = []
        with self.db.write_cursor() as cursor:
            for token, attempt_id, index, response in saves:
                try:
                    results.append(self._save_one(cursor, token, attempt_id, index, response))
                except ExamError as refusal:
                    results.append(refusal)
        return results

    def _save_one(self, cursor, token, attempt_id: str, index: int, response) -> dict:
        """The checks and the upsert of one answer in the caller's write transaction. Every
        refusal is raised before anything is written, so a refused answer leaves the
        transaction clean for the other answers of a batch: one SELECT (learner key + attempt,
        row-locked on PostgreSQL) and one UPSERT."""
        if "\x00" in attempt_id or (token and "\x00" in token):
            raise Invalid(NUL_CODE, NUL_MESSAGE)
        cursor.execute(self._lookup, (token_hash(token or ""), attempt_id))
        row = cursor.fetchone()
        if row is None:
            self._refuse_unknown(token, attempt_id)
        attempt_pk, status, deadline_at = row
        if status != "open":
            raise Conflict("attempt_closed", N_("this attempt is closed; answers are final"))
        if past_deadline(self._read_deadline(deadline_at)):
            raise Conflict("time_up", N_("time is up: this answer was not saved"))
        if not 0 <= index < self._question_count(cursor, attempt_pk):
            raise NotFound("no_question", N_("this attempt has no question {index}"), index=index)
        now = utcnow()
        cursor.execute(
            self._upsert, (attempt_pk, index, self._write_json(response), self._write_time(now))
        )
        (revision,) = cursor.fetchone()
        return {"index": index, "saved": True, "revision": revision, "saved_at": iso(now)}

    def _refuse_unknown(self, token, attempt_id: str):
        """The refusal for a key and attempt id that match no attempt: Unauthenticated (or
        ``unconfirmed``) for the key, else NotFound."""
        with self.db.read() as session:
            learner = find_learner(session, token)
            find_attempt(session, learner, attempt_id)
        raise NotFound("no_attempt", N_("no such attempt for this learner"))

    def _question_count(self, cursor, attempt_pk: int) -> int:
        """Questions of an attempt (fixed when it starts, so it is cached)."""
        count = self._question_counts.get(attempt_pk)
        if count is None:
            cursor.execute(self._count, (attempt_pk,))
            (count,) = cursor.fetchone()
            if len(self._question_counts) > 100_000:
                self._question_counts.clear()
            self._question_counts[attempt_pk] = count
        return count


def _json_text(value) -> str:
    return json.dumps(value)
