"""``piepmatz serve``'s settings from the environment, as container platforms pass them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from piepmatz.cli import build_parser, main
from piepmatz.server.commands import environment_name

DOCS = Path(__file__).parents[2] / "docs" / "serving.md"


def test_every_option_may_come_from_the_environment_and_the_command_line_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PIEPMATZ_DATABASE_URL", "postgresql+asyncpg://piepmatz@db/piepmatz")
    monkeypatch.setenv("PIEPMATZ_PORT", "8001")
    monkeypatch.setenv("PIEPMATZ_REDIS", "redis://cache:6379/0")
    monkeypatch.setenv("PIEPMATZ_BOT", "deep=ismcts:iterations=20000 quick=greedy")
    monkeypatch.setenv("PIEPMATZ_MESSAGE_RATE", "12.5")
    monkeypatch.setenv("PIEPMATZ_LOG_FORMAT", "json")
    args = build_parser().parse_args(["serve"])
    assert args.database_url == "postgresql+asyncpg://piepmatz@db/piepmatz"
    assert (args.port, args.redis, args.message_rate, args.log_format) == (
        8001,
        "redis://cache:6379/0",
        12.5,
        "json",
    )
    assert args.bot == ["deep=ismcts:iterations=20000", "quick=greedy"]
    args = build_parser().parse_args(["serve", "--port", "9000", "--log-format", "text"])
    assert (args.port, args.log_format) == (9000, "text")
    upgrade = build_parser().parse_args(["db", "upgrade"])
    assert upgrade.database_url == "postgresql+asyncpg://piepmatz@db/piepmatz"


def test_a_setting_that_is_no_good_is_named_and_nothing_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PIEPMATZ_PORT", "eighty")
    monkeypatch.setenv("PIEPMATZ_LOG_LEVEL", "loud")
    # Other commands do not mind the server's settings.
    assert build_parser().parse_args(["demo"]).func is not None
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "PIEPMATZ_PORT='eighty' (for --port): not a number" in err
    assert "PIEPMATZ_LOG_LEVEL='loud' (for --log-level): one of critical, error" in err


def test_the_settings_table_names_every_option_and_its_variable() -> None:
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    options = {
        action.option_strings[0]: environment_name(action)
        for action in serve._actions
        if action.option_strings and action.dest != "help"
    }
    documented = dict(
        re.findall(r"^\| `(--[a-z-]+)[^|]*\| `(PIEPMATZ_[A-Z_]+)`", DOCS.read_text(), re.M)
    )
    assert documented == options


def test_the_log_level_and_format_are_taken_in_either_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As other programs (and Python's logging) write levels: INFO, WARNING.
    args = build_parser().parse_args(["serve", "--log-level", "DEBUG", "--log-format", "JSON"])
    assert (args.log_level, args.log_format) == ("debug", "json")
    monkeypatch.setenv("PIEPMATZ_LOG_LEVEL", "Warning")
    args = build_parser().parse_args(["serve"])
    assert (args.log_level, args.environment_problems) == ("warning", [])
