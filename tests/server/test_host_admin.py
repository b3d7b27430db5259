"""``piepmatz admin`` as a host types it: a backup or an export that cannot be written, a
Redis that does not answer a close, the database named before the command, and players
named as the host knows them. Each refusal is one line and changes nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from piepmatz.args import new_game
from piepmatz.cli import main
from piepmatz.server import admin
from serverplay import local_hub, open_room
from serverprocs import free_port


def _only_line(err: str, command: str) -> str:
    said = err.splitlines()
    assert len(said) == 1 and said[0].startswith(f"piepmatz {command}: "), err
    return said[0]


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """A server's SQLite file with one table being played and one closed (over)."""
    path = tmp_path / "server.db"

    async def setup() -> None:
        async with local_hub(path) as hub:
            await open_room(hub, ["human", "human"], seed=1)
            over = await open_room(hub, ["human", "human"], seed=2)
            await admin.close_table(hub.store.engine, over.id)

    asyncio.run(setup())
    return path


def _statuses(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return sorted(r[0] for r in conn.execute("SELECT status FROM tables"))


def test_a_backup_that_cannot_be_written_is_said_and_leaves_no_file(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{database}"
    nowhere = tmp_path / "nonexistent-dir" / "bk.db"
    assert main(["admin", "backup", str(nowhere), "--database-url", url]) == 2
    assert _only_line(capsys.readouterr().err, "admin backup") == (
        f"piepmatz admin backup: there is no folder {nowhere.parent}: the copy goes into one "
        "that is"
    )
    # A name the file system cannot hold: sqlite3 could not open it (as a read-only folder).
    too_long = tmp_path / ("b" * 300 + ".db")
    assert main(["admin", "backup", str(too_long), "--database-url", url]) == 2
    line = _only_line(capsys.readouterr().err, "admin backup")
    assert line.startswith(f"piepmatz admin backup: cannot write the copy to {too_long} (")
    assert {p.name for p in tmp_path.iterdir()} <= {"server.db", "server.db-shm", "server.db-wal"}
    # The same, unhurt, is backed up into a folder that is there.
    assert main(["admin", "backup", str(tmp_path / "bk.db"), "--database-url", url]) == 0
    assert _statuses(tmp_path / "bk.db") == ["over", "playing"]


def test_purge_into_a_file_says_so_and_deletes_nothing(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "records.txt"
    existing.write_text("mine\n")
    purge = ["admin", "purge", "--finished-before", "2999-01-01", "--database-url"]
    assert main([*purge, f"sqlite:///{database}", "--export", str(existing)]) == 2
    assert _only_line(capsys.readouterr().err, "admin purge") == (
        f"piepmatz admin purge: {existing} is a file: --export names the folder the records "
        "are written to (nothing was deleted)"
    )
    assert existing.read_text() == "mine\n" and _statuses(database) == ["over", "playing"]
    folder = tmp_path / "records"
    assert main([*purge, f"sqlite:///{database}", "--export", str(folder)]) == 0
    assert _statuses(database) == ["playing"] and len(list(folder.glob("*.json"))) == 1


def test_a_close_redis_does_not_hear_is_done_and_said_with_how_servers_learn_it(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sqlite3.connect(database) as conn:
        (playing,) = conn.execute("SELECT id FROM tables WHERE status = 'playing'").fetchone()
    nobody = f"redis://127.0.0.1:{free_port()}/0"
    close = ["admin", "close", playing, "--database-url", f"sqlite:///{database}"]
    # A URL that is no Redis's is said before anything is closed.
    assert main([*close, "--redis", "http://127.0.0.1:6379"]) == 2
    assert "--redis http://127.0.0.1:6379: Redis URL must specify" in capsys.readouterr().err
    assert _statuses(database) == ["over", "playing"]
    assert main([*close, "--redis", nobody]) == 1  # done, but not all of it
    out, err = capsys.readouterr()
    assert out == f"closed {playing}: aborted at move 0\n"
    line = _only_line(err, "admin close")
    assert line.startswith(
        f"piepmatz admin close: --redis {nobody}: the serving processes could not be told "
        "(Redis does not answer: "
    )
    assert line.endswith(
        "the table is closed in the database, and a process holding it finds so when it next "
        f"stores a move or a seat at {playing}"
    )
    assert "Traceback" not in err and _statuses(database) == ["over", "over"]


def test_the_database_may_be_named_before_the_admin_command_too(
    database: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"sqlite:///{database}"
    assert main(["admin", "--database-url", url, "tables", "--status", "over"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2  # the heading and the table
    # The command's own wins over the one before it, and both over the environment's.
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    monkeypatch.setenv("PIEPMATZ_DATABASE_URL", elsewhere)
    assert main(["admin", "--database-url", elsewhere, "tables", "--database-url", url]) == 0
    assert main(["admin", "--database-url", url, "reports"]) == 0
    assert capsys.readouterr().out.endswith("no open reports (--all: the closed too)\n")
    assert main(["admin", "tables"]) == 2
    assert f"--database-url {elsewhere}: there is no file" in capsys.readouterr().err
    monkeypatch.setenv("PIEPMATZ_DATABASE_URL", "mysql://u@h/d")
    assert main(["admin", "tables"]) == 2
    assert "PIEPMATZ_DATABASE_URL='mysql://u@h/d' (for --database-url)" in capsys.readouterr().err
    # Said to a command with settings of its own too (close's --redis).
    assert main(["admin", "close", "x", "--database-url", url]) == 2
    assert "PIEPMATZ_DATABASE_URL='mysql://u@h/d'" in capsys.readouterr().err


ALICE = "26ff9f7b75ce" + "0" * 52
BEN = "b52383cbc54e" + "1" * 52


def _moderated(path: Path) -> None:
    """Alice, with an account, reported Ben, without one, at a table where he sat as Ben."""
    now = datetime.now(UTC)
    record = new_game(2, "standard", 7).record() | {"names": ["Alice", "Ben"]}
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO players (id, username, login, created, rated_games) "
            "VALUES (?, 'Alice', 'alice', ?, 0)",
            (ALICE, now),
        )
        conn.execute(
            "INSERT INTO reports (table_id, by_id, seat, about_id, reason, made, record, chat) "
            "VALUES ('t1', ?, 1, ?, 'abuse', ?, ?, '[]')",
            (ALICE, BEN, now, json.dumps(record)),
        )


def test_players_are_named_as_the_host_knows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "server.db"
    url = f"sqlite:///{path}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    _moderated(path)
    capsys.readouterr()
    # The account's own name, however the host typed it.
    assert main(["admin", "ban", "ALICE", "--reason", "x", "--database-url", url]) == 0
    assert capsys.readouterr().out == "banned Alice (26ff9f7b75ce): x\n"
    # Banned again: said so, the reason replaced.
    assert main(["admin", "ban", "alice", "--reason", "spam", "--database-url", url]) == 0
    assert capsys.readouterr().out == (
        "Alice (26ff9f7b75ce) was banned already (x); the reason is now: spam\n"
    )
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT ban_reason FROM players WHERE id LIKE '26ff%'").fetchall() == [
            ("spam",)
        ]
    assert main(["admin", "unban", "alice", "--database-url", url]) == 0
    assert capsys.readouterr().out == "unbanned Alice (26ff9f7b75ce)\n"
    # A player without one, by the id the reports show.
    assert main(["admin", "ban", BEN[:12], "--reason", "y", "--database-url", url]) == 0
    assert capsys.readouterr().out == "banned player b52383cbc54e: y\n"
    # Too little of an id: said what is needed, rather than that there is no such player.
    assert main(["admin", "ban", "26ff", "--reason", "x", "--database-url", url]) == 2
    assert _only_line(capsys.readouterr().err, "admin ban") == (
        "piepmatz admin ban: no account named '26ff', and a player's id is given by at least 8 "
        "of its first characters (the reports show 12)"
    )
    with sqlite3.connect(path) as conn:
        banned = conn.execute("SELECT id FROM players WHERE banned IS NOT NULL").fetchall()
    assert banned == [(BEN,)]
    # The report shows the seat by the name it had at the table, and the player behind it.
    assert main(["admin", "report", "1", "--database-url", url]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[1:3] == ["by: Alice", "about: seat 2, Ben (b52383cbc54e)"]
