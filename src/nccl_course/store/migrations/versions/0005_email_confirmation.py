"""E-mail confirmation: when a learner confirmed their address, and the links mailed to them.

Also brings every stored address to the normal form registration uses
(``nccl_course.exam.learners.normalise_email``). ``learners.email`` has been unique since
revision 0001, so two rows can only collide once normalised (a row written by other means, or
before addresses were lower-cased). Such a collision does not stop the migration: the row that
already holds the normal form, else the oldest, gets it; the others keep their address as
stored, their key and their attempts, and are logged. Registering with the address then reaches
the learner that holds the normal form; the others cannot confirm it
(``nccl_course.server.confirmations``).

Learners registered before this revision are not confirmed: they confirm once, from the exam
page ("send the link again"), before their next attempt.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from nccl_course.exam.learners import normalise_email

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

log = logging.getLogger("nccl_course.store.migrations")


def upgrade() -> None:
    op.add_column("learners", sa.Column("email_confirmed_at", sa.DateTime(timezone=True)))
    op.create_table(
        "email_links",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("name", sa.String(200)),
        sa.Column("key_hash", sa.String(64)),
        sa.Column("learner_id", sa.Integer, sa.ForeignKey("learners.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_email_links_key_hash", "email_links", ["key_hash"])
    op.create_index("ix_email_links_learner_id", "email_links", ["learner_id"])
    normalise_stored_emails(op.get_bind())


def normalise_stored_emails(connection) -> list[int]:
    """Rewrite each address to its normal form where no other row holds it; the ids of the
    rows left as they were because another learner holds their normal form."""
    learners = sa.table("learners", sa.column("id", sa.Integer), sa.column("email", sa.String))
    rows = connection.execute(sa.select(learners.c.id, learners.c.email).order_by("id")).all()
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(normalise_email(row.email), []).append(row)
    left = []
    for normal, group in groups.items():
        holder = next((r for r in group if r.email == normal), group[0])
        if holder.email != normal:
            connection.execute(
                learners.update().where(learners.c.id == holder.id).values(email=normal)
            )
        left += [r.id for r in group if r is not holder]
    if left:
        log.warning(
            "%d learner(s) have an address another learner holds once normalised (ids %s); "
            "they keep their address as stored",
            len(left),
            ", ".join(map(str, left[:20])),
        )
    return left


def downgrade() -> None:
    op.drop_index("ix_email_links_learner_id", "email_links")
    op.drop_index("ix_email_links_key_hash", "email_links")
    op.drop_table("email_links")
    op.execute("ALTER TABLE learners DROP COLUMN email_confirmed_at")
