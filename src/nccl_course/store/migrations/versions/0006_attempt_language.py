"""Attempts in a language: the language an attempt's questions were drawn in.

``attempts.language`` ("en", "tr") is the language of the attempt's questions, of the feedback
the server writes when it grades them, and of its printed certificate
(``nccl_course.exam.attempts``, ``nccl_course.certs.render``). Every attempt before this
revision was drawn in English: the column's server default fills them in.

The confirmation mails need nothing stored: each is written in the language of the request that
sends it (registration, "send the link again").

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "attempts",
        sa.Column("language", sa.String(8), nullable=False, server_default="en"),
    )


def downgrade() -> None:
    op.execute("ALTER TABLE attempts DROP COLUMN language")
