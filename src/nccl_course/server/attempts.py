"""Attempts in the database: start, view, deadline, submit and grading.

The rules (deadlines, what a learner sees, the grader) are the exam's
(``nccl_course.exam.attempts``); this module runs them in short transactions, committed before
the request is acknowledged.

Rules:
- one open attempt per learner at a time; ``start`` returns it if it exists;
- at most ``max_attempts`` attempts per learner and exam (a unique attempt number enforces it
  even when two starts race);
- ``submit`` closes and grades once; any later submit (a retry, a replay) returns the stored
  result and writes nothing. An attempt whose deadline passed is closed and graded with the
  answers saved in time, the first time anyone looks at it.

An attempt has a language (``Attempt.language``, chosen when it starts): its questions are
drawn from the banks in that language (``QuizEngine.banks_for``).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from datetime import timedelta
from typing import NamedTuple

import orjson
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from nccl_course.exam.attempts import (
    DEADLINE_GRACE_S,
    grade_answer,
    learner_view,
    past_deadline,
    readable_response,
    summary,
)
from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import Blueprint, draw_questions
from nccl_course.exam.clock import as_utc, utcnow
from nccl_course.exam.errors import Conflict, NotFound, Unavailable
from nccl_course.exam.learners import learner_json, unconfirmed
from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.languages import LANGUAGES
from nccl_course.issuing.credentials import IssuedCredentials
from nccl_course.store.db import Database
from nccl_course.store.models import Attempt, IssuedCredential, Learner
from nccl_course.store.queries import (
    answer_rows,
    attempts_of,
    find_learner,
    find_learners_attempt,
    insert_attempt,
    insert_questions,
    learner_by_key,
    question_rows,
    refuse_key,
    store_grades,
)

log = logging.getLogger("nccl_course.exam")

# Starts and submits (drawing, grading, signing: milliseconds of Python each) running at once
# in one process. More threads than this gain nothing under the GIL and take it from the event
# loop and the answer writer: a class arriving together would make every answer save wait
# behind tens of starts. Waiting threads hold no GIL.
HEAVY_AT_ONCE = 2


class Attempts:
    def __init__(
        self,
        db: Database,
        blueprint: Blueprint,
        engine: QuizEngine,
        credentials: IssuedCredentials,
        *,
        require_confirmed: bool = False,
    ):
        self.db = db
        # E-mail confirmation on: a new attempt needs a confirmed address (an open one resumes).
        self.require_confirmed = require_confirmed
        self.blueprint = blueprint
        self.engine = engine
        self.credentials = credentials
        self._heavy = threading.BoundedSemaphore(HEAVY_AT_ONCE)

    def overview(self, token: str | None) -> dict:
        """The learner's name and every attempt, closing any whose time ran out."""
        with self.db.read() as session:
            learner = find_learner(session, token)
            ids = session.scalars(
                select(Attempt.public_id)
                .where(Attempt.learner_id == learner.id, Attempt.status == "open")
                .where(Attempt.deadline_at < utcnow() - timedelta(seconds=DEADLINE_GRACE_S))
            ).all()
        for attempt_id in ids:
            self._close(learner.id, attempt_id, reason="expired")
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
            "learner": learner_json(learner),
            "attempts_used": used,
            "attempts_left": max(0, self.blueprint.max_attempts - used),
            "email_confirmed": learner.email_confirmed_at is not None,
            "attempts": [summary(a, issued.get(a.id)) for a in attempts],
        }

    # ---- start ------------------------------------------------------------------------
    def start(self, token: str | None, language: str = "en") -> dict:
        """The learner's open attempt (in its own language), or a new one in ``language`` if
        the attempt limit allows."""
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}")
        if not self.blueprint.zones:
            raise Unavailable(
                "exam_unavailable",
                N_("the exam has no questions: none of the blueprint's chapter banks exist"),
            )
        with self._heavy:
            for _ in range(3):
                try:
                    started = self._start_once(token, language)
                    break
                except IntegrityError:
                    continue  # a concurrent start took the same number: look again
            else:
                raise Conflict("busy", N_("another start is in progress; try again"))
        if isinstance(started, str):  # an open attempt resumes
            return self.view(token, started)
        return started

    def _standing(self, cursor, learner_id: int) -> tuple[str | None, int, int, list[str]]:
        """From one query of the learner's attempts (with the driver's ``cursor``): the id of
        their open attempt at this exam (None if none), the attempts used and passed at it, and
        the ids of their open attempts (at any exam) whose time ran out (to be closed first)."""
        open_id, used, passed, expired = None, 0, 0, []
        for public_id, exam_id, status, deadline_at, was_passed in attempts_of(
            cursor, self.db.engine.dialect, learner_id
        ):
            if status == "open" and past_deadline(deadline_at):
                expired.append(public_id)
            if exam_id != self.blueprint.exam_id:
                continue
            used += 1
            passed += bool(was_passed)
            if status == "open":
                open_id = public_id
        return open_id, used, passed, expired

    def _check_can_start(self, learner: Learner, used: int, passed: int) -> None:
        """Raises if the learner passed or used all their attempts, or (with confirmation
        on) has not confirmed their address."""
        if self.require_confirmed and learner.email_confirmed_at is None:
            raise unconfirmed(learner.email)
        if passed:
            raise Conflict("already_passed", N_("you have already passed this exam"))
        if used >= self.blueprint.max_attempts:
            raise Conflict(
                "attempt_limit",
                N_("attempt limit reached: {used} of {max} used"),
                used=used,
                max=self.blueprint.max_attempts,
            )

    def _start_once(self, token: str | None, language: str) -> str | dict:
        """The id of the open attempt to resume, or the view of a new one (built from what
        was just drawn and stored, without reading it back)."""
        # The look-ups and writes of a start run on the driver's cursor: through sessions
        # they cost a tenth of the start's CPU.
        dialect = self.db.engine.dialect
        with self.db.read_cursor() as cursor:
            learner = learner_by_key(cursor, dialect, token)
            if learner is not None:
                open_id, used, passed, expired = self._standing(cursor, learner.id)
        if learner is None:  # no key, an unknown one, or a registration not confirmed yet
            with self.db.read() as session:
                refuse_key(session, token)
        if expired:  # an expired open attempt is closed first
            for attempt_id in expired:
                self._close(learner.id, attempt_id, reason="expired")
            with self.db.read_cursor() as cursor:
                open_id, used, passed, _ = self._standing(cursor, learner.id)
        if open_id is not None:
            return open_id
        self._check_can_start(learner, used, passed)  # refuse before the costly draw
        # Draw (and render) the questions before taking the write lock: generators and JSON
        # cost milliseconds per question, and every answer save waits while the lock is held.
        # Each question's JSON is encoded once: stored, and sent in this answer as it is.
        seed = secrets.randbits(63)
        rows = [
            {
                "position": drawn.position,
                "chapter": drawn.chapter,
                "question_id": drawn.question_id,
                "instance_seed": drawn.instance_seed,
                "public": encode_json(learner_view(drawn.instance.public())),
                "key": encode_json(drawn.instance.key()),
            }
            for drawn in draw_questions(self.blueprint, self.engine.banks_for(language), seed)
        ]
        with self.db.write_cursor() as cursor:
            # Again under the write lock: a concurrent start may have won.
            open_id, used, passed, _ = self._standing(cursor, learner.id)
            if open_id is not None:
                return open_id
            self._check_can_start(learner, used, passed)
            now = utcnow()
            values = {
                "public_id": secrets.token_hex(12),
                "learner_id": learner.id,
                "exam_id": self.blueprint.exam_id,
                "number": used + 1,
                "seed": seed,
                "blueprint_digest": self.blueprint.digest,
                "status": "open",
                "started_at": now,
                "deadline_at": now + timedelta(seconds=self.blueprint.time_limit_s),
                "language": language,
            }
            attempt_pk = insert_attempt(cursor, dialect, values)
            insert_questions(cursor, dialect, attempt_pk, rows)
        # The row as stored (not attached to a session: only read below).
        attempt = Attempt(id=attempt_pk, closed_at=None, score=None, passed=None, **values)
        return self._body(attempt, None, [_Fresh(r) for r in rows], {})

    # ---- view -------------------------------------------------------------------------
    def view(self, token: str | None, attempt_id: str) -> dict:
        """What the learner may see of an attempt: while open, the public questions and the
        saved answers; once closed, the result. Each question's ``question`` is the stored
        JSON text (``RawJSON``): ``view_json`` encodes the whole answer."""
        with self.db.read() as session:
            attempt = find_learners_attempt(session, token, attempt_id)
            if attempt.status != "open" or not past_deadline(attempt.deadline_at):
                return self._read_body(session, attempt)
        self._close(attempt.learner_id, attempt_id, reason="expired")
        with self.db.read() as session:
            return self._read_body(session, find_learners_attempt(session, token, attempt_id))

    def _read_body(self, session, attempt: Attempt) -> dict:
        closed = attempt.status != "open"
        questions = question_rows(session, attempt.id, results=closed)
        answers = answer_rows(session, attempt.id)
        # Only a closed (passed) attempt has a credential.
        credential = (
            session.scalar(
                select(IssuedCredential).where(IssuedCredential.attempt_id == attempt.id)
            )
            if closed
            else None
        )
        return self._body(attempt, credential, questions, answers)

    def _body(self, attempt: Attempt, credential, questions, answers: dict) -> dict:
        body = summary(attempt, credential)
        body["exam"] = {"id": attempt.exam_id, "title": self.blueprint.title}
        body["pass_score"] = self.blueprint.pass_score
        closed = attempt.status != "open"
        body["remaining_s"] = (
            0.0 if closed else max(0.0, (as_utc(attempt.deadline_at) - utcnow()).total_seconds())
        )
        items = []
        for q in questions:
            item = {"index": q.position, "chapter": q.chapter, "question": RawJSON(q.public_json)}
            answer = answers.get(q.position)
            item["response"] = readable_response(answer.response) if answer else None
            item["revision"] = answer.revision if answer else 0
            if closed:
                item["score"] = q.score
                item["correct"] = q.correct
                item["feedback"] = q.feedback
            items.append(item)
        body["questions"] = items
        if closed:
            body["points"] = attempt.points
            body["max_points"] = attempt.max_points
        return body

    # ---- submit and grade -------------------------------------------------------------
    def submit(self, token: str | None, attempt_id: str) -> dict:
        """Close and grade the attempt once; later calls change nothing and return the same.
        A passed attempt gets its credential now."""
        with self.db.read() as session:
            attempt = find_learners_attempt(session, token, attempt_id)
        credential = None
        with self._heavy:
            closed = self._close(attempt.learner_id, attempt_id, reason="submitted")
            if closed is None or closed.attempt.passed:  # passed now, or before: issue if due
                try:
                    credential = self.credentials.ensure(attempt_id)
                except Exception:
                    # The grade stands; the credential is issued again on the next download.
                    log.exception("attempt %s: issuing the credential failed", attempt_id)
        if closed is None:  # closed before: the result as stored
            return self.view(token, attempt_id)
        # Closed now: the result from what was just graded, without reading it back.
        return self._body(closed.attempt, credential, closed.questions, closed.answers)

    def _close(self, learner_id: int, attempt_id: str, *, reason: str) -> Closed | None:
        """Grade and close an open attempt: it, its graded questions and its answers; None
        (and nothing written) if it was already closed. The row lock (PostgreSQL) / IMMEDIATE
        transaction (SQLite) makes concurrent closes of one attempt grade it exactly once."""
        with self.db.write() as session:
            attempt = session.scalar(
                select(Attempt)
                .where(Attempt.public_id == attempt_id, Attempt.learner_id == learner_id)
                .with_for_update()
            )
            if attempt is None:
                raise NotFound("no_attempt", N_("no such attempt for this learner"))
            if attempt.status != "open":
                return None
            late = past_deadline(attempt.deadline_at)
            questions = question_rows(session, attempt.id, keys=True)
            answers = answer_rows(session, attempt.id)
            language = attempt.language if attempt.language in LANGUAGES else "en"
            tr = translator(language, self.engine.locale_dir)
            grades, graded = [], []
            for q in questions:
                score, correct, feedback = self._grade(q, answers.get(q.position), tr)
                grades.append(
                    {"id": q.id, "score": score, "correct": correct, "feedback": feedback}
                )
                graded.append(_Graded(q, score, correct, feedback))
            store_grades(session, grades)
            points = sum(g["score"] for g in grades)
            max_points = float(len(grades))
            attempt.points = points
            attempt.max_points = max_points
            attempt.score = points / max_points if max_points else 0.0
            attempt.passed = bool(max_points) and attempt.score >= self.blueprint.pass_score - 1e-9
            attempt.status = "expired" if (reason == "expired" or late) else "submitted"
            attempt.closed_at = utcnow()
        log.info("attempt %s closed (%s): score %.3f", attempt_id, attempt.status, attempt.score)
        return Closed(attempt, graded, answers)

    def _grade(self, q, answer, tr=None):
        """(score, correct, feedback) for one drawn question (``grade_answer``)."""
        return grade_answer(self.engine, q, answer, tr)


