"""What a host is told about the database they name: a file that is no database, a schema a
newer Piepmatz migrated, a database in memory, a path with too few slashes, and what
``db upgrade`` did. Each is one line with exit status 2 that changes nothing, never a
traceback; every message names the database as the host wrote it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from piepmatz.cli import build_parser, main
from piepmatz.server import db
from serverprocs import free_port

HEAD = db.head_revision()


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``serve`` in this process: what it would have handed uvicorn, never a server."""
    import uvicorn

    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append((a, k)))
    return started


def _only_line(err: str, command: str) -> str:
    said = err.splitlines()
    assert len(said) == 1 and said[0].startswith(f"piepmatz {command}: "), err
    assert "Traceback" not in err
    return said[0]


def _revision(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(revision)


def test_a_file_that_is_no_database_is_said_by_every_command_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_server: list[Any]
) -> None:
    path = tmp_path / "x.db"
    path.write_text("hello\n")
    url = f"sqlite:///{path}"
    backup = tmp_path / "bk.db"
    commands = {
        "serve": ["serve", "--port", str(free_port()), "--bot-workers", "0"],
        "db upgrade": ["db", "upgrade"],
        "admin tables": ["admin", "tables"],
        "admin backup": ["admin", "backup", str(backup)],
    }
    for command, argv in commands.items():
        assert main([*argv, "--database-url", url]) == 2, command
        line = _only_line(capsys.readouterr().err, command)
        assert line == (
            f"piepmatz {command}: --database-url {url}: {path} is not an SQLite database "
            "(file is not a database): give the server's database file"
        )
    assert path.read_text() == "hello\n" and not backup.exists() and not no_server


def test_a_database_a_newer_piepmatz_migrated_is_left_alone_and_reading_it_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_server: list[Any]
) -> None:
    path = tmp_path / "server.db"
    url = f"sqlite:///{path}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099'")
    newer = (
        "the database was migrated by a newer Piepmatz (schema revision 0099); this version "
        f"knows the revisions up to {HEAD}"
    )
    capsys.readouterr()
    for argv in (["serve", "--port", str(free_port())], ["db", "upgrade"]):
        assert main([*argv, "--database-url", url]) == 2
        command = " ".join(argv[:2]) if argv[0] == "db" else "serve"
        line = _only_line(capsys.readouterr().err, command)
        assert line.startswith(f"piepmatz {command}: --database-url {url}: {newer}: ")
    # Reading goes on with a warning; writing (a ban, a purge, a close) changes nothing.
    assert main(["admin", "tables", "--database-url", url]) == 0
    out, err = capsys.readouterr()
    assert out == "no tables yet\n"
    assert _only_line(err, "admin tables").startswith("piepmatz admin tables: warning: --")
    assert newer in err
    ban = ["admin", "ban", "0123456789ab", "--reason", "x", "--database-url", url]
    assert main(ban) == 2
    assert newer in _only_line(capsys.readouterr().err, "admin ban")
    assert _revision(path) == "0099" and not no_server

    # The app's own migration says it in the same words, where alembic said "Can't locate".
    async def upgrade() -> None:
        engine = db.make_engine(db.database_url(url))
        try:
            await db.upgrade(engine)
        finally:
            await engine.dispose()

    with pytest.raises(db.NewerSchema, match=r"migrated by a newer Piepmatz \(schema revision"):
        asyncio.run(upgrade())
    # Another program's revision is not taken for a newer Piepmatz's.
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'ae1027a6acf'")
    assert main(["db", "upgrade", "--database-url", url]) == 2
    assert "is at revision 'ae1027a6acf', which no Piepmatz made" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "sqlite+aiosqlite://"])
def test_a_database_in_memory_is_refused_on_the_command_line(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "an SQLite database in memory is lost, every game with it, when the command ends"
    for argv in (["serve"], ["db", "upgrade"], ["admin", "tables"]):
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_args([*argv, "--database-url", url])
        assert refused.value.code == 2
        assert f"argument --database-url: {said}" in capsys.readouterr().err
    monkeypatch.setenv("PIEPMATZ_DATABASE_URL", url)
    assert main(["serve"]) == 2
    assert f"PIEPMATZ_DATABASE_URL={url!r} (for --database-url): {said}" in capsys.readouterr().err


def test_db_upgrade_says_what_it_migrated_or_that_there_was_nothing_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fresh.db"
    url = f"sqlite:///{path}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert (
        capsys.readouterr().out == f"migrated the database schema from nothing to {HEAD}: {url}\n"
    )
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert (
        capsys.readouterr().out == f"the database schema is up to date already, at {HEAD}: {url}\n"
    )

    # A database an older version left at 0004 is taken on from there.
    older = tmp_path / "older.db"

    async def to_0004() -> None:
        from alembic import command

        engine = db.make_engine(db.database_url(f"sqlite:///{older}"))
        try:
            async with engine.begin() as conn:
                await conn.run_sync(lambda sync: command.upgrade(db._alembic_config(sync), "0004"))
        finally:
            await engine.dispose()

    asyncio.run(to_0004())
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{older}"]) == 0
    assert capsys.readouterr().out.startswith(f"migrated the database schema from 0004 to {HEAD}")
    assert _revision(older) == HEAD


def test_a_relative_path_whose_folder_is_not_there_is_told_about_the_slashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    hint = (
        f"three slashes (sqlite:///tmp/x.db) name a path from the current folder ({tmp_path}), "
        "four (sqlite:////tmp/x.db) an absolute path"
    )
    assert main(["db", "upgrade", "--database-url", "sqlite:///tmp/x.db"]) == 2
    line = _only_line(capsys.readouterr().err, "db upgrade")
    assert line == (
        "piepmatz db upgrade: --database-url sqlite:///tmp/x.db: cannot make the database "
        f"there: there is no folder tmp; {hint}"
    )
    assert main(["admin", "tables", "--database-url", "sqlite:///tmp/x.db"]) == 2
    line = _only_line(capsys.readouterr().err, "admin tables")
    assert line.endswith(
        f"there is no file tmp/x.db: give the SQLite file the server keeps its games in; {hint}"
    )
    assert not (tmp_path / "tmp").exists()
    # An absolute path needs no such hint; a relative one whose folder is there works.
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{tmp_path}/none/x.db"]) == 2
    assert "slashes" not in capsys.readouterr().err
    assert main(["db", "upgrade", "--database-url", "sqlite:///x.db"]) == 0
    assert _revision(tmp_path / "x.db") == HEAD


def test_the_default_database_is_named_by_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("PIEPMATZ_DATABASE_URL", raising=False)
    path = tmp_path / "piepmatz" / "server.db"
    assert main(["db", "upgrade"]) == 0
    assert capsys.readouterr().out == (
        f"migrated the database schema from nothing to {HEAD}: SQLite file {path}\n"
    )
    assert main(["admin", "backup", str(path)]) == 2  # the copy may not overwrite it
    assert "exists: choose a new file" in capsys.readouterr().err
    path.write_bytes(b"not a database at all")
    assert main(["admin", "tables"]) == 2
    line = _only_line(capsys.readouterr().err, "admin tables")
    # It says where the server's own database is set, for a host at a shell without it.
    assert line.startswith(
        f"piepmatz admin tables: the default database (SQLite file {path}, as neither "
        "--database-url nor PIEPMATZ_DATABASE_URL is set): "
    )
