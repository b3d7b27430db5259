"""``piepmatz tutorial --text``: the guided first game as plain lines, driven through a real
pipe to its end, refused, left and taken up again."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from piepmatz.cli import main
from piepmatz.core.serial import state_to_json
from piepmatz.i18n import use_language
from piepmatz.tui.learning import Progress, load_progress, resume_lesson, save_progress
from piepmatz.tui.tutorialtext import TutorialText
from piepmatz.tutorial import LEARNER, Lesson, plain, steps, texts

from .test_textmode import Pipe as TextPipe

COMMAND = [sys.executable, "-c", "from piepmatz.cli import main; raise SystemExit(main())"]
#: The learner's steps: their ids and moves, in order.
STEPS = [(s.id, str(s.action)) for s in steps() if s.seat == LEARNER]
ASKED = re.compile(r"^The lesson asks for move (\d+)\.$", re.M)


class Pipe(TextPipe):
    """A running ``piepmatz tutorial --text`` with its stdin and stdout as pipes."""

    def __init__(self, *args: str) -> None:
        super().__init__(*args, command="tutorial")

    def write(self, line: str) -> None:
        TextPipe.send(self, line)

    def send(self, line: str) -> str:  # type: ignore[override]
        """Send a line; the output up to the next prompt (which there must be)."""
        self.write(line)
        out, prompt = self.read()
        assert prompt is not None, out
        return out

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()


def step_text(step: str, name: str, lang: str = "en") -> str:
    """A step's text as the lesson tells it, birds in words."""
    with use_language(lang):
        return plain(texts(lang)["steps"][step][name])


def lesson_text(name: str) -> str:
    return plain(texts("en")["lesson"][name])


def left_at(step: int) -> str:
    return f"You left the lesson at step {step} of 12; piepmatz tutorial --text goes on from there."


def test_the_whole_lesson_through_a_pipe(data_home: Path) -> None:
    assert len(STEPS) == 12
    pipe = Pipe()
    first, prompt = pipe.read()
    assert prompt is not None
    assert first.startswith(f"{lesson_text('title')}\n{lesson_text('intro')}\n")
    said = [first]
    for n, (step, move) in enumerate(STEPS, 1):
        do = f"Lesson, step {n} of 12: {step_text(step, 'do')}\n"
        assert do in said[-1]
        # The step's move is the one help names; half of the steps are played by its number.
        listed = pipe.send("help")
        assert "Legal actions (type a number, or the notation in brackets):\n" in listed
        assert "Other commands: help, table, log, rules, quit\n" in listed
        number = ASKED.search(listed)
        assert number is not None
        assert re.search(rf"^ *{number.group(1)}\. .* \({move}\)$", listed, re.M), listed
        if n == 1:  # a move the lesson does not want: its sentence, and nothing changed
            table = pipe.send("table")
            refused = pipe.send("play GR2m 2")
            assert refused == f"{step_text(step, 'refuse')}\nPlayer 1 (play)> "
            assert pipe.send("7") == refused  # by its number too (move 7 is GR2m → perch 1)
            assert pipe.send("table") == table
            assert load_progress().done == 0
        answer = number.group(1) if n % 2 else move.upper()  # codes and words in any case
        if n < 12:
            said.append(pipe.send(answer))
            assert load_progress().done == n
    pipe.write(answer)  # the last step: the game ends, with no prompt after it
    rest, prompt = pipe.read()
    assert prompt is None
    assert pipe.proc.wait(timeout=60) == 0
    assert pipe.stderr() == ""
    said.append(rest)
    # Each step's after-text follows its move's lines of the log (before the bot's turn).
    for (step, _move), out in zip(STEPS, said[1:], strict=True):
        assert step_text(step, "after") in out, step
    assert (
        f"{step_text('draw_deck', 'after')}\n{lesson_text('bot_turn')}\nTurn 2: Player 2.\n"
        in (said[4])
    )
    # Every step's instruction once, in order.
    text = "".join(said)
    at = [text.index(step_text(step, "do")) for step, _move in STEPS]
    assert at == sorted(at)
    assert all(text.count(f"Lesson, step {n} of 12:") == 1 for n in range(1, 13))
    # The end: the score sheet, each number explained, the lesson's last words, what next.
    assert "Player 1 wins\n" in rest and "  Pairs 5: Blackbird 6♂ + Blackbird 6♀, 5 each\n" in rest
    assert rest.endswith(
        f"{lesson_text('end')}\npiepmatz play --text --seats human,easy starts a game against "
        "the easy bot; piepmatz tutorial --text takes the lesson again.\n"
    )
    # Kept as the full screen keeps it: every step done; the next lesson starts again.
    assert load_progress() == Progress(done=12)
    assert resume_lesson(data_home / "learning.json").done == 0


