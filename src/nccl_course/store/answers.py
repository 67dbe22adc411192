"""Answer storage: checking a response and saving it, the hot path of the server.

Answers are rows keyed by (attempt, question index): saving again replaces the response and
bumps its revision. An answer is accepted only while the attempt is open and before its
deadline (plus a short grace for the network). Every refusal is raised before anything is
written, so ``GroupCommitWriter`` (``nccl_course.store.batching``) can save many answers in one
transaction and refuse one of them alone.
"""

from __future__ import annotations

from sqlalchemy import bindparam, func, select

from nccl_course.exam.answers import check_response
from nccl_course.exam.attempts import past_deadline
from nccl_course.exam.clock import iso, utcnow
from nccl_course.exam.errors import Conflict, NotFound
from nccl_course.exam.learners import token_hash
from nccl_course.i18n.interface import N_
from nccl_course.store.db import Database
from nccl_course.store.models import Answer, Attempt, AttemptQuestion, Learner
from nccl_course.store.queries import find_attempt, find_learner


class AnswerStore:
    def __init__(self, db: Database):
        self.db = db
        self._question_counts: dict[int, int] = {}
        self._statements: dict[str, tuple] = {}

    def save(self, token: str | None, attempt_id: str, index: int, response) -> dict:
        """Store (or replace) the answer to question ``index``; committed before returning.
        (The HTTP route goes through ``GroupCommitWriter``, which batches these.)"""
        check_response(response)
        with self.db.write() as session:
            return self.save_in_session(session, token, attempt_id, index, response)

    def save_in_session(self, session, token, attempt_id: str, index: int, response) -> dict:
        """The checks and the upsert of one answer inside the caller's write transaction.
        Every refusal is raised before anything is written, so a refused answer leaves the
        transaction clean for the other answers of a batch. This is the hot path of the
        server: one SELECT (learner key + attempt, row-locked on PostgreSQL) and one UPSERT,
        both built once (building SQLAlchemy statements costs more CPU than running them)."""
        lookup, upsert = self._save_statements(session.get_bind().dialect.name)
        row = session.execute(
            lookup, {"token_hash": token_hash(token or ""), "attempt_id": attempt_id}
        ).one_or_none()
        if row is None:
            learner = find_learner(session, token)  # Unauthenticated if the key is wrong
            find_attempt(session, learner, attempt_id)  # else NotFound
            raise NotFound("no_attempt", N_("no such attempt for this learner"))
        if row.status != "open":
            raise Conflict("attempt_closed", N_("this attempt is closed; answers are final"))
        if past_deadline(row.deadline_at):
            raise Conflict("time_up", N_("time is up: this answer was not saved"))
        if not 0 <= index < self._question_count(session, row.id):
            raise NotFound("no_question", N_("this attempt has no question {index}"), index=index)
        now = utcnow()
        revision = session.execute(
            upsert,
            {"attempt_pk": row.id, "index": index, "response": response, "now": now},
        ).scalar_one()
        return {"index": index, "saved": True, "revision": revision, "saved_at": iso(now)}

    def _save_statements(self, dialect: str):
        statements = self._statements.get(dialect)
        if statements is None:
            lookup = (
                select(Attempt.id, Attempt.status, Attempt.deadline_at)
                .join(Learner, Learner.id == Attempt.learner_id)
                .where(
                    Learner.token_hash == bindparam("token_hash"),
                    Attempt.public_id == bindparam("attempt_id"),
                )
            )
            if dialect == "postgresql":
                from sqlalchemy.dialects.postgresql import insert

                lookup = lookup.with_for_update(of=Attempt)
            else:
                from sqlalchemy.dialects.sqlite import insert
            values = insert(Answer).values(
                attempt_id=bindparam("attempt_pk"),
                question_index=bindparam("index"),
                response=bindparam("response", type_=Answer.__table__.c.response.type),
                revision=1,
                updated_at=bindparam("now", type_=Answer.__table__.c.updated_at.type),
            )
            upsert = values.on_conflict_do_update(
                index_elements=["attempt_id", "question_index"],
                set_={
                    "response": values.excluded.response,
                    "revision": Answer.revision + 1,
                    "updated_at": values.excluded.updated_at,
                },
            ).returning(Answer.revision)
            statements = self._statements[dialect] = (lookup, upsert)
        return statements

    def _question_count(self, session, attempt_pk: int) -> int:
        """Questions of an attempt (fixed when it starts, so it is cached)."""
        count = self._question_counts.get(attempt_pk)
        if count is None:
            count = session.scalar(
                select(func.count())
                .select_from(AttemptQuestion)
                .where(AttemptQuestion.attempt_id == attempt_pk)
            )
            if len(self._question_counts) > 100_000:
                self._question_counts.clear()
            self._question_counts[attempt_pk] = count
        return count
