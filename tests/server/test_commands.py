"""``piepmatz serve`` and ``piepmatz db upgrade`` from the command line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from piepmatz.cli import build_parser, main
from piepmatz.server import db
from serverprocs import free_port


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
    assert versions == [db.head_revision()] and db.head_revision() is not None
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert _schema(path) == (names, versions)


def test_a_database_url_written_for_other_programs_reaches_the_same_database(
    postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As hosting platforms and libpq write them: the server's drivers take their place.
    assert db.database_url("postgres://u:p@h:5433/d") == "postgresql+asyncpg://u:p@h:5433/d"
    assert (
        db.database_url("postgresql://h/d?sslmode=require")
        == "postgresql+asyncpg://h/d?ssl=require"
    )
    assert db.database_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert db.database_url("sqlite+aiosqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    # The upgrade works on them; a password is starred out where it is said.
    plain = postgres_url.replace("postgresql+asyncpg://postgres@", "postgres://postgres:hush@")
    assert main(["db", "upgrade", "--database-url", plain + "?sslmode=disable"]) == 0
    said = capsys.readouterr().out
    # Said as the host wrote it, not as the driver's URL.
    assert ": postgres://postgres:***@" in said and "hush" not in said
    path = tmp_path / "games.db"
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{path}"]) == 0
    assert _schema(path)[1] == [db.head_revision()]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("games.db", "not a database URL: write sqlite:///PATH or postgresql://"),
        ("mysql://u@h/d", "games are stored in SQLite or PostgreSQL, not mysql"),
        (
            "postgresql+psycopg2://u@h/d",
            "the server reaches postgresql through asyncpg, not psycopg2",
        ),
    ],
)
def test_a_database_url_the_server_cannot_use_is_refused_as_it_is_read(
    url: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(["serve", "--database-url", url])
    assert refused.value.code == 2
    assert f"argument --database-url: {said}" in capsys.readouterr().err
    monkeypatch.setenv("PIEPMATZ_DATABASE_URL", url)
    assert main(["db", "upgrade"]) == 2
    assert f"PIEPMATZ_DATABASE_URL={url!r} (for --database-url): {said}" in capsys.readouterr().err


def test_a_database_that_cannot_be_opened_is_said_in_one_line_and_nothing_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nobody = f"postgresql://piepmatz:hush@127.0.0.1:{free_port()}/games"
    assert main(["serve", "--database-url", nobody]) == 2
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line.startswith("piepmatz serve: ")]
    assert len(said) == 1, err
    assert said[0].startswith("piepmatz serve: --database-url postgresql://piepmatz:***@")
    assert ": cannot open the database (" in err and "Connect call failed" in err
    assert "hush" not in err and "Traceback" not in err
    folder = tmp_path / "no such folder"
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{folder}/games.db"]) == 2
    said = capsys.readouterr().err
    assert f"cannot make the database there: there is no folder {folder}\n" in said
    assert not folder.exists()


def test_serve_refuses_a_port_that_is_none_before_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for port in ("0", "65536", "99999"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--port", port])
        assert f"argument --port: a port is from 1 to 65535, not {port}" in capsys.readouterr().err
    assert build_parser().parse_args(["serve", "--port", "65535"]).port == 65535


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


def test_serve_refuses_a_bot_timeout_of_no_time_and_a_plugin_that_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.bot_timeout, args.plugin) == (30.0, [])
    assert main(["serve", "--bot-timeout", "0"]) == 2
    assert "--bot-timeout must be more than 0" in capsys.readouterr().err
    missing = tmp_path / "nobots.py"
    assert main(["serve", "--plugin", str(missing)]) == 2
    assert f"no such file ({missing})" in capsys.readouterr().err


def test_serve_refuses_a_redis_it_cannot_use_before_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--redis", "http://127.0.0.1:6379"]) == 2
    assert "--redis http://127.0.0.1:6379: Redis URL must specify" in capsys.readouterr().err
    nobody = f"redis://127.0.0.1:{free_port()}/0"
    assert main(["serve", "--redis", nobody]) == 2
    assert f"--redis {nobody}: Redis does not answer" in capsys.readouterr().err
    # Its password is not repeated (messages end up in logs).
    assert main(["serve", "--redis", nobody.replace("//", "//:hush@")]) == 2
    err = capsys.readouterr().err
    assert "--redis redis://:***@127.0.0.1:" in err and "hush" not in err


def test_serve_sets_the_budgets_of_hints_and_reviews_and_refuses_bad_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The default database is opened before the server starts: here, not in the user's home.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    args = build_parser().parse_args(["serve"])
    assert (args.hint_bot, args.hint_iterations, args.review_iterations) == ("hard", 2000, 1000)
    assert main(["serve", "--hint-iterations", "0"]) == 2
    assert "--hint-iterations must be 1 or more, not 0" in capsys.readouterr().err
    assert main(["serve", "--review-iterations", "-5"]) == 2
    assert "--review-iterations must be 1 or more, not -5" in capsys.readouterr().err
    assert main(["serve", "--hint-bot", "oracle"]) == 2
    assert "--hint-bot: unknown bot 'oracle'" in capsys.readouterr().err

    import uvicorn

    import piepmatz.server.app

    made: dict[str, object] = {}
    monkeypatch.setattr(piepmatz.server.app, "create_app", lambda *a, **k: made.update(k))
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    budgets = ["--hint-bot", "heuristic", "--hint-iterations", "50", "--review-iterations", "70"]
    # A port of its own: serve tries it before it starts.
    port = ["--port", str(free_port())]
    assert main(["serve", "--bot-workers", "0", *port, *budgets]) == 0
    assert (made["hint_bot"], made["hint_iterations"], made["review_iterations"]) == (
        "heuristic",
        50,
        70,
    )


def test_a_readiness_probe_writes_nothing_to_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``/readyz`` reads the schema's revision every few seconds: no line of Alembic's each
    time. A migration still says what it runs."""
    import logging

    from sqlalchemy import create_engine

    path = tmp_path / "games.db"
    caplog.set_level(logging.INFO)
    assert main(["db", "upgrade", "--database-url", f"sqlite:///{path}"]) == 0
    assert any("Running upgrade" in r.getMessage() for r in caplog.records)
    caplog.clear()
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert db.current_revision(connection) == db.head_revision()
    engine.dispose()
    assert [r.getMessage() for r in caplog.records] == []


def test_a_newer_version_installed_over_a_running_server_is_not_taken_for_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running server knows the migrations it started with: once a newer version is
    installed over it (its migration files on disk), it still says which schema it needs, so
    its readiness fails on the newer schema until it is restarted."""
    import shutil

    head = db.head_revision()
    assert head is not None
    scripts = tmp_path / "migrations"
    shutil.copytree(Path(db.__file__).parent / "migrations", scripts)
    newer = f"{int(head) + 1:04d}"
    (scripts / "versions" / f"{newer}_newer.py").write_text(
        f'revision = "{newer}"\ndown_revision = "{head}"\nbranch_labels = None\n'
        "depends_on = None\n\n\ndef upgrade():\n    pass\n\n\ndef downgrade():\n    pass\n"
    )
    configure = db._alembic_config

    def installed_over(connection: object = None) -> object:
        config = configure(connection)  # type: ignore[arg-type]
        config.set_main_option("script_location", str(scripts))
        return config

    monkeypatch.setattr(db, "_alembic_config", installed_over)
    assert db.known_revision(newer), "the files on disk are the newer version's"
    assert db.head_revision() == head, "the running process keeps the head it started with"
