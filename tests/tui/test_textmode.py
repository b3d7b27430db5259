"""``piepmatz play --text`` driven through a real pipe, to the end of a game."""

from __future__ import annotations

import io
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import piepmatz.bots
import piepmatz.bots.plugins
from botfiles import plugin_file
from piepmatz.cli import main
from piepmatz.text import scoresheet
from piepmatz.text.scoresheet import explain
from piepmatz.text.words import species_names
from piepmatz.tui.render import score_sheet_text
from piepmatz.tui.session import Session, load_kept
from piepmatz.tui.textmode import TextGame

PROMPT = re.compile(rb"Player (\d) \(([^)]+)\)> $")
COMMAND = [sys.executable, "-c", "from piepmatz.cli import main; raise SystemExit(main())"]


class Pipe:
    """A running ``piepmatz play --text`` (or another ``command``'s) with its stdin and stdout
    as pipes."""

    def __init__(self, *args: str, command: str = "play") -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [*COMMAND, command, "--text", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def read(self) -> tuple[str, re.Match[bytes] | None]:
        """Output up to the next prompt (or the end); the prompt's match, if any."""
        assert self.proc.stdout is not None
        buf = b""
        while True:
            chunk = self.proc.stdout.read1(65536)  # type: ignore[attr-defined]
            if not chunk:
                return buf.decode(), None
            buf += chunk
            match = PROMPT.search(buf)
            if match:
                return buf.decode(), match

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()


#: A bird in the engine's code (``BL5m``), and one in words (``House sparrow 5♀``).
CODE = re.compile(r"\b[A-Z]{2}[1-6][mf]\b")
WORDS = re.compile(r"\b[A-Z][a-z]+(?: [a-z]+)? [1-6][♂♀]")


def legal_from_help(text: str) -> list[str]:
    """The notation of each move ``help`` listed: in brackets after the move in words, or
    (``--codes``) first, lined up."""
    if "Legal actions (type one as shown, or its number):\n" in text:
        lines = text.split("Legal actions (type one as shown, or its number):\n", 1)[1]
        return [line[5:25].strip() for line in lines.splitlines() if line[:3].strip().isdigit()]
    lines = text.split("Legal actions (type a number, or the notation in brackets):\n", 1)[1]
    found = [re.fullmatch(r" *\d+\. .+ \(([^()]+)\)", line) for line in lines.splitlines()]
    return [f.group(1) for f in found if f]


def test_a_whole_game_through_a_pipe() -> None:
    pipe = Pipe("--seats", "human,random", "--seed", "3")
    out, prompt = pipe.read()
    assert "YOUR HAND (Player 1)" in out and "PERCHES" in out and "SEED COLUMN" in out
    assert prompt is not None
    decisions = 0
    transcript = out
    while prompt is not None:
        pipe.send("help")
        helped, prompt = pipe.read()
        legal = legal_from_help(helped)
        assert legal and prompt is not None
        pipe.send(legal[0])
        out, prompt = pipe.read()
        transcript += out
        decisions += 1
        assert decisions < 400
    assert pipe.proc.wait(timeout=30) == 0
    assert decisions > 20  # a whole game, not an early exit
    # Birds in words, as a screen reader reads them out; their codes only in help's brackets.
    assert WORDS.search(transcript.split("YOUR HAND (Player 1)  ", 1)[1].splitlines()[0])
    assert not CODE.search(transcript)
    # Seeds by their eggs in words too ("1: 3 eggs, 2: 1 egg"), not "S3".
    assert re.search(r"^SEED COLUMN  1: [1-3] eggs?, 2: ", transcript, re.MULTILINE)
    assert not re.search(r"\bS[1-3]\b", transcript)
    # Seats as people count them, seeds by their eggs, plurals right.
    assert "Turn 1: Player " in transcript and "Player 0" not in transcript
    assert "-egg seed" in transcript and "(seed (" not in transcript
    assert " 1 eggs" not in transcript
    # The same choices in-process give the same final score sheet.
    session = Session.new(["human", "random"], seed=3)
    while not session.state_over:
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()
    expected = score_sheet_text(session.game.score(), [session.label(p) for p in range(2)]).plain
    assert "\n" + expected.rstrip() + "\n\nPlayer 1 (person)\n  Seeds " in transcript
    assert "The game is over." in transcript


def test_codes_show_the_birds_as_a_script_reads_them() -> None:
    pipe = Pipe("--seats", "human,random", "--seed", "3", "--codes")
    out, prompt = pipe.read()
    assert prompt is not None
    hand = out.split("YOUR HAND (Player 1)  ", 1)[1].splitlines()[0].split()
    assert len(hand) == 4 and all(CODE.fullmatch(card) for card in hand)
    assert not WORDS.search(out.split("PERCHES", 1)[1])
    assert re.search(r"^SEED COLUMN  1:S[1-3] 2:S", out, re.MULTILINE)
    pipe.send("help")
    helped, _ = pipe.read()
    legal = legal_from_help(helped)
    assert legal and all(re.fullmatch(r"play [A-Z]{2}[1-6][mf] [12]", a) for a in legal)
    pipe.send("quit")
    assert pipe.proc.wait(timeout=30) == 0


def test_end_of_input_quits_cleanly(data_home: Path) -> None:
    pipe = Pipe("--seats", "human,random,random", "--seed", "1")
    _, prompt = pipe.read()
    assert prompt is not None
    assert pipe.proc.stdin is not None
    pipe.proc.stdin.close()
    rest, prompt = pipe.read()
    assert prompt is None
    # The bots moved first: the game is kept, as after every move, and the line says so.
    kept = data_home / "autosave.json"
    assert rest.splitlines()[-1] == (
        f"You left the game; it is kept in {kept}: "
        f"piepmatz play --text --resume {kept} goes on with it."
    )
    assert pipe.proc.wait(timeout=30) == 0
    assert Session.load(kept).game.actions


def test_save_in_text_mode_and_resume_where_it_stopped(tmp_path: Path) -> None:
    session = next(
        s for seed in range(20) if (s := Session.new(["human", "random"], seed=seed)).to_act == 0
    )
    legal = session.game.state.legal_actions()  # the person plays first
    path = tmp_path / "game.json"
    path.write_text("an older file")
    commands = (
        f"save\nsave {tmp_path / 'no' / 'dir.json'}\n{legal[0]}\nsave {path}\n"
        f"save --replace {path}\nquit\n"
    )
    out, err = io.StringIO(), io.StringIO()
    # A script whose lines were refused ends with exit status 1, errors on stderr.
    assert TextGame(session, out, io.StringIO(commands), err=err).run() == 1
    text, errors = out.getvalue(), err.getvalue()
    assert "error: name the file: save mygame.json" in errors
    assert "error: cannot write" in errors
    assert f"error: {path} exists already" in errors and "save --replace FILE" in errors
    assert "error" not in text
    assert f"Saved to {path}: go on with piepmatz play --text --resume {path}" in text
    # Left with no move since the save: where it is kept, not a warning that it is not.
    assert f"You left the game; it is saved in {path}." in text
    assert "unfinished" not in text
    resumed = Session.load(path)
    assert resumed.seats == ["human", "random"]
    assert resumed.game.actions == session.game.actions and resumed.game.actions[0] == legal[0]
    # Saved, then a move: leaving warns again.
    session = Session.load(path)
    move = session.game.state.legal_actions()[0]
    out = io.StringIO()
    commands = f"save {tmp_path / 'early.json'}\n{move}\nquit\n"
    assert TextGame(session, out, io.StringIO(commands), err=io.StringIO()).run() == 0
    assert "You left the game unfinished (save FILE first keeps it)." in out.getvalue()


class _Broken:
    name = "broken"

    def choose(self, view: object, legal: object, rng: object) -> str:
        return "pass"  # text, not an action id


def test_a_bot_that_breaks_the_protocol_stops_the_text_game_plainly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "broken", lambda arg: _Broken())
    session = Session.new(["broken", "random"], seed=3)
    out = io.StringIO()
    assert TextGame(session, out, io.StringIO()).run() == 1
    text = out.getvalue()
    assert "error: Player 1 (broken bot) returned 'pass', not an action id" in text
    assert text.rstrip().endswith("the game stops here.")
    assert session.to_act == 0 and not session.state_over  # the bad answer was not played


