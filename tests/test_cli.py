"""``piepmatz demo`` and ``piepmatz replay``: a game printed, recorded, and read back."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import piepmatz.bots
from piepmatz.cli import build_parser, main
from piepmatz.core import Game
from piepmatz.text import scoresheet

#: The repository.
ROOT = Path(__file__).resolve().parents[1]


def test_demo_records_a_game_that_replay_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.json"
    args = ["demo", "--players", "3", "--seed", "4", "--bots", "heuristic", "random"]
    assert main([*args, "--record", str(record)]) == 0
    shown = capsys.readouterr().out
    game = Game.from_record(json.loads(record.read_text()))
    assert game.state.is_over()
    assert shown.startswith("Piepmatz demo · standard rules · seed 4 · Player 1 (heuristic bot), ")
    labels = ["Player 1 (heuristic bot)", "Player 2 (random bot)", "Player 3 (heuristic bot)"]
    assert scoresheet.table(game.score(), labels) in shown
    assert main(["replay", str(record)]) == 0
    replayed = capsys.readouterr().out
    # A header saying what is replayed, then the same log as the demo printed.
    head, log = replayed.split("blind seeds.\n", 1)
    assert head.startswith("Replay of a game of Piepmatz · standard rules · seed 4 · ")
    assert log.split("\n\n")[0] == shown.split("\n", 1)[1].split("\n\n")[0]


def test_four_players_score_sheet_fits_80_columns_and_says_who_sat_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.json"
    assert main(["demo", "--players", "4", "--seed", "7", "--record", str(record)]) == 0
    *table, verdict, seating = capsys.readouterr().out.rstrip("\n").rsplit("\n\n", 1)[1].split("\n")
    heads = [f"Player {n}" for n in range(1, 5)]
    # A table cut by the terminal's edge is unreadable: the columns are headed short.
    assert max(len(line) for line in table) <= 80
    assert re.split(r"\s{2,}", table[0].strip()) == heads
    game = Game.from_record(json.loads(record.read_text()))
    assert verdict == scoresheet.verdict(game.score(), heads)
    assert seating == " · ".join(f"{head} (random bot)" for head in heads)


def test_demo_says_its_bots_are_random_unless_chosen(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "2", "--seed", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("Player 1 (random bot), Player 2 (random bot) (choose with --bots)")


def test_replay_reads_saves_and_tournament_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from piepmatz.tui.session import Session

    records = tmp_path / "games.jsonl"
    argv = ["tournament", "--players", "2", "--bots", "random", "heuristic", "--games", "2"]
    assert main([*argv, "--seed", "5", "--backend", "inline", "--records", str(records)]) == 0
    capsys.readouterr()
    docs = [json.loads(line) for line in records.read_text().splitlines()]
    assert main(["replay", str(records)]) == 2
    assert "choose one with --game N" in capsys.readouterr().err
    assert main(["replay", str(records), "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(docs) and listed[0].split()[0] == "0"
    index = docs[1]["tournament"]["index"]
    assert main(["replay", str(records), "--game", str(index)]) == 0
    out = capsys.readouterr().out
    seats = docs[1]["tournament"]["seats"]
    assert f"seed {docs[1]['options']['seed']}" in out.splitlines()[0]
    assert f"Player 1 ({seats[0]} bot)" in out
    # A terminal-game save of a finished game replays too.
    session = Session.new(["random", "random"], seed=6)
    while not session.state_over:
        session.bot_move()
    save = tmp_path / "save.json"
    session.save(save)
    assert main(["replay", str(save)]) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith(scoresheet.table(session.game.score(), [session.label(p) for p in range(2)]))
    )


class _Talker:
    name = "talker"

    def choose(self, view: object, legal: object, rng: object) -> str:
        return "draw deck"  # text, not an action id


def test_demo_names_a_bot_that_breaks_the_protocol(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "talker", lambda arg: _Talker())
    assert main(["demo", "--players", "2", "--seed", "1", "--bots", "talker"]) == 1
    err = capsys.readouterr().err
    assert "piepmatz demo: bot 'talker' in seat" in err
    assert "returned 'draw deck', not an action id" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "nobot"], "argument --bots: unknown bot 'nobot'"),
        (["--bots", "ismcts:iterations=abc"], "iterations='abc' is not a whole number"),
        (["--players", "2", "--bots", "random", "random", "random"], "3 bots for 2 seats"),
        (["--record", "/nonexistent/dir/g.json"], "/nonexistent/dir is not a writable directory"),
        (["--record", "."], ". is a directory, not a file"),
    ],
)
def test_demo_refuses_bad_arguments_before_playing(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--seed", "1", *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not JSON: Expecting value"),
        (b"\xff\xfe\x00garbage", "not JSON"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (b'{"format": "piepmatz-record", "version": ' + b"1" * 4400 + b"}", "a number too long"),
        (b'{"format": "piepmatz-record", "version": NaN}', "NaN is not a number JSON allows"),
        (b'{"format": "piepmatz-record"', "not JSON"),
        (b"[]", "record"),
    ],
)
def test_replay_refuses_broken_files_plainly(
    content: bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"piepmatz replay: {path}: ")
    assert message in captured.err and captured.out == ""


def test_replay_of_a_missing_file_or_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "gone.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["replay", str(tmp_path)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    lines = [json.dumps({"type": "new", "players": 4, "seed": 1})]
    lines += [json.dumps({"type": "state"})] * 3000  # far more than a pipe buffers
    requests.write_text("\n".join(lines) + "\n")
    with requests.open() as stdin:
        proc = subprocess.Popen(
            [sys.executable, "-m", "piepmatz.cli", "engine"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(10) == b'{"type": "'
        proc.stdout.close()  # as `piepmatz engine | head -c 10` does
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 141
    assert err == b""  # no BrokenPipeError traceback


@pytest.mark.parametrize(
    ("argv", "blocked", "extra"),
    [
        (
            ["tournament", "--players", "3", "--bots", "heuristic", "random", "--games", "12"],
            "tqdm",
            "sim",
        ),
        (["compare", "--rules", "standard", "overview", "--games", "4"], "openskill", "sim"),
        (["baselines", "--bots", "random", "greedy", "--deals", "1"], "tqdm", "sim"),
        (["envs", "check", "--players", "2"], "gymnasium", "envs"),
        (["envs", "layout"], "numpy", "envs"),
        (["play", "--text", "--seats", "random,random"], "textual", "tui"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(
    argv: list[str],
    blocked: str,
    extra: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ``None`` in sys.modules makes the import fail as if the package were not installed.
    # Modules of the project that import it are read again (an earlier test may have loaded them).
    users = ("piepmatz.envs.", "piepmatz.sim.", "piepmatz.tui.")
    for name in [
        m
        for m in sys.modules
        if m == blocked
        or m.startswith(blocked + ".")
        or (m.startswith(users) and not m.endswith(".commands"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, blocked, None)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f"needs the '{extra}' extra ({blocked} is not installed)" in lines[0]
    assert f"pip install 'piepmatz[{extra}]'" in lines[0]
    assert "Traceback" not in captured.err + captured.out


def command_parser(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices[command]
    return found


@pytest.mark.parametrize("command", ["demo", "replay", "verify", "engine"])
def test_help_describes_each_command_and_its_options(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    parser = command_parser(command)
    assert parser.description and " ".join(parser.description.split()) in shown
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, f"{action.option_strings} has no help"
            assert " ".join(action.help.split()) in shown
        for name in [*action.option_strings, action.metavar or ""]:
            assert str(name) in shown
    # A page of the documentation it points to is in the repository.
    for page in re.findall(r"docs/[\w/.-]+\.md", shown):
        assert (ROOT / page).is_file(), page


def test_one_rules_spec_for_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "g.json"
    spec = "standard:last_hand=false"
    assert (
        main(["demo", "--players", "2", "--seed", "2", "--rules", spec, "--record", str(record)])
        == 0
    )
    assert json.loads(record.read_text())["options"]["rules"]["last_hand"] is False
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["play", "--text", "--rules", "standard:last_hand=maybe"])
    assert "rule flag 'last_hand' is true or false" in capsys.readouterr().err


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand's parser under it, however deep."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _parsers(sub)
    return found


def test_every_option_of_every_command_has_help() -> None:
    from piepmatz.cli import build_parser

    parsers = _parsers(build_parser())
    assert len(parsers) > 10
    for parser in parsers:
        for action in parser._actions:
            if not isinstance(action, argparse._SubParsersAction) and action.dest != "help":
                assert action.help and action.help != argparse.SUPPRESS, (
                    f"{parser.prog} {'/'.join(action.option_strings) or action.dest}"
                )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["demo", "--players", "5"], "piepmatz demo: error: argument --players: invalid choice"),
        (["tournament", "--games", "0"], "piepmatz tournament: error: --games must be at least 1"),
        (["demo", "--rules", "foo"], "unknown rules preset 'foo'"),
        (["demo", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
def test_a_mistake_is_told_in_one_line_without_the_usage(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "usage:" not in err
    assert err.count("\n") == 1 and f"piepmatz {args[0]} --help says more" in err


@pytest.mark.parametrize(
    ("command", "subcommands"), [([], ["demo", "play"]), (["db"], ["upgrade"])]
)
def test_a_command_without_its_subcommand_lists_them(
    command: list[str], subcommands: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(command)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" not in err and "say what to do" in err
    for name in subcommands:
        assert f"piepmatz {' '.join([*command, name])} " in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from piepmatz import __version__

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"piepmatz {__version__}\n"


def test_python_dash_m_piepmatz_is_the_command() -> None:
    from piepmatz import __version__

    ran = subprocess.run(
        [sys.executable, "-m", "piepmatz", "--version"], capture_output=True, text=True, check=True
    )
    assert ran.stdout == f"piepmatz {__version__}\n"
