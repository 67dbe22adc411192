"""Credentials issued for passed attempts, with revocation.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "credentials",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("credential_id", sa.String(200), nullable=False, unique=True),
        sa.Column(
            "attempt_id", sa.Integer, sa.ForeignKey("attempts.id"), nullable=False, unique=True
        ),
        sa.Column("learner_id", sa.Integer, sa.ForeignKey("learners.id"), nullable=False),
        sa.Column("document", sa.JSON, nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
        sa.Column("revocation_reason", sa.String(500)),
    )
    op.create_index("ix_credentials_learner_id", "credentials", ["learner_id"])


def downgrade() -> None:
    op.drop_index("ix_credentials_learner_id", table_name="credentials")
    op.drop_table("credentials")