def test_progress_is_kept_and_the_lesson_resumed_where_it_was_left(data_home: Path) -> None:
    save_progress(Progress(done=0, played=True))
    pipe = Pipe()
    _, prompt = pipe.read()
    assert prompt is not None
    for _step, move in STEPS[:3]:
        pipe.send(move)
    assert pipe.proc.stdin is not None
    pipe.proc.stdin.close()  # the end of input leaves, in one line
    rest, prompt = pipe.read()
    assert prompt is None and rest == f"\n{left_at(4)}\n"
    assert pipe.proc.wait(timeout=60) == 0
    assert load_progress() == Progress(done=3, played=True)  # what was played is kept too

    pipe = Pipe()
    out, prompt = pipe.read()
    assert prompt is not None and prompt.group(2) == b"draw"
    assert out.startswith("Learn to play\nThe lesson goes on at step 4 of 12.\n")
    assert lesson_text("intro") not in out
    # The current turn's lines before the table, as a resumed text game tells them.
    assert out.split("\n")[2:4] == [
        "Player 1 plays Bullfinch 3♂ to perch 1.",
        "Player 1 adds Greenfinch 2♂ from hand to the collection.",
    ]
    assert f"Lesson, step 4 of 12: {step_text('draw_deck', 'do')}\n" in out
    pipe.write("quit")
    rest, prompt = pipe.read()
    assert prompt is None
    assert rest == f"{left_at(4)}\n"
    assert pipe.proc.wait(timeout=60) == 0
    assert load_progress().done == 3


def test_the_lesson_in_process_resumes_as_the_full_screen_does(data_home: Path) -> None:
    path = data_home / "learning.json"
    save_progress(Progress(done=5), path)
    lesson = resume_lesson(path)
    assert lesson.done == 5 and lesson.step is not None and lesson.step.id == STEPS[5][0]
    out = io.StringIO()
    moves = "".join(f"{move}\n" for _step, move in STEPS[5:7])
    game = TutorialText(lesson, out, io.StringIO(moves), err=io.StringIO(), progress=path)
    assert game.run() == 0
    assert out.getvalue().endswith(f"> \n{left_at(8)}\n")
    assert load_progress(path).done == 7
    assert state_to_json(Lesson.resume(7).state) == state_to_json(lesson.state)


def test_ctrl_c_leaves_in_one_line_with_status_130_and_keeps_the_steps(data_home: Path) -> None:
    pipe = Pipe()
    _, prompt = pipe.read()
    assert prompt is not None
    pipe.send(STEPS[0][1])
    pipe.proc.send_signal(signal.SIGINT)
    rest, prompt = pipe.read()
    assert prompt is None
    assert pipe.proc.wait(timeout=30) == 130
    assert pipe.stderr() == ""  # no traceback
    assert rest == f"\n{left_at(2)}\n"
    assert json.loads((data_home / "learning.json").read_text())["done"] == 1


def test_help_rules_and_what_the_lesson_does_not_have(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    script = "help\nrules\nhint\nsave mine.json\n9\nfoo\nquit\n"
    game = TutorialText(Lesson(), out, io.StringIO(script), err=err, progress=tmp_path / "l.json")
    assert game.run() == 1  # a script's refused lines: status 1, as in the text game
    text = out.getvalue()
    assert "  3. Bullfinch 3♂ → perch 1 — ground 3 ≤ perch 6: no chase (play BU3m 1)\n" in text
    assert "The lesson asks for move 3.\n" in text
    # rules: the player's guide and the rules in play, as play --text prints them.
    assert "\nThe goal\n" in text and "Rules in play: standard" in text
    unknown = (
        "'{}' is not a move or a command: type a move's number or its notation ('help' lists them)"
    )
    assert err.getvalue().splitlines() == [
        "error: " + unknown.format("hint"),
        "error: " + unknown.format("save"),
        "error: there is no move 9: choose 1-8 (see 'help')",
        "error: " + unknown.format("foo"),
    ]
    assert not Path("mine.json").exists() and not (tmp_path / "l.json").exists()
    assert text.endswith(f"> {left_at(1)}\n")


def test_codes_and_language() -> None:
    out = io.StringIO()
    TutorialText(Lesson(), out, io.StringIO(""), err=io.StringIO(), codes=True).run()
    assert "Play BU3m to perch 1: the bird at the perch, BL6m, is worth 6" in out.getvalue()
    assert "YOUR HAND (Player 1)  BL6f  BU3m  CH5f  GR2m\n" in out.getvalue()
    out = io.StringIO()
    with use_language("de"):
        TutorialText(Lesson(), out, io.StringIO("play GR2m 2\n"), err=io.StringIO()).run()
        title = plain(texts("de")["lesson"]["title"])
    text = out.getvalue()
    assert text.startswith(title + "\n")
    assert step_text("first_play", "do", "de") in text
    assert step_text("first_play", "refuse", "de") in text


def test_the_full_screen_lesson_on_a_pipe_says_to_use_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    proc = subprocess.run([*COMMAND, "tutorial"], input=b"", capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == b""  # no escape codes written into the pipe
    assert b"for plain lines on a pipe use piepmatz tutorial --text" in proc.stderr
    assert main(["tutorial", "--codes"]) == 2
    assert "argument --codes: goes with --text" in capsys.readouterr().err
