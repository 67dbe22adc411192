"""Status-list index registry in the course database (shared by workers and hosts).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "status_allocations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("issuer", sa.String(300), nullable=False),
        sa.Column("list_number", sa.Integer, nullable=False),
        sa.Column("list_index", sa.Integer, nullable=False),
        sa.Column("credential_id", sa.String(200), nullable=False, unique=True),
        sa.Column("issued_at", sa.String(40), nullable=False),
        sa.Column("revoked_at", sa.String(40)),
        sa.UniqueConstraint("issuer", "list_number", "list_index"),
    )


def downgrade() -> None:
    op.drop_table("status_allocations")
