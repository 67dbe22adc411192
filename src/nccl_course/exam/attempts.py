"""Attempts as the exam's rules see them: deadlines, what a learner may see, and grading.

Everything that decides a score runs on the server, with the quiz package's grader
(``grade_answer``, against the key stored when the question was drawn); the browser only ever
sees ``learner_view(QuestionInstance.public())`` and, once an attempt is closed, its own score
and feedback (``summary``). The functions read rows (``nccl_course.store.models``) by their
attributes and never query: starting, viewing and closing attempts in transactions is
``nccl_course.server.attempts``.

An attempt has a language (``Attempt.language``, chosen when it starts): what this module
writes into the feedback is in it (``nccl_course.i18n.interface``).
"""

from __future__ import annotations

import json
import logging
import math
from datetime import datetime, timedelta

from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.clock import as_utc, iso, utcnow
from nccl_course.i18n.interface import N_, translator

log = logging.getLogger("nccl_course.exam")

# Seconds after the deadline during which a save or submit still counts (requests in flight).
DEADLINE_GRACE_S = 5

# Fields of QuestionInstance.public() that must not reach the learner while an attempt is
# open: the instance seed re-creates the key from the (public) bank.
PRIVATE_PUBLIC_FIELDS = ("seed",)


def learner_view(public: dict) -> dict:
    """``public()`` without anything that would let a learner rebuild the key."""
    return {k: v for k, v in public.items() if k not in PRIVATE_PUBLIC_FIELDS}


def readable_response(value):
    """A stored response as the API may send it back. The answer route refuses what JSON
    cannot carry, but a row written before (NaN, Infinity, a lone surrogate) or by other
    means must not break the attempt's view or its grading: such a value reads as None."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError, RecursionError):
        return None
    return value


def past_deadline(deadline_at: datetime, grace_s: float = DEADLINE_GRACE_S) -> bool:
    return utcnow() > as_utc(deadline_at) + timedelta(seconds=grace_s)


def summary(attempt, credential=None) -> dict:
    """An attempt in the learner's list; the score only once it is closed."""
    closed = attempt.status != "open"
    return {
        "id": attempt.public_id,
        "number": attempt.number,
        "status": attempt.status,
        "started_at": iso(attempt.started_at),
        "deadline_at": iso(attempt.deadline_at),
        "closed_at": iso(attempt.closed_at),
        "language": attempt.language or "en",
        "score": attempt.score if closed else None,
        "passed": attempt.passed if closed else None,
        "credential_id": credential.credential_id if credential else None,
        "revoked": bool(credential and credential.revoked_at),
    }


def grade_answer(engine: QuizEngine, q, answer, tr=None):
    """(score, correct, feedback) for one drawn question (a stored ``AttemptQuestion``) and
    its saved ``Answer`` (None: not answered), graded by the quiz package
        against the key stored when the question was drawn (so a later edit of the bank
        cannot change what this attempt is graded against). ``tr``: the attempt's language
        (``nccl_course.i18n.interface.translator``), for the words written here."""
    tr = tr or translator("en")
    if answer is None:
        return 0.0, False, tr(N_("Not answered."))
    response = readable_response(answer.response)
    if response is None and answer.response is not None:
        return 0.0, False, tr(N_("The saved answer could not be read, so it scores nothing."))
    try:
        grade = engine.grade_key(q.key, response)
        score = float(grade.score)
    except Exception:  # a stored value the grader does not expect: never a failed submit
        log.exception("question %s: the saved answer could not be graded", q.question_id)
        return (
            0.0,
            False,
            tr(N_("The saved answer could not be graded, so it scores nothing.")),
        )
    score = min(1.0, max(0.0, score)) if math.isfinite(score) else 0.0
    feedback = str(grade.feedback or "")
    if grade.expected and not grade.correct:
        feedback += "\n\n" + tr(N_("Expected: {expected}"), expected=grade.expected)
    return score, bool(grade.correct), feedback
