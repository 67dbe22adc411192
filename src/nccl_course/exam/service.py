"""Exam lifecycle on the server: register, start, answer, submit, grade, issue.

Everything that decides a score runs here, on the server, with the quiz package's grader;
the browser only ever sees ``QuestionInstance.public()`` and, once an attempt is closed, its
own score and feedback. The repository functions below keep each HTTP request to one short
transaction, committed before the request is acknowledged.

Rules:
- one open attempt per learner at a time; ``start`` returns it if it exists;
- at most ``max_attempts`` attempts per learner and exam (a unique attempt number enforces it
  even when two starts race);
- answers are rows keyed by (attempt, question index): saving again replaces the response;
- an answer is accepted only while the attempt is open and before its deadline (plus a short
  grace for the network);
- ``submit`` closes and grades once; any later submit (a retry, a replay) returns the stored
  result and writes nothing. An attempt whose deadline passed is closed and graded with the
  answers saved in time, the first time anyone looks at it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError

from nccl_course.exam.blueprint import Blueprint, draw_questions, json_roundtrip
from nccl_course.exam.db import Database
from nccl_course.exam.models import (
    Answer,
    Attempt,
    AttemptQuestion,
    IssuedCredential,
    Learner,
    as_utc,
    utcnow,
)

log = logging.getLogger("nccl_course.exam")

# Seconds after the deadline during which a save or submit still counts (requests in flight).
DEADLINE_GRACE_S = 5
MAX_RESPONSE_BYTES = 4096
MAX_NAME_CHARS = 200
MAX_EMAIL_CHARS = 320


class ExamError(Exception):
    """A refusal with an HTTP status, a stable code and a sentence for the learner."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def iso(moment: datetime | None) -> str | None:
    moment = as_utc(moment)
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def normalise_email(email: str) -> str:
    return email.strip().lower()


def check_response(response) -> None:
    """Responses are small JSON values: a number, a string, or a list of them (nested lists
    allowed for matching). The grader judges the content; this only bounds the shape."""

    def ok(value, depth):
        if value is None or isinstance(value, (bool, int, float, str)):
            return True
        if isinstance(value, list) and depth < 3:
            return all(ok(v, depth + 1) for v in value)
        return False

    if not ok(response, 0):
        raise ExamError(422, "bad_response", "an answer is a number, a string or a list of them")
    if len(json.dumps(response)) > MAX_RESPONSE_BYTES:
        raise ExamError(413, "response_too_large", f"an answer is at most {MAX_RESPONSE_BYTES} B")


@dataclass
class QuizEngine:
    """The parts of ``nccl_course.quiz`` the server uses: the loaded banks and the grader.

    Banks are loaded one file at a time so that one broken bank (or the blueprint, which
    lives in the same folder) does not take the whole exam down: each problem is reported in
    ``problems`` and that chapter's zone is skipped.
    """

    banks: dict
    grade_key: object  # callable(key: dict, response) -> Grade
    problems: list = field(default_factory=list)

    @classmethod
    def load(cls, quizzes_dir, *, skip=()) -> QuizEngine:
        from nccl_course import quiz

        skip = {Path(p).resolve() for p in skip}
        banks, problems = {}, []
        directory = Path(quizzes_dir)
        paths = sorted(directory.glob("*.yml")) if directory.is_dir() else []
        if not paths:
            problems.append(f"no question banks in {directory}")
        for path in paths:
            if path.resolve() in skip or path.name.startswith("_"):
                continue
            try:
                bank = quiz.load_bank(path)
            except (quiz.BankError, OSError) as exc:
                problems.append(f"bank {path.name} skipped: {exc}")
                continue
            banks[bank.chapter] = bank
        return cls(banks=banks, grade_key=quiz.grade_key, problems=problems)


# Fields of QuestionInstance.public() that must not reach the learner while an attempt is
# open: the instance seed re-creates the key from the (public) bank.
PRIVATE_PUBLIC_FIELDS = ("seed",)


def learner_view(public: dict) -> dict:
    """``public()`` without anything that would let a learner rebuild the key."""
    return {k: v for k, v in public.items() if k not in PRIVATE_PUBLIC_FIELDS}


