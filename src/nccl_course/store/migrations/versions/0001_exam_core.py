"""Exam core: learners, attempts, drawn questions, answers.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "learners",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(40), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("email", sa.String(320), nullable=False, unique=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("public_id", sa.String(40), nullable=False, unique=True),
        sa.Column("learner_id", sa.Integer, sa.ForeignKey("learners.id"), nullable=False),
        sa.Column("exam_id", sa.String(100), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("blueprint_digest", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True)),
        sa.Column("score", sa.Float),
        sa.Column("points", sa.Float),
        sa.Column("max_points", sa.Float),
        sa.Column("passed", sa.Boolean),
        sa.UniqueConstraint("learner_id", "exam_id", "number"),
    )
    op.create_index("ix_attempts_learner_id", "attempts", ["learner_id"])
    op.create_table(
        "attempt_questions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("chapter", sa.String(100), nullable=False),
        sa.Column("question_id", sa.String(200), nullable=False),
        sa.Column("instance_seed", sa.BigInteger, nullable=False),
        sa.Column("public", sa.JSON, nullable=False),
        sa.Column("key", sa.JSON, nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("correct", sa.Boolean),
        sa.Column("feedback", sa.Text),
        sa.UniqueConstraint("attempt_id", "position"),
    )
    op.create_index("ix_attempt_questions_attempt_id", "attempt_questions", ["attempt_id"])
    op.create_table(
        "answers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False),
        sa.Column("question_index", sa.Integer, nullable=False),
        sa.Column("response", sa.JSON, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("attempt_id", "question_index"),
    )


def downgrade() -> None:
    op.drop_table("answers")
    op.drop_index("ix_attempt_questions_attempt_id", table_name="attempt_questions")
    op.drop_table("attempt_questions")
    op.drop_index("ix_attempts_learner_id", table_name="attempts")
    op.drop_table("attempts")
    op.drop_table("learners")
