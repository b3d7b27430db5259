"""The migrations build exactly the schema ``db.py`` declares, on SQLite and PostgreSQL: a
column or index added to one and not the other fails here, not on a user's server."""

from __future__ import annotations

import asyncio
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
