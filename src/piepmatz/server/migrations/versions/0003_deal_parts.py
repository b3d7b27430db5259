"""Tables: how the deal's seed was made; seats: the part each person added to it.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Tables stored before keep no deal: their seed was the server's alone, and their records
    # say nothing of how it was made.
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("deal", sa.JSON, nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("part", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("part")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("deal")
