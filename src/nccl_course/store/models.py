"""Tables of the course server (SQLAlchemy 2 declarative models).

The schema is owned by the Alembic migrations in ``nccl_course/store/migrations``; these models
mirror the head revision. Times are stored in UTC. Answer keys and seeds live only in these
tables: the API layer never serialises ``Attempt.seed``, ``AttemptQuestion.instance_seed`` or
``AttemptQuestion.key`` while an attempt is open.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Learner(Base):
    __tablename__ = "learners"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    email: Mapped[str] = mapped_column(String(320), unique=True, nullable=False)
    # SHA-256 of the learner's bearer token; the token itself is shown once and never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    # When the learner opened a link mailed to ``email`` (revision 0005); None: not confirmed.
    email_confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class EmailLink(Base):
    """A link mailed to an address (revision 0005; ``nccl_course.server.confirmations``): only
    the SHA-256 of its token is kept, it expires at ``expires_at`` and works once.

    ``purpose`` "register": a registration waiting for its address to be confirmed; the
    browser that registered holds the key whose hash is ``key_hash``, and ``learner_id`` names
    the learner the address already belonged to, if any. "confirm": a learner registered
    before confirmation (``learner_id``) confirms their address."""

    __tablename__ = "email_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    purpose: Mapped[str] = mapped_column(String(16), nullable=False)
    email: Mapped[str] = mapped_column(String(320), nullable=False)
    name: Mapped[str | None] = mapped_column(String(200))
    key_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    learner_id: Mapped[int | None] = mapped_column(ForeignKey("learners.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Attempt(Base):
    __tablename__ = "attempts"
    # The attempt number is unique per learner and exam, so two concurrent "start" requests
    # cannot both create attempt N: the attempt limit holds under races.
    __table_args__ = (UniqueConstraint("learner_id", "exam_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learners.id"), nullable=False, index=True)
    exam_id: Mapped[str] = mapped_column(String(100), nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    blueprint_digest: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="open")
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    deadline_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    score: Mapped[float | None] = mapped_column(Float)
    points: Mapped[float | None] = mapped_column(Float)
    max_points: Mapped[float | None] = mapped_column(Float)
    passed: Mapped[bool | None] = mapped_column(Boolean)
    # The language the attempt was drawn in, and its feedback and certificate are written in
    # (revision 0006; "en", "tr": nccl_course.i18n.interface.LANGUAGES).
    language: Mapped[str] = mapped_column(
        String(8), nullable=False, default="en", server_default="en"
    )


class AttemptQuestion(Base):
    __tablename__ = "attempt_questions"
    __table_args__ = (UniqueConstraint("attempt_id", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id"), nullable=False, index=True)
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    chapter: Mapped[str] = mapped_column(String(100), nullable=False)
    question_id: Mapped[str] = mapped_column(String(200), nullable=False)
    instance_seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    public: Mapped[dict] = mapped_column(JSON, nullable=False)
    key: Mapped[dict] = mapped_column(JSON, nullable=False)
    score: Mapped[float | None] = mapped_column(Float)
    correct: Mapped[bool | None] = mapped_column(Boolean)
    feedback: Mapped[str | None] = mapped_column(Text)


class Answer(Base):
    """One row per (attempt, question): saving again replaces the response (an upsert)."""

    __tablename__ = "answers"
    __table_args__ = (UniqueConstraint("attempt_id", "question_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id"), nullable=False)
    question_index: Mapped[int] = mapped_column(Integer, nullable=False)
    response: Mapped[object] = mapped_column(JSON, nullable=False)
    revision: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class IssuedCredential(Base):
    """A credential issued for a passed attempt (revision 0002)."""

    __tablename__ = "credentials"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    credential_id: Mapped[str] = mapped_column(String(200), unique=True, nullable=False)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id"), unique=True, nullable=False)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learners.id"), nullable=False, index=True)
    document: Mapped[dict] = mapped_column(JSON, nullable=False)
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revocation_reason: Mapped[str | None] = mapped_column(String(500))


class StatusAllocation(Base):
    """The status-list index of one credential (revision 0003; ``nccl_course.certs.registry``
    kept it in a SQLite file in the issuer's folder before). ``issuer`` is the issuer's DID:
    a data folder may hold several issuers, each with its own lists. The unique (issuer, list,
    index) is what keeps two processes or hosts from drawing the same index."""

    __tablename__ = "status_allocations"
    __table_args__ = (UniqueConstraint("issuer", "list_number", "list_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(300), nullable=False)
    list_number: Mapped[int] = mapped_column(Integer, nullable=False)
    list_index: Mapped[int] = mapped_column(Integer, nullable=False)
    credential_id: Mapped[str] = mapped_column(String(200), unique=True, nullable=False)
    issued_at: Mapped[str] = mapped_column(String(40), nullable=False)
    revoked_at: Mapped[str | None] = mapped_column(String(40))


class RateLimitCounter(Base):
    """One rate-limit window (revision 0004; ``nccl_course.server.ratelimit``): the key names the
    route group, the client and the limit; ``count`` requests since the window opened, which
    ends at ``expires_at`` (seconds since the epoch). Every worker and host on the database
    counts in the same row, so a limit holds across all of them."""

    __tablename__ = "rate_limit_counters"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, nullable=False)
    expires_at: Mapped[float] = mapped_column(Float, nullable=False, index=True)
