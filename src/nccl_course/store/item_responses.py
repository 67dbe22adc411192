"""The graded questions of graded attempts, read for the item statistics
(``nccl_course.exam.item_stats``) in one query.

An attempt is graded once it is closed (``submitted`` or ``expired``): its questions then
carry a score in [0, 1]. One joined SELECT reads every graded question with what the
statistics need (the attempt, the position, the chapter, the question id, the score, the
blueprint digest); the question's objective and skill come out of its stored public JSON by
the database's own JSON operator (SQLite ``json_extract``, PostgreSQL ``->>``), so the
prompts and choices never leave the database.
"""

from __future__ import annotations

from sqlalchemy import func, select

from nccl_course.exam.item_stats import ItemResponse
from nccl_course.store.models import Attempt, AttemptQuestion

GRADED = ("submitted", "expired")


def graded_exams(session) -> list[tuple[str, int]]:
    """``(exam_id, graded attempts)`` of every exam in the database, most attempts first."""
    count = func.count(Attempt.id)
    rows = session.execute(
        select(Attempt.exam_id, count)
        .where(Attempt.status.in_(GRADED))
        .group_by(Attempt.exam_id)
        .order_by(count.desc(), Attempt.exam_id)
    ).all()
    return [(exam_id, n) for exam_id, n in rows]


def graded_responses(session, exam_id: str) -> list[ItemResponse]:
    """Every graded question of the graded attempts of ``exam_id``, by attempt and position."""
    public = AttemptQuestion.public
    statement = (
        select(
            AttemptQuestion.attempt_id,
            AttemptQuestion.position,
            AttemptQuestion.chapter,
            AttemptQuestion.question_id,
            AttemptQuestion.score,
            public["objective"].as_string(),
            public["skill"].as_string(),
            Attempt.blueprint_digest,
        )
        .join(Attempt, Attempt.id == AttemptQuestion.attempt_id)
        .where(
            Attempt.exam_id == exam_id,
            Attempt.status.in_(GRADED),
            AttemptQuestion.score.is_not(None),
        )
        .order_by(AttemptQuestion.attempt_id, AttemptQuestion.position)
    )
    return [
        ItemResponse(
            attempt=attempt,
            position=position,
            uid=f"{chapter}/{question_id}",
            chapter=chapter,
            score=float(score),
            objective=objective,
            skill=skill,
            form=digest,
        )
        for attempt, position, chapter, question_id, score, objective, skill, digest in (
            session.execute(statement)
        )
    ]