def test_text_game_in_process_all_bots_print_every_event() -> None:
    out = io.StringIO()
    session = Session.new(["random", "random", "random"], seed=4)
    assert TextGame(session, out, io.StringIO()).run() == 0
    text = out.getvalue()
    assert session.state_over
    assert text.count("Turn ") >= session.game.state.turn
    assert "wins" in text or "share the win" in text


def test_unknown_bot_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--text", "--seats", "human,grandmaster"]) == 2
    err = capsys.readouterr().err
    assert "grandmaster" in err and "unknown bot" in err and "human" in err


def test_a_plugin_bot_takes_a_seat(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})
    plugin = plugin_file(tmp_path / "mybots.py", "first")
    assert main(["play", "--text", "--seats", "first,random", "--seed", "3"]) == 2
    assert "unknown bot 'first'" in capsys.readouterr().err
    args = ["play", "--text", "--seats", "first,random", "--seed", "3", "--plugin", str(plugin)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "first" in out and ("wins" in out or "share the win" in out)
    assert main(["play", "--text", "--plugin", str(tmp_path / "gone.py")]) == 2
    assert "argument --plugin: plugin" in capsys.readouterr().err


def test_the_way_back_to_a_game_with_a_plugins_bot_loads_the_plugin(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data_home: Path,
) -> None:
    """A save names its bots, never their code: the command that goes on with it gives the
    plugin again, and works as printed."""
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    monkeypatch.setattr(piepmatz.bots.plugins, "_LOADED", {})
    plugin = plugin_file(tmp_path / "my bots.py", "first")
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    args = ["play", "--text", "--seats", "human,first", "--seed", "3", "--plugin", str(plugin)]
    assert main(args) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    kept = data_home / "autosave.json"
    command = f"piepmatz play --text --plugin '{plugin}' --resume {kept}"
    assert last == f"You left the game; it is kept in {kept}: {command} goes on with it."
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(shlex.split(command)[1:]) == 0
    assert "unknown bot" not in capsys.readouterr().err


def test_too_few_seats_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--text", "--seats", "human"]) == 2
    assert "2, 3 or 4 seats" in capsys.readouterr().err


def test_resume_of_a_broken_file_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]
) -> None:
    path = os.path.join(tmp_path, "save.json")
    with open(path, "w") as f:
        f.write("{not json")
    assert main(["play", "--text", "--resume", path]) == 2
    assert ": not JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resume", "a.json", "--replay", "b.json"], "not allowed with argument --resume"),
        (["--resume", "a.json", "--seats", "human,random"], "drop --seats"),
        (["--replay", "a.json", "--rules", "overview", "--seed", "3"], "drop --rules, --seed"),
        (["--delay", "-1"], "--delay: must be 0 or more seconds, not -1"),
        (["--delay", "nan"], "--delay: must be 0 or more seconds, not nan"),
        (["--delay", "soon"], "--delay: 'soon' is not a number of seconds"),
    ],
)
def test_conflicting_or_bad_options_are_refused_before_anything_is_read(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["play", "--text", *args])
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_codes_without_text_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--codes", "--seed", "3"]) == 2
    captured = capsys.readouterr()
    assert "argument --codes: goes with --text" in captured.err and captured.out == ""


