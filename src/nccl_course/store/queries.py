"""The look-ups every learner request makes: a key to its learner, an attempt id to *that
learner's* attempt, an attempt to its questions and answers.

This is the one place that turns a learner key into a learner: another learner's attempt is
"not found", never "forbidden", so ids reveal nothing. The refusals are the exam's
(``nccl_course.exam.errors``; ``unconfirmed`` while a registration waits for its mailed link).
"""

from __future__ import annotations

from sqlalchemy import select

from nccl_course.exam.errors import NotFound, Unauthenticated
from nccl_course.exam.learners import token_hash, unconfirmed
from nccl_course.i18n.interface import N_
from nccl_course.store.models import Answer, Attempt, AttemptQuestion, EmailLink, Learner


def find_learner(session, token: str | None) -> Learner:
    """The learner whose key this is; Unauthenticated if there is no key or it is unknown,
    Forbidden (``unconfirmed``) if it is the key of a registration not confirmed yet."""
    if not token:
        raise Unauthenticated("no_token", N_("sign in first (register to get a learner key)"))
    hashed = token_hash(token)
    learner = session.scalar(select(Learner).where(Learner.token_hash == hashed))
    if learner is None:
        pending = session.scalar(
            select(EmailLink.email).where(
                EmailLink.key_hash == hashed,
                EmailLink.purpose == "register",
                EmailLink.used_at.is_(None),
            )
        )
        if pending is not None:
            raise unconfirmed(pending)
        raise Unauthenticated("bad_token", N_("unknown learner key: register or sign in again"))
    return learner


def find_attempt(session, learner: Learner, attempt_id: str, *, lock=False) -> Attempt:
    """The learner's attempt with this public id (row-locked if ``lock``); NotFound if the
    attempt does not exist or belongs to someone else."""
    query = select(Attempt).where(Attempt.public_id == attempt_id, Attempt.learner_id == learner.id)
    if lock:
        query = query.with_for_update()
    attempt = session.scalar(query)
    if attempt is None:
        raise NotFound("no_attempt", N_("no such attempt for this learner"))
    return attempt


def questions_and_answers(session, attempt: Attempt) -> tuple[list, dict]:
    """An attempt's drawn questions in order, and its saved answers by question index."""
    questions = session.scalars(
        select(AttemptQuestion)
        .where(AttemptQuestion.attempt_id == attempt.id)
        .order_by(AttemptQuestion.position)
    ).all()
    answers = {
        a.question_index: a
        for a in session.scalars(select(Answer).where(Answer.attempt_id == attempt.id))
    }
    return questions, answers
