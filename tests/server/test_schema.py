"""The migrations build exactly the schema ``db.py`` declares, on SQLite and PostgreSQL: a
column or index added to one and not the other fails here, not on a user's server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from piepmatz.server import db


async def _differences(url: str) -> list[Any]:
    engine = db.make_engine(url)
    try:
        await db.upgrade(engine)
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), db.metadata)
            )
    finally:
        await engine.dispose()


def test_the_migrations_build_the_declared_schema(database_url: str) -> None:
    assert asyncio.run(_differences(database_url)) == []


def test_a_column_left_out_of_the_migrations_is_found(sqlite_url: str) -> None:
    """The comparison is no formality: a column only declared shows as a difference."""
    from sqlalchemy import Column, Integer

    extra = Column("not_migrated", Integer, nullable=True)
    db.players.append_column(extra)
    try:
        found = asyncio.run(_differences(sqlite_url))
    finally:
        db.players._columns.remove(extra)
    assert [d[0] for d in found] == ["add_column"]
    assert found[0][3].name == "not_migrated"


def test_the_rating_migration_makes_open_rated_tables_due(database_url: str) -> None:
    """0006 marks the rated tables still open as due; finished and unrated ones stay unmarked
    (a finished game was judged when it ended)."""
    from alembic import command
    from sqlalchemy import insert, select

    async def run() -> dict[str, str | None]:
        engine = db.make_engine(database_url)
        try:
            async with engine.begin() as connection:
                await connection.run_sync(
                    lambda sync: command.upgrade(db._alembic_config(sync), "0005")
                )
                old = db.tables.c
                for table_id, status, rated in [
                    ("open-rated", "playing", True),
                    ("waiting-rated", "waiting", True),
                    ("open-friends", "playing", False),
                    ("over-rated", "over", True),
                ]:
                    await connection.execute(
                        insert(db.tables).values(
                            {
                                old.id: table_id,
                                old.options: {"players": 2, "rules": "standard", "seed": 1},
                                old.status: status,
                                old.public: False,
                                old.spectator_hash: "0" * 64,
                                old.created: datetime.now(UTC),
                                old.setup: {"rated": rated},
                            }
                        )
                    )
            await db.upgrade(engine)
            async with engine.connect() as connection:
                rows = await connection.execute(select(db.tables.c.id, db.tables.c.rating))
                return {row.id: row.rating for row in rows}
        finally:
            await engine.dispose()

    assert asyncio.run(run()) == {
        "open-rated": db.RATING_DUE,
        "waiting-rated": db.RATING_DUE,
        "open-friends": None,
        "over-rated": None,
    }
