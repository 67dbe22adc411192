"""The look-ups every learner request makes: a key to its learner, an attempt id to *that
learner's* attempt, an attempt to its questions and answers; and the writes of a start (the
attempt, its drawn questions) and of a submit (the grades).

The hottest of them run on the driver's cursor with SQL written here, because through
SQLAlchemy a statement costs more CPU than the database's work for it; values are converted
by the column types as the ORM would, so rows written either way read back the same.

This is the one place that turns a learner key into a learner: another learner's attempt is
"not found", never "forbidden", so ids reveal nothing. The refusals are the exam's
(``nccl_course.exam.errors``; ``unconfirmed`` while a registration waits for its mailed link).
"""

from __future__ import annotations

import functools
from typing import NoReturn

from sqlalchemy import Text, bindparam, cast, select, update
from sqlalchemy.exc import IntegrityError

from nccl_course.exam.errors import NotFound, Unauthenticated
from nccl_course.exam.learners import token_hash, unconfirmed
from nccl_course.i18n.interface import N_
from nccl_course.store.models import Answer, Attempt, AttemptQuestion, EmailLink, Learner

_LEARNER_BY_KEY = select(*Learner.__table__.c).where(
    Learner.__table__.c.token_hash == bindparam("key_hash")
)


def find_learner(session, token: str | None) -> Learner:
    """The learner whose key this is (a copy, not attached to ``session``); Unauthenticated if
    there is no key or it is unknown, Forbidden (``unconfirmed``) if it is the key of a
    registration not confirmed yet."""
    if not token:
        refuse_key(session, token)
    row = session.execute(_LEARNER_BY_KEY, {"key_hash": token_hash(token)}).one_or_none()
    if row is None:
        refuse_key(session, token)
    # A copy not attached to the session (loading it through the ORM costs twice as much):
    # read it; change learners through a query of their own.
    return Learner(**row._mapping)


def refuse_key(session, token: str | None) -> NoReturn:
    """The refusal of a key that is no learner's: Unauthenticated without a key or for an
    unknown one, Forbidden (``unconfirmed``) for the key of a registration not confirmed yet."""
    if not token:
        raise Unauthenticated("no_token", N_("sign in first (register to get a learner key)"))
    pending = session.scalar(
        select(EmailLink.email).where(
            EmailLink.key_hash == token_hash(token),
            EmailLink.purpose == "register",
            EmailLink.used_at.is_(None),
        )
    )
    if pending is not None:
        raise unconfirmed(pending)
    raise Unauthenticated("bad_token", N_("unknown learner key: register or sign in again"))


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


def find_learners_attempt(session, token: str | None, attempt_id: str, *, lock=False) -> Attempt:
    """``find_attempt(find_learner(token), attempt_id)`` in one query when both exist (the
    common case); the same refusals otherwise (Unauthenticated, ``unconfirmed``, NotFound)."""
    query = (
        select(Attempt)
        .join(Learner, Learner.id == Attempt.learner_id)
        .where(Learner.token_hash == token_hash(token or ""), Attempt.public_id == attempt_id)
    )
    if lock:
        query = query.with_for_update(of=Attempt)
    attempt = session.scalar(query) if token else None
    if attempt is None:
        learner = find_learner(session, token)
        return find_attempt(session, learner, attempt_id, lock=lock)
    return attempt


# The drawn questions as stored JSON text: a view sends them on as they are, so a read neither
# decodes nor encodes them again (``cast`` to text: PostgreSQL's driver would decode JSON).
_PUBLIC_TEXT = cast(AttemptQuestion.public, Text).label("public_json")
_VIEW_COLUMNS = (AttemptQuestion.position, AttemptQuestion.chapter, _PUBLIC_TEXT)
_RESULT_COLUMNS = (AttemptQuestion.score, AttemptQuestion.correct, AttemptQuestion.feedback)


def question_rows(session, attempt_pk: int, *, results: bool = False, keys: bool = False):
    """An attempt's drawn questions in order, as rows: ``position``, ``chapter`` and
    ``public_json`` (the stored JSON text of what the learner sees); with ``results`` the
    grade (``score``, ``correct``, ``feedback``); with ``keys`` ``id``, ``question_id`` and the
    ``key`` (decoded) for grading."""
    columns = list(_VIEW_COLUMNS)
    if results:
        columns += _RESULT_COLUMNS
    if keys:
        columns += (AttemptQuestion.id, AttemptQuestion.question_id, AttemptQuestion.key)
    return session.execute(
        select(*columns)
        .where(AttemptQuestion.attempt_id == attempt_pk)
        .order_by(AttemptQuestion.position)
    ).all()


def answer_rows(session, attempt_pk: int) -> dict:
    """An attempt's saved answers by question index (rows: ``response``, ``revision``)."""
    return {
        row.question_index: row
        for row in session.execute(
            select(Answer.question_index, Answer.response, Answer.revision).where(
                Answer.attempt_id == attempt_pk
            )
        )
    }


# An attempt's drawn questions, inserted on the driver's cursor (executemany): through
# SQLAlchemy each row's parameters cost more CPU than the database's insert of it.
_INSERT_QUESTIONS = (
    "INSERT INTO attempt_questions "
    "(attempt_id, position, chapter, question_id, instance_seed, public, key) VALUES "
)
_QUESTION_VALUES = {
    "sqlite": "(?, ?, ?, ?, ?, ?, ?)",
    "postgresql": "(%s, %s, %s, %s, %s, CAST(%s AS JSON), CAST(%s AS JSON))",
}


