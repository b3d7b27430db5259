"""Players among strangers: accounts, their keys, ratings and their history, the waiting list
of "Find a game", blocks, mutes and reports (issue 46; ``db.py`` says what each column holds).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("username", sa.String(32), nullable=True),
        sa.Column("login", sa.String(32), nullable=True, unique=True),
        sa.Column("password", sa.String(256), nullable=True),
        sa.Column("created", _WHEN, nullable=False),
        sa.Column("page", sa.String(16), nullable=True, unique=True),
        sa.Column("mu", sa.Float, nullable=True),
        sa.Column("sigma", sa.Float, nullable=True),
        sa.Column("rated_games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("banned", _WHEN, nullable=True),
        sa.Column("ban_reason", sa.Text, nullable=True),
    )
    op.create_table(
        "keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id", ondelete="CASCADE")),
        sa.Column("created", _WHEN, nullable=False),
    )
    op.create_index("ix_keys_player_id", "keys", ["player_id"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "player_id",
            sa.String(64),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", _WHEN, nullable=False),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("players", sa.Integer, nullable=True),
    )
    op.create_index("ix_rating_history_player", "rating_history", ["player_id", "at"])
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("pace", sa.String(32), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("since", _WHEN, nullable=False),
        sa.Column("seen", _WHEN, nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
    )
    op.create_index("ix_seeks_waiting", "seeks", ["players", "pace", "since"])
    op.create_table(
        "blocks",
        sa.Column(
            "player_id",
            sa.String(64),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("blocked_id", sa.String(64), primary_key=True),
        sa.Column("since", _WHEN, nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
    )
    op.create_table(
        "mutes",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("by_id", sa.String(64), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("about_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("made", _WHEN, nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
        sa.Column("chat", sa.JSON, nullable=False),
        sa.Column("closed", _WHEN, nullable=True),
    )
    op.create_index("ix_reports_table_id", "reports", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_reports_table_id", "reports")
    op.drop_table("reports")
    op.drop_table("mutes")
    op.drop_table("blocks")
    op.drop_index("ix_seeks_waiting", "seeks")
    op.drop_table("seeks")
    op.drop_index("ix_rating_history_player", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_keys_player_id", "keys")
    op.drop_table("keys")
    op.drop_table("players")