class ExamService:
    def __init__(self, db: Database, blueprint: Blueprint, engine: QuizEngine, issuer=None):
        self.db = db
        self.blueprint = blueprint
        self.engine = engine
        self.issuer = issuer  # nccl_course.exam.credentials.CredentialDesk or None
        self._issue_lock = threading.Lock()
        self._question_counts: dict[int, int] = {}
        self._statements: dict[str, tuple] = {}

    # ---- learners ---------------------------------------------------------------------
    def register(self, name: str, email: str) -> tuple[Learner, str]:
        name = (name or "").strip()
        email = normalise_email(email or "")
        if not name or len(name) > MAX_NAME_CHARS:
            raise ExamError(422, "bad_name", f"a name of 1 to {MAX_NAME_CHARS} characters")
        if (
            not 3 <= len(email) <= MAX_EMAIL_CHARS
            or email.count("@") != 1
            or not all(email.split("@"))
            or any(c.isspace() for c in email)
        ):
            raise ExamError(422, "bad_email", "an email address like name@example.org")
        token = secrets.token_urlsafe(32)
        learner = Learner(
            public_id=secrets.token_hex(8),
            name=name,
            email=email,
            token_hash=token_hash(token),
            created_at=utcnow(),
        )
        try:
            with self.db.write() as session:
                session.add(learner)
        except IntegrityError:
            raise ExamError(
                409,
                "already_registered",
                "this email is already registered: sign in with the learner key you were given",
            ) from None
        return learner, token

    def _learner(self, session, token: str | None) -> Learner:
        if not token:
            raise ExamError(401, "no_token", "sign in first (register to get a learner key)")
        learner = session.scalar(select(Learner).where(Learner.token_hash == token_hash(token)))
        if learner is None:
            raise ExamError(401, "bad_token", "unknown learner key: register or sign in again")
        return learner

    def learner(self, token: str | None) -> Learner:
        with self.db.read() as session:
            return self._learner(session, token)

    def _attempt(self, session, learner: Learner, attempt_id: str, *, lock=False) -> Attempt:
        query = select(Attempt).where(
            Attempt.public_id == attempt_id, Attempt.learner_id == learner.id
        )
        if lock:
            query = query.with_for_update()
        attempt = session.scalar(query)
        if attempt is None:
            raise ExamError(404, "no_attempt", "no such attempt for this learner")
        return attempt

    def overview(self, token: str | None) -> dict:
        """The learner's name and every attempt, closing any whose time ran out."""
        learner = self.learner(token)
        with self.db.read() as session:
            ids = session.scalars(
                select(Attempt.public_id)
                .where(Attempt.learner_id == learner.id, Attempt.status == "open")
                .where(Attempt.deadline_at < utcnow() - timedelta(seconds=DEADLINE_GRACE_S))
            ).all()
        for attempt_id in ids:
            self._close(learner, attempt_id, reason="expired")
        with self.db.read() as session:
            attempts = session.scalars(
                select(Attempt).where(Attempt.learner_id == learner.id).order_by(Attempt.number)
            ).all()
            issued = {
                c.attempt_id: c
                for c in session.scalars(
                    select(IssuedCredential).where(IssuedCredential.learner_id == learner.id)
                )
            }
        used = sum(1 for a in attempts if a.exam_id == self.blueprint.exam_id)
        return {
            "learner": {"id": learner.public_id, "name": learner.name, "email": learner.email},
            "attempts_used": used,
            "attempts_left": max(0, self.blueprint.max_attempts - used),
            "attempts": [self._summary(a, issued.get(a.id)) for a in attempts],
        }

    def _summary(self, attempt: Attempt, credential: IssuedCredential | None = None) -> dict:
        closed = attempt.status != "open"
        return {
            "id": attempt.public_id,
            "number": attempt.number,
            "status": attempt.status,
            "started_at": iso(attempt.started_at),
            "deadline_at": iso(attempt.deadline_at),
            "closed_at": iso(attempt.closed_at),
            "score": attempt.score if closed else None,
            "passed": attempt.passed if closed else None,
            "credential_id": credential.credential_id if credential else None,
            "revoked": bool(credential and credential.revoked_at),
        }

    # ---- attempts ---------------------------------------------------------------------
    def start(self, token: str | None) -> dict:
        """The learner's open attempt, or a new one if the attempt limit allows."""
        if not self.blueprint.zones:
            raise ExamError(
                503,
                "exam_unavailable",
                "the exam has no questions: none of the blueprint's chapter banks exist",
            )
        self.overview(token)  # closes an expired open attempt first
        for _ in range(3):
            try:
                attempt_id = self._start_once(token)
                break
            except IntegrityError:
                continue  # a concurrent start took the same number: look again
        else:
            raise ExamError(409, "busy", "another start is in progress; try again")
        return self.view(token, attempt_id)

    def _open_attempt_id(self, session, learner: Learner) -> str | None:
        return session.scalar(
            select(Attempt.public_id).where(
                Attempt.learner_id == learner.id,
                Attempt.exam_id == self.blueprint.exam_id,
                Attempt.status == "open",
            )
        )

    def _check_can_start(self, session, learner: Learner) -> int:
        """Attempts used so far; raises if the learner passed or used them all."""
        mine = (Attempt.learner_id == learner.id) & (Attempt.exam_id == self.blueprint.exam_id)
        used = session.scalar(select(func.count()).select_from(Attempt).where(mine))
        passed = session.scalar(
            select(func.count()).select_from(Attempt).where(mine, Attempt.passed.is_(True))
        )
        if passed:
            raise ExamError(409, "already_passed", "you have already passed this exam")
        if used >= self.blueprint.max_attempts:
            raise ExamError(
                409,
                "attempt_limit",
                f"attempt limit reached: {used} of {self.blueprint.max_attempts} used",
            )
        return used

    def _start_once(self, token: str | None) -> str:
        with self.db.read() as session:
            learner = self._learner(session, token)
            existing = self._open_attempt_id(session, learner)
            if existing is not None:
                return existing
            self._check_can_start(session, learner)  # refuse before the costly draw
        # Draw (and render) the questions before taking the write lock: generators and JSON
        # cost milliseconds per question, and every answer save waits while the lock is held.
        seed = secrets.randbits(63)
        rows = [
            {
                "position": drawn.position,
                "chapter": drawn.chapter,
                "question_id": drawn.question_id,
                "instance_seed": drawn.instance_seed,
                "public": json_roundtrip(learner_view(drawn.instance.public())),
                "key": json_roundtrip(drawn.instance.key()),
            }
            for drawn in draw_questions(self.blueprint, self.engine.banks, seed)
        ]
        with self.db.write() as session:
            learner = self._learner(session, token)
            existing = self._open_attempt_id(session, learner)  # a concurrent start won
            if existing is not None:
                return existing
            used = self._check_can_start(session, learner)
            now = utcnow()
            attempt = Attempt(
                public_id=secrets.token_hex(12),
                learner_id=learner.id,
                exam_id=self.blueprint.exam_id,
                number=used + 1,
                seed=seed,
                blueprint_digest=self.blueprint.digest,
                status="open",
                started_at=now,
                deadline_at=now + timedelta(seconds=self.blueprint.time_limit_s),
            )
            session.add(attempt)
            session.flush()
            session.execute(
                insert(AttemptQuestion), [{"attempt_id": attempt.id, **row} for row in rows]
            )
            return attempt.public_id

    def view(self, token: str | None, attempt_id: str) -> dict:
        """What the learner may see of an attempt: while open, the public questions and the
        saved answers; once closed, the result."""
        with self.db.read() as session:
            learner = self._learner(session, token)
            attempt = self._attempt(session, learner, attempt_id)
            expired = attempt.status == "open" and self._past_deadline(attempt)
        if expired:
            self._close(learner, attempt_id, reason="expired")
        with self.db.read() as session:
            attempt = self._attempt(session, learner, attempt_id)
            questions = session.scalars(
                select(AttemptQuestion)
                .where(AttemptQuestion.attempt_id == attempt.id)
                .order_by(AttemptQuestion.position)
            ).all()
            answers = {
                a.question_index: a
                for a in session.scalars(select(Answer).where(Answer.attempt_id == attempt.id))
            }
            credential = session.scalar(
                select(IssuedCredential).where(IssuedCredential.attempt_id == attempt.id)
            )
        body = self._summary(attempt, credential)
        body["exam"] = {"id": attempt.exam_id, "title": self.blueprint.title}
        body["pass_score"] = self.blueprint.pass_score
        body["remaining_s"] = (
            max(0.0, (as_utc(attempt.deadline_at) - utcnow()).total_seconds())
            if attempt.status == "open"
            else 0.0
        )
        items = []
        for q in questions:
            item = {"index": q.position, "chapter": q.chapter, "question": q.public}
            answer = answers.get(q.position)
            item["response"] = answer.response if answer else None
            item["revision"] = answer.revision if answer else 0
            if attempt.status != "open":
                item["score"] = q.score
                item["correct"] = q.correct
                item["feedback"] = q.feedback
            items.append(item)
        body["questions"] = items
        if attempt.status != "open":
            body["points"] = attempt.points
            body["max_points"] = attempt.max_points
        return body

    @staticmethod
    def _past_deadline(attempt: Attempt, grace_s: float = DEADLINE_GRACE_S) -> bool:
        return utcnow() > as_utc(attempt.deadline_at) + timedelta(seconds=grace_s)

    def save_answer(self, token: str | None, attempt_id: str, index: int, response) -> dict:
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
            learner = self._learner(session, token)  # 401 if the key is wrong
            self._attempt(session, learner, attempt_id)  # else 404
            raise ExamError(404, "no_attempt", "no such attempt for this learner")
        if row.status != "open":
            raise ExamError(409, "attempt_closed", "this attempt is closed; answers are final")
        if utcnow() > as_utc(row.deadline_at) + timedelta(seconds=DEADLINE_GRACE_S):
            raise ExamError(409, "time_up", "time is up: this answer was not saved")
        if not 0 <= index < self._question_count(session, row.id):
            raise ExamError(404, "no_question", f"this attempt has no question {index}")
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

    def submit(self, token: str | None, attempt_id: str) -> dict:
        """Close and grade the attempt once; later calls change nothing and return the same."""
        with self.db.read() as session:
            learner = self._learner(session, token)
            self._attempt(session, learner, attempt_id)
        self._close(learner, attempt_id, reason="submitted")
        try:
            self.ensure_credential(attempt_id)
        except Exception:
            # The grade stands; the credential is issued again on the next download request.
            log.exception("attempt %s: issuing the credential failed", attempt_id)
        return self.view(token, attempt_id)

    def _close(self, learner: Learner, attempt_id: str, *, reason: str) -> bool:
        """Grade and close an open attempt; returns False (and writes nothing) if it was
        already closed. The row lock (PostgreSQL) / IMMEDIATE transaction (SQLite) makes
        concurrent closes of one attempt grade it exactly once."""
        with self.db.write() as session:
            attempt = self._attempt(session, learner, attempt_id, lock=True)
            if attempt.status != "open":
                return False
            late = self._past_deadline(attempt)
            questions = session.scalars(
                select(AttemptQuestion)
                .where(AttemptQuestion.attempt_id == attempt.id)
                .order_by(AttemptQuestion.position)
            ).all()
            answers = {
                a.question_index: a
                for a in session.scalars(select(Answer).where(Answer.attempt_id == attempt.id))
            }
            points = 0.0
            max_points = 0.0
            for q in questions:
                answer = answers.get(q.position)
                q.score, q.correct, q.feedback = self._grade(q, answer)
                points += q.score
                max_points += 1.0
            attempt.points = points
            attempt.max_points = max_points
            attempt.score = points / max_points if max_points else 0.0
            attempt.passed = bool(max_points) and attempt.score >= self.blueprint.pass_score - 1e-9
            attempt.status = "expired" if (reason == "expired" or late) else "submitted"
            attempt.closed_at = utcnow()
        log.info("attempt %s closed (%s): score %.3f", attempt_id, attempt.status, attempt.score)
        return True

    def _grade(self, q: AttemptQuestion, answer: Answer | None):
        """(score, correct, feedback) for one drawn question, graded by the quiz package
        against the key stored when the question was drawn (so a later edit of the bank
        cannot change what this attempt is graded against)."""
        if answer is None:
            return 0.0, False, "Not answered."
        grade = self.engine.grade_key(q.key, answer.response)
        score = min(1.0, max(0.0, float(grade.score)))
        feedback = str(grade.feedback or "")
        if grade.expected and not grade.correct:
            feedback += f"\n\nExpected: {grade.expected}"
        return score, bool(grade.correct), feedback

    # ---- credentials ------------------------------------------------------------------
    def ensure_credential(self, attempt_id: str) -> IssuedCredential | None:
        """Issue (once) the credential of a passed attempt; None if not passed or no issuer."""
        if self.issuer is None:
            return None
        with self.db.read() as session:
            attempt = session.scalar(select(Attempt).where(Attempt.public_id == attempt_id))
            if attempt is None or not attempt.passed:
                return None
            existing = session.scalar(
                select(IssuedCredential).where(IssuedCredential.attempt_id == attempt.id)
            )
            if existing is not None:
                return existing
            learner = session.get(Learner, attempt.learner_id)
        # One issuance at a time in this process: the issuer allocates status-list indices.
        with self._issue_lock:
            with self.db.write() as session:
                locked = session.scalar(
                    select(Attempt).where(Attempt.id == attempt.id).with_for_update()
                )
                existing = session.scalar(
                    select(IssuedCredential).where(IssuedCredential.attempt_id == locked.id)
                )
                if existing is not None:
                    return existing
                document = self.issuer.issue(
                    learner_name=learner.name,
                    learner_email=learner.email,
                    exam_id=attempt.exam_id,
                    score=attempt.score,
                    passed_at=as_utc(attempt.closed_at),
                    achievement=self.blueprint.achievement or None,
                )
                credential = IssuedCredential(
                    credential_id=str(document["id"]),
                    attempt_id=attempt.id,
                    learner_id=learner.id,
                    document=json_roundtrip(document),
                    issued_at=utcnow(),
                )
                session.add(credential)
        log.info("credential %s issued for attempt %s", credential.credential_id, attempt_id)
        return credential

    def credential_for(self, token: str | None, attempt_id: str) -> IssuedCredential:
        with self.db.read() as session:
            learner = self._learner(session, token)
            attempt = self._attempt(session, learner, attempt_id)
            if attempt.status == "open":
                raise ExamError(409, "attempt_open", "submit the attempt first")
            if not attempt.passed:
                raise ExamError(404, "not_passed", "this attempt did not pass: no credential")
        credential = self.ensure_credential(attempt_id)
        if credential is None:
            raise ExamError(503, "no_issuer", "this server cannot issue credentials")
        return credential

    def stored_credential(self, credential_id: str) -> dict:
        with self.db.read() as session:
            credential = session.scalar(
                select(IssuedCredential).where(IssuedCredential.credential_id == credential_id)
            )
        if credential is None:
            raise ExamError(404, "no_credential", "this server has not issued that credential")
        return credential.document

    def revoke(self, credential_id: str, reason: str = "") -> IssuedCredential:
        with self.db.write() as session:
            credential = session.scalar(
                select(IssuedCredential)
                .where(IssuedCredential.credential_id == credential_id)
                .with_for_update()
            )
            if credential is None:
                raise ExamError(404, "no_credential", f"no credential {credential_id}")
            if credential.revoked_at is None:
                self.issuer.revoke(credential.document)
                credential.revoked_at = utcnow()
                credential.revocation_reason = reason[:500] or None
        return credential

    # ---- statistics for tests and the load benchmark ------------------------------------
    def answer_count(self) -> int:
        with self.db.read() as session:
            return session.scalar(select(func.count()).select_from(Answer))