def test_replay_as_text(capsys: pytest.CaptureFixture[str], tmp_path: os.PathLike[str]) -> None:
    session = Session.new(["random", "random"], seed=6)
    while not session.state_over:
        session.bot_move()
    path = os.path.join(tmp_path, "save.json")
    session.save(path)
    assert main(["play", "--text", "--replay", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Replay of a game of Piepmatz · standard rules · seed 6 · ")
    assert "Every card is named" in out
    # Omniscient: the deck draws show their cards.
    species = "|".join(species_names("en").values())
    assert re.search(rf"draws ({species}) \d[♂♀] from the deck", out)
    assert out.rstrip().endswith(
        scoresheet.table(session.game.score(), [session.label(p) for p in range(2)])
    )


def test_a_perch_whose_chase_waits_for_the_crows_victim_is_shown_empty() -> None:
    """T2.1d: while the crow's victim is chosen the perch bird is gone and no ground bird has
    moved up yet; the table shows the perch empty, not the first ground bird at it."""
    from piepmatz.core import view_of
    from piepmatz.envs.text import draw_table
    from piepmatz.server.fanout import strengths
    from piepmatz.tui.render import WordCards, table_text
    from scenarios import scenario

    state = scenario(
        rows=[["BL4m", "CH1f"], ["SP6m"]],
        column=["S1a", ("S2a", "CRa"), "S3a", "S1b"],
        hands=[["CH5m", "GR1m"], ["CH6f"]],
        collections=[["BU1m", "BU2m", "SP1m"], []],
        feeder_deck=["S2b", "S3b", "S1c"],
    )
    state.apply("play CH5m 1")  # ground 6 > perch 4: the crow beside the 2-egg seed
    assert state.phase_name == "crow"
    view = view_of(state, 0)
    perches = table_text(view, ["you", "b"], cards=WordCards()).plain.splitlines()[1:3]
    # In words, as read out: no drawn marks (┃, —), which a screen reader would name.
    assert re.match(
        r" 1  empty, ground: Chaffinch 1♀, Chaffinch 5♂ +ground  6 vs perch none$", perches[0]
    )
    assert re.match(r" 2  House sparrow 6♂, ground: none +ground  0 vs perch 6$", perches[1])
    assert "perch 1: - | ground: CH1f CH5m" in draw_table(view)
    assert strengths(state)[0] == {"perch": None, "ground": 6, "chases": False}
    state.apply("crow BU1m")  # the chase goes on: a ground bird moves up
    assert "perch 1: CH5m | ground: CH1f" in draw_table(view_of(state, 0))


def test_birds_drawn_face_up_are_shown_in_other_hands() -> None:
    from piepmatz.core import State, view_of
    from piepmatz.core.cards import BIRD_NAMES
    from piepmatz.envs.text import draw_table
    from piepmatz.tui.render import table_text

    state = State.new_game(players=3, seed=11)
    while not any(state.shown[1:]):  # play until player 1 or 2 holds a bird drawn face up
        state.apply_id(state.legal_action_ids()[0])
    q = next(q for q in (1, 2) if state.shown[q])
    name = BIRD_NAMES[state.shown[q][0]]
    mine = view_of(state, 0)
    assert f"incl. {name}" in table_text(mine, ["you", "b", "c"]).plain
    assert f"incl. {name}" in draw_table(mine)
    # Their own table lists the whole hand, not a second "incl.".
    own_line = next(
        line for line in draw_table(view_of(state, q)).splitlines() if f"seat {q}:" in line
    )
    assert name in own_line and "incl." not in own_line


def test_script_errors_go_to_stderr_and_numbers_and_any_case_choose() -> None:
    session = next(
        s for seed in range(20) if (s := Session.new(["human", "random"], seed=seed)).to_act == 0
    )
    legal = session.game.state.legal_actions()
    first = str(legal[0])
    lines = [
        "play XX9 7",
        "Crow  BL1m",
        "0",
        "-1",
        f"{len(legal) + 1}",
        "help",
        first.lower(),
        "2",
        "quit",
    ]
    out, err = io.StringIO(), io.StringIO()
    assert TextGame(session, out, io.StringIO("\n".join(lines) + "\n"), err=err).run() == 1
    errors = err.getvalue().splitlines()
    assert errors[0].startswith("error: cannot read action 'play XX9 7'")
    assert errors[1].startswith("error: Crow  BL1m:")  # as typed, not as read
    assert errors[2] == f"error: there is no move 0: choose 1-{len(legal)} (see 'help')"
    assert errors[3] == f"error: there is no move -1: choose 1-{len(legal)} (see 'help')"
    assert len(errors) == 5
    text = out.getvalue()
    assert "error" not in text
    assert re.search(rf"^  1\. .+ \({first}\)$", text, re.MULTILINE)  # help numbers the moves
    # ``play bu1f 1`` in lower case was read as the first move; ``2`` chose the next decision's
    # second option.
    assert str(session.game.actions[0]) == first
    assert "You left the game unfinished" in text


def test_the_full_screen_game_on_a_pipe_says_to_use_text() -> None:
    proc = subprocess.run(
        [*COMMAND, "play", "--seats", "human,random"],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == b""  # no escape codes written into the pipe
    assert b"use piepmatz play --text" in proc.stderr


def _person_first() -> Session:
    """A game of a person and a random bot in which the person plays first."""
    return next(
        s for seed in range(20) if (s := Session.new(["human", "random"], seed=seed)).to_act == 0
    )


def test_ctrl_c_leaves_in_one_line_with_status_130_and_keeps_the_game(data_home: Path) -> None:
    pipe = Pipe("--seats", "human,random", "--seed", "3")
    _, prompt = pipe.read()
    assert prompt is not None
    pipe.send("1")
    _, prompt = pipe.read()
    assert prompt is not None and prompt.group(2) == b"add a bird?"
    pipe.proc.send_signal(signal.SIGINT)
    rest, prompt = pipe.read()
    assert prompt is None
    assert pipe.proc.wait(timeout=30) == 130
    assert pipe.proc.stderr is not None
    assert pipe.proc.stderr.read() == b""  # no traceback
    kept = data_home / "autosave.json"
    assert rest == (
        f"\nYou left the game; it is kept in {kept}: "
        f"piepmatz play --text --resume {kept} goes on with it.\n"
    )
    # The move made before Ctrl+C is in it: the game goes on at the same question.
    resumed = Session.load(kept)
    assert str(resumed.game.actions[-1]).startswith("play ")
    assert resumed.to_act == 0 and resumed.game.state.phase_name == "collect"
    # Where the full-screen game looks for the kept game too.
    assert load_kept() is not None


class _Interrupted(io.StringIO):
    """Input at which Ctrl+C is pressed once its lines are read."""

    def readline(self, size: int | None = -1) -> str:
        line = super().readline()
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_before_any_move_keeps_nothing_over_the_kept_game(tmp_path: Path) -> None:
    kept = tmp_path / "autosave.json"
    kept.write_text("the game kept before")
    out = io.StringIO()
    game = TextGame(_person_first(), out, _Interrupted(""), err=io.StringIO(), keep=kept)
    assert game.run() == 130
    assert out.getvalue().endswith("> \nYou left the game unfinished (save FILE first keeps it).\n")
    assert kept.read_text() == "the game kept before"
    # After a move it is kept, and Ctrl+C names it.
    session = _person_first()
    out = io.StringIO()
    game = TextGame(session, out, _Interrupted("1\n"), err=io.StringIO(), keep=kept)
    assert game.run() == 130
    assert out.getvalue().splitlines()[-1] == (
        f"You left the game; it is kept in {kept}: "
        f"piepmatz play --text --resume {kept} goes on with it."
    )
    assert Session.load(kept).game.actions == session.game.actions


def test_the_first_prompt_says_how_to_answer_and_an_unknown_word_names_help() -> None:
    out, err = io.StringIO(), io.StringIO()
    game = TextGame(_person_first(), out, io.StringIO("foo bar\nBL5m 2\nquit\n"), err=err)
    assert game.run() == 1
    how = "Type a move's number or its notation; help lists the moves, rules explains the game."
    text = out.getvalue()
    assert text.count(how) == 1  # once, before the first prompt
    assert text.split(how + "\n", 1)[1].startswith("Player 1 (play)> ")
    assert err.getvalue().splitlines() == [
        "error: 'foo' is not a move or a command: type a move's number or its notation "
        "('help' lists them)",
        "error: 'BL5m' is not a move or a command: type a move's number or its notation "
        "('help' lists them)",
    ]


def test_rules_prints_the_guide_and_the_rules_in_play_as_plain_lines() -> None:
    out = io.StringIO()
    game = TextGame(_person_first(), out, io.StringIO("help\nrules\nquit\n"), err=io.StringIO())
    assert game.run() == 0
    text = out.getvalue()
    assert (
        "Other commands: help, table, log, rules, hint, save FILE, save --replace FILE, quit\n"
        in text
    )
    guide = text.split("rules explains the game.\n", 1)[1].split("> How to play\n", 1)[1]
    lines = guide.splitlines()
    # The guide's headings, paragraphs one line each, its pictures in words and its table.
    assert lines[:2] == ["", "The goal"]
    assert lines[3].startswith("Birds gather at a feeder. ") and lines[3].endswith("points win.")
    assert (
        "Here the perch bird is worth 6 and the ground adds up to 3: nothing happens yet." in lines
    )
    assert "  perch: Blackbird 6♂" in lines and "  Anna wins" in lines
    assert "drawing: standard: refill your hand to four; overview: draw one card" in lines
    # Then the rules in play, each rule by its id.
    assert (
        "Rules in play: standard rules" in lines and "T2. Resolve the row just played into" in lines
    )
    # No Markdown's marks to be read out.
    for mark in ("**", "](", "```", "|", "`", "#"):
        assert not any(mark in line for line in lines), mark
    assert not any(line.startswith((">", "- -", "* ")) for line in lines)


def test_rules_are_in_the_players_language() -> None:
    from piepmatz.i18n import use_language

    out = io.StringIO()
    with use_language("de"):
        TextGame(_person_first(), out, io.StringIO("rules\nquit\n"), err=io.StringIO()).run()
    lines = out.getvalue().splitlines()
    # The answer starts after the prompt, as every answer does on a pipe.
    assert lines[lines.index("Das Ziel") - 2].endswith("> So wird gespielt")


def test_a_finished_game_is_explained_and_kept_for_replay_and_review(data_home: Path) -> None:
    from piepmatz.records import load_game

    kept = data_home / "autosave.json"
    session = Session.new(["human", "random"], seed=3)
    out = io.StringIO()
    assert TextGame(session, out, io.StringIO("1\n" * 400), keep=kept).run() == 0
    assert session.state_over and not kept.exists()  # forgotten once over, as on screen
    state = session.game.state
    sheet = session.game.score()
    piles = [state.seed_pile(q) for q in range(2)]
    labels = [session.label(p) for p in range(2)]
    record = data_home / "saves" / f"piepmatz-seed3-turn{state.turn}.json"
    expected = [score_sheet_text(sheet, labels).plain.rstrip()]
    for p in range(2):
        expected += [
            "",
            labels[p],
            *("  " + line for line in explain(sheet, state.rules, state.collections, piles, p)),
        ]
    expected += [
        "",
        f"The game is kept in {record}: piepmatz replay {record} replays it, "
        f"piepmatz review --player 1 {record} reviews your decisions.",
    ]
    assert out.getvalue().endswith("\n" + "\n".join(expected) + "\n")
    assert load_game(str(record), finished=True).game.actions == session.game.actions


def test_a_game_of_bots_is_kept_for_replay(data_home: Path) -> None:
    session = Session.new(["random", "random"], seed=4)
    out = io.StringIO()
    assert TextGame(session, out, io.StringIO(), keep=data_home / "autosave.json").run() == 0
    record = data_home / "saves" / f"piepmatz-seed4-turn{session.game.state.turn}.json"
    assert out.getvalue().splitlines()[-1] == (
        f"The game is kept in {record}: piepmatz replay {record} replays it."
    )


def test_resume_tells_the_turn_and_its_lines_and_log_the_whole_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from piepmatz.text.words import tell

    session = Session.new(["human", "random"], seed=3)
    while session.game.state.turn < 8 or not session.is_human(session.to_act):
        if session.is_human(session.to_act):
            session.apply(session.game.state.legal_action_ids()[0])
        else:
            session.bot_move()
    path = tmp_path / "game.json"
    session.save(path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("log\nquit\n"))
    assert main(["play", "--text", "--resume", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = [tell(e) for e in session.view(0).events or ()]
    start = max(i for i, e in enumerate(session.view(0).events or ()) if e.kind == "turn")
    assert start > 0 and events[start] == f"Turn {session.game.state.turn}: Player 1."
    assert lines[1] == f"Resumed at turn {session.game.state.turn} (log prints the game so far)."
    # Only the current turn's lines before the table.
    assert lines[2 : 2 + len(events) - start + 1] == [*events[start:], ""]
    # ``log`` prints them all, from the first turn.
    logged = next(i for i, line in enumerate(lines) if line.endswith("> " + events[0]))
    lines[logged] = events[0]
    assert lines[logged : logged + len(events)] == events
    # Left with no move since, the game is where it was resumed from.
    assert lines[-1].endswith(f"> You left the game; it is saved in {path}.")


def test_a_turns_later_decisions_print_only_the_part_they_ask_about() -> None:
    """The whole table once a turn; its later decisions (add a bird, draw) print the status
    line and the hand or display they are about, and ``table`` prints it all again."""
    session = _person_first()
    # The person plays the first legal move each time: a play, then (if offered) adding
    # the first bird listed, then a draw.
    lines = "\n".join(["1", "1", "table", "1", "quit"]) + "\n"
    out = io.StringIO()
    TextGame(session, out, io.StringIO(lines), err=io.StringIO()).run()
    text = out.getvalue()
    asked = re.findall(r"Player 1 \(([^)]+)\)> ", text)
    assert asked[0] == "play" and asked[1] in ("add a bird?", "draw")
    before_second = text.split("Player 1 (play)> ", 1)[1].split(f"Player 1 ({asked[1]})> ")[0]
    # The second decision: its status line and its part, not the perches again.
    assert "PERCHES" not in before_second
    part = "YOUR HAND (Player 1)" if asked[1] == "add a bird?" else "DISPLAY "
    assert part in before_second and "· turn " in before_second
    # `table`, typed at the third prompt, prints it all at any decision.
    between = re.split(r"Player 1 \([^)]+\)> ", text)
    assert "PERCHES" not in between[2] and "PERCHES" in between[3]
    # Read out, the table has no drawn marks: it says what they showed.
    assert not any(mark in text for mark in ("┃", "▶", "★", " — "))
    assert "Player 1 (person), to play · " in text