class RawJSON(str):
    """JSON text already encoded (a stored question), sent on as it is by ``view_json``."""


class Closed(NamedTuple):
    """An attempt just closed, its graded questions (``_Graded``) and its answers by index."""

    attempt: Attempt
    questions: list
    answers: dict


class _Graded:
    """A question just graded, with the attributes of a closed attempt's view row."""

    __slots__ = ("position", "chapter", "public_json", "score", "correct", "feedback")

    def __init__(self, row, score: float, correct: bool, feedback: str):
        self.position = row.position
        self.chapter = row.chapter
        self.public_json = row.public_json
        self.score, self.correct, self.feedback = score, correct, feedback


class _Fresh:
    """A question just drawn, with the attributes of a stored question's view row."""

    __slots__ = ("position", "chapter", "public_json")

    def __init__(self, row: dict):
        self.position = row["position"]
        self.chapter = row["chapter"]
        self.public_json = row["public"]


def encode_json(value) -> str:
    """The JSON text stored for a question (and sent as it is): compact, UTF-8 text, by orjson
    (about three times faster than the standard encoder: a start encodes two texts per
    question). Values orjson refuses (an integer beyond 64 bits) go through the standard
    encoder. orjson writes NaN and infinities as null, as a browser's JSON.stringify does:
    drawn questions hold none (tests/exam/test_question_json.py draws every bank)."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return _STANDARD.encode(value)


# Compact, strict (no NaN), without the check for circular references (questions are trees).
_STANDARD = json.JSONEncoder(separators=(",", ":"), check_circular=False, allow_nan=False)


def view_json(body: dict) -> bytes:
    """An attempt's view (``Attempts.view``/``start``/``submit``) as the JSON bytes of its
    answer: the questions' stored JSON text is spliced in, not decoded and encoded again;
    everything else is encoded as the JSON responses are (compact, Unicode kept, no NaN)."""
    rest = {k: v for k, v in body.items() if k != "questions"}
    parts = []
    for item in body.get("questions", ()):
        fields = {k: v for k, v in item.items() if k != "question"}
        head = json.dumps(fields, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        question = item["question"]
        raw = question if isinstance(question, RawJSON) else encode_json(question)
        parts.append(f'{head[:-1]},"question":{raw}}}')
    head = json.dumps(rest, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f'{head[:-1]},"questions":[{",".join(parts)}]}}'.encode()