def insert_questions(cursor, dialect, attempt_pk: int, rows: list[dict]) -> None:
    """Store an attempt's drawn questions (rows of ``position``, ``chapter``, ``question_id``,
    ``instance_seed``, ``public`` and ``key``) with the driver's ``cursor`` (in its
    transaction; ``dialect``: the engine's); ``public`` and ``key`` are JSON text already
    (encoded once: the same text the start's answer carries)."""
    cursor.executemany(
        _INSERT_QUESTIONS + _QUESTION_VALUES[dialect.name],
        [
            (
                attempt_pk,
                row["position"],
                row["chapter"],
                row["question_id"],
                row["instance_seed"],
                row["public"],
                row["key"],
            )
            for row in rows
        ],
    )


def store_grades(session, grades: list[dict]) -> None:
    """Each graded question's ``score``, ``correct`` and ``feedback`` (rows of ``id``,
    ``score``, ``correct``, ``feedback``), in one executemany."""
    table = AttemptQuestion.__table__
    statement = (
        update(table)
        .where(table.c.id == bindparam("g_id"))
        .values(
            score=bindparam("g_score"),
            correct=bindparam("g_correct"),
            feedback=bindparam("g_feedback"),
        )
    )
    session.execute(
        statement,
        [
            {
                "g_id": g["id"],
                "g_score": g["score"],
                "g_correct": g["correct"],
                "g_feedback": g["feedback"],
            }
            for g in grades
        ],
    )


# A start's look-up and insert of attempts, on the driver's cursor in the session's
# transaction (through SQLAlchemy they cost more CPU than the database's work); times are
# converted by the column types, as the ORM would.
_PLACEHOLDER = {"sqlite": "?", "postgresql": "%s"}
_ATTEMPT_COLUMNS = (
    "public_id",
    "learner_id",
    "exam_id",
    "number",
    "seed",
    "blueprint_digest",
    "status",
    "started_at",
    "deadline_at",
    "language",
)


def _identity(value):
    return value


@functools.lru_cache(maxsize=8)
def _time_processors(dialect):
    column = Attempt.__table__.c.deadline_at.type.dialect_impl(dialect)
    return (
        column.bind_processor(dialect) or _identity,
        column.result_processor(dialect, None) or _identity,
    )


def driver_cursor(session):
    """The driver's cursor on ``session``'s connection (in its transaction) and the dialect,
    for the cursor functions below; close the cursor when done."""
    connection = session.connection()
    return connection.connection.cursor(), connection.dialect


@functools.lru_cache(maxsize=8)
def _learner_processors(dialect) -> list:
    table = Learner.__table__
    return [
        column.type.dialect_impl(dialect).result_processor(dialect, None) or _identity
        for column in table.c
    ]


def learner_by_key(cursor, dialect, token: str | None) -> Learner | None:
    """The learner whose key this is (a copy attached to no session), or None if there is no
    key or it is unknown (``find_learner`` says why), with the driver's ``cursor``."""
    if not token:
        return None
    columns = Learner.__table__.c
    cursor.execute(
        f"SELECT {', '.join(c.name for c in columns)} FROM learners "
        f"WHERE token_hash = {_PLACEHOLDER[dialect.name]}",
        (token_hash(token),),
    )
    row = cursor.fetchone()
    if row is None:
        return None
    converted = (read(v) for read, v in zip(_learner_processors(dialect), row, strict=True))
    return Learner(**dict(zip((c.key for c in columns), converted, strict=True)))


def attempts_of(cursor, dialect, learner_pk: int) -> list[tuple]:
    """The learner's attempts as ``(public_id, exam_id, status, deadline_at, passed)``, with
    the driver's ``cursor``."""
    _, read_time = _time_processors(dialect)
    cursor.execute(
        "SELECT public_id, exam_id, status, deadline_at, passed FROM attempts "
        f"WHERE learner_id = {_PLACEHOLDER[dialect.name]}",
        (learner_pk,),
    )
    return [
        (p, e, s, read_time(d), None if x is None else bool(x))
        for p, e, s, d, x in cursor.fetchall()
    ]


def insert_attempt(cursor, dialect, values: dict) -> int:
    """Insert an attempt (``values``: every column of ``_ATTEMPT_COLUMNS``) with the driver's
    ``cursor``, in its transaction; its primary key. SQLAlchemy's IntegrityError when the
    unique (learner, exam, number) is taken (a concurrent start)."""
    write_time, _ = _time_processors(dialect)
    mark = _PLACEHOLDER[dialect.name]
    params = [values[c] for c in _ATTEMPT_COLUMNS]
    params[7], params[8] = write_time(params[7]), write_time(params[8])
    statement = (
        f"INSERT INTO attempts ({', '.join(_ATTEMPT_COLUMNS)}) "
        f"VALUES ({', '.join([mark] * len(_ATTEMPT_COLUMNS))}) RETURNING id"
    )
    try:
        cursor.execute(statement, params)
        (pk,) = cursor.fetchone()
    except dialect.loaded_dbapi.IntegrityError as exc:
        raise IntegrityError(statement, params, exc) from exc
    return pk
