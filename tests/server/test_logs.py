"""The server's log: time, level and logger on every line (text or JSON), repeated errors held
back, the info lines an operator looks for, and never a seat token."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from piepmatz.server import db, logs
from serverplay import post, ws_url
from serverprocs import free_port, serve_process


def _record(msg: str, *args: object, level: int = logging.ERROR) -> logging.LogRecord:
    return logging.LogRecord("piepmatz.server", level, __file__, 1, msg, args, None)


def test_the_same_error_is_written_once_a_window_and_then_says_how_often_it_came() -> None:
    now = [0.0]
    repeats = logs.Repeats(window=15.0, clock=lambda: now[0])
    written = []
    for i in range(99):  # "database unavailable", once per refused request for 14.9 s
        now[0] = i * 0.15
        record = _record("database unavailable: %s", f"connection refused ({i})")
        if repeats.filter(record):
            written.append(record.getMessage())
    assert written == ["database unavailable: connection refused (0)"]
    # Another message, and info lines, are not held back meanwhile.
    assert repeats.filter(_record("table %s: bot move not played", "x"))
    assert all(repeats.filter(_record("move", level=logging.INFO)) for _ in range(5))
    now[0] = 15.0
    record = _record("database unavailable: %s", "connection refused (99)")
    assert repeats.filter(record)
    assert record.getMessage() == (
        "database unavailable: connection refused (99) (98 more like it held back in the last 15 s)"
    )
    now[0] = 15.1
    assert not repeats.filter(_record("database unavailable: %s", "again"))


def test_a_count_no_later_copy_tells_is_told_once_its_window_is_over() -> None:
    """The error stops coming: its last copy says how many were held back once the window has
    passed, once; the next copy after that is written as the first was."""
    now = [0.0]
    repeats = logs.Repeats(window=15.0, clock=lambda: now[0])
    assert repeats.filter(_record("could not publish presence: %s", "closed (0)"))
    for i in range(1, 4):
        now[0] = i
        assert not repeats.filter(_record("could not publish presence: %s", f"closed ({i})"))
    now[0] = 14.0
    assert repeats.due() == []  # the window is not over: a later copy may still tell it
    now[0] = 20.0
    (told,) = repeats.due()
    assert told.levelno == logging.ERROR and told.name == "piepmatz.server"
    assert told.getMessage() == (
        "could not publish presence: closed (3) (3 more like it held back in the last 20 s)"
    )
    assert repeats.filter(told), "the count itself is not held back"
    assert repeats.due() == []
    now[0] = 40.0
    record = _record("could not publish presence: %s", "closed (4)")
    assert (
        repeats.filter(record) and record.getMessage() == "could not publish presence: closed (4)"
    )
    # When the server stops, every count still held is told, window over or not.
    now[0] = 41.0
    assert not repeats.filter(_record("could not publish presence: %s", "closed (5)"))
    assert repeats.due() == []
    (last,) = repeats.due(every=True)
    assert last.getMessage().endswith("(1 more like it held back in the last 1 s)")


@pytest.mark.usefixtures("root_logger")
def test_the_installed_handler_writes_the_counts_held_back() -> None:
    stream = io.StringIO()
    logs.configure("info", "text", stream)
    server = logging.getLogger("piepmatz.server")
    for i in range(3):
        server.warning("database unavailable: %s", f"refused ({i})")
    logs.tell_held_back()  # the window is not over
    assert stream.getvalue().count("database unavailable") == 1
    logs.tell_held_back(stopping=True)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and " WARNING piepmatz.server: " in lines[1]
    assert lines[1].endswith(
        "database unavailable: refused (2) (2 more like it held back in the last 0 s)"
    )


@pytest.fixture
def root_logger() -> Iterator[None]:
    """The root logger as it was, after a test that set it up."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("root_logger")
def test_text_lines_carry_time_level_and_logger_and_json_lines_are_objects() -> None:
    stream = io.StringIO()
    logs.configure("info", "text", stream)
    logging.getLogger("piepmatz.server").info("resumed %d unfinished tables", 3)
    logging.getLogger("piepmatz.server").debug("not at info")
    line = stream.getvalue().strip()
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO piepmatz\.server: resumed 3 unfinished tables",
        line,
    ), line
    stream = io.StringIO()
    logs.configure("warning", "json", stream)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("uvicorn.error").exception("failed")
    logging.getLogger("piepmatz.server").info("not at warning")
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["logger"] == "uvicorn.error"
    assert entry["message"] == "failed" and "RuntimeError: boom" in entry["exception"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", entry["time"])


def test_a_served_process_logs_json_lines_with_its_address_migrations_and_resumed_tables(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    port = free_port()
    options = ("--database-url", url, "--bot-workers", "0", "--log-format", "json")
    log_file = tmp_path / "first.log"
    with (
        log_file.open("wb") as output,
        serve_process(port, *options, "--log-level", "debug", output=output),
    ):

        async def play() -> str:
            address = f"127.0.0.1:{port}"
            made = await post(address, "/api/quick", {"name": "Ann", "bot": "random"})
            async with connect(ws_url(address, made["table"])) as seat:
                await seat.send(json.dumps({"type": "hello", "token": made["token"]}))
                assert json.loads(await seat.recv())["type"] == "welcome"
            token: str = made["token"]
            return token

        token = asyncio.run(play())
    entries = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    messages = [e["message"] for e in entries]
    # The database by its file (none other names it), and what was done to its schema.
    head = db.head_revision()
    database = f"database SQLite file {tmp_path / 'server.db'}"
    assert f"{database}: schema migrated from nothing to {head}" in messages
    assert any(f"127.0.0.1:{port}" in m for m in messages)  # where it listens
    assert any(e["logger"] == "uvicorn.access" for e in entries)
    # Even at debug level, where the WebSocket library dumps frames, the hello's token is not.
    assert token not in log_file.read_text()
    log_file = tmp_path / "second.log"
    with log_file.open("wb") as output, serve_process(port, *options, output=output):
        pass
    messages = [json.loads(line)["message"] for line in log_file.read_text().splitlines()]
    assert "resumed 1 unfinished tables" in messages
    assert f"{database}: schema is current (migration {head})" in messages
