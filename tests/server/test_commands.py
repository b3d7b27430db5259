"""``piepmatz serve`` and ``piepmatz db upgrade`` from the command line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from piepmatz.cli import build_parser, main
from piepmatz.server import db


def _schema(path: Path) -> tuple[set[str], list[str]]:
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        versions = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version")]
    return names, versions


def test_db_upgrade_creates_the_schema_once_and_again_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.db"
    url = f"sqlite+aiosqlite:///{path}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert url in capsys.readouterr().out
    names, versions = _schema(path)
    assert {"tables", "seats", "moves", "chat", "alembic_version"} <= names
    assert versions == ["0002"]
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert _schema(path) == (names, versions)


def test_the_default_database_is_a_file_in_the_users_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = db.default_database_url()
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'data' / 'piepmatz' / 'server.db'}"
    assert (tmp_path / "data" / "piepmatz").is_dir()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert db.default_database_url().startswith(
        f"sqlite+aiosqlite:///{tmp_path / 'home' / '.local' / 'share' / 'piepmatz'}"
    )


def test_serve_listens_on_loopback_port_8000_by_default() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.database_url) == ("127.0.0.1", 8000, None)
    assert main(["serve", "--bot-workers", "-1"]) == 2
