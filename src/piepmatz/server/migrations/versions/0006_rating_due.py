"""A rated table's rating is due until the verdict on its game is stored (``tables.rating``),
so that a game whose end was stored by a process that died before rating it is rated at the
next start.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rating", sa.String(8), nullable=True))
        batch.create_index("ix_tables_rating", ["rating"])
    # Rated tables still open are due; games already over were judged when they ended (or,
    # lost to a crash before, stay as they were: their verdict's moment has passed).
    tables = sa.table(
        "tables",
        sa.column("id", sa.String),
        sa.column("status", sa.String),
        sa.column("setup", sa.JSON),
        sa.column("rating", sa.String),
    )
    connection = op.get_bind()
    due = [
        row.id
        for row in connection.execute(
            sa.select(tables.c.id, tables.c.setup).where(tables.c.status != "over")
        )
        if (row.setup or {}).get("rated")
    ]
    if due:
        connection.execute(sa.update(tables).where(tables.c.id.in_(due)).values(rating="due"))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_rating")
        batch.drop_column("rating")
