"""Paces, stand-ins, endings and returning players.

Tables: their pace, stand-in and resign rule (``setup``), the clock when a person came back
(``clock``), how the game ended (``ending``). Seats: the player key's hash, why a stand-in plays
there, and whether the person asked to abort. Moves: when each was stored, everyone's time
then, and the stand-in that made it for a person.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Tables stored before have no setup: they are untimed, with the medium stand-in.
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("setup", sa.JSON, nullable=True))
        batch.add_column(sa.Column("clock", sa.JSON, nullable=True))
        batch.add_column(sa.Column("ending", sa.JSON, nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("absent", sa.String(16), nullable=True))
        batch.add_column(sa.Column("abort", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.create_index("ix_seats_player_hash", ["player_hash"])
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("at", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("clock", sa.JSON, nullable=True))
        batch.add_column(sa.Column("by", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("by")
        batch.drop_column("clock")
        batch.drop_column("at")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_player_hash")
        batch.drop_column("abort")
        batch.drop_column("absent")
        batch.drop_column("player_hash")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("ending")
        batch.drop_column("clock")
        batch.drop_column("setup")
