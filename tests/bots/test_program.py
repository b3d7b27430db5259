"""``program:COMMAND``: a bot that is another program, asked each decision in a JSON line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from piepmatz.bots import make_bot
from piepmatz.bots import program as program_module
from piepmatz.bots.base import BotMoveError, decide
from piepmatz.core import Game
from piepmatz.core.cards import BIRD_NAMES
from piepmatz.sim import MatchConfig, run_games
from piepmatz.sim.play import BotFailure


def _program(folder: Path, body: str, name: str = "bot.py") -> str:
    """A Python program in ``folder`` that answers each request line with ``body`` (which sees
    the request as ``request``); the spec that runs it."""
    path = folder / name
    path.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n" + textwrap.indent(textwrap.dedent(body), "    ")
    )
    return f"program:{sys.executable} {path}"


def _answer(expression: str) -> str:
    return f"print(json.dumps({{'action': {expression}}}), flush=True)\n"


class HighestLegal:
    name = "highest"

    def choose(self, view: object, legal: tuple[int, ...], rng: random.Random) -> int:
        return max(legal)


@pytest.fixture(autouse=True)
def _no_program_left() -> object:
    yield
    program_module._stop_all()
    program_module._RUNNING.clear()


def test_a_program_plays_as_the_bot_it_mirrors_and_sees_only_its_view(tmp_path: Path) -> None:
    """Answering by text the highest legal id, a program plays the same game as a Python bot
    that does; each request is the seat's view and its legal actions, nothing more."""
    log = tmp_path / "requests.jsonl"
    spec = _program(
        tmp_path,
        f"open({str(log)!r}, 'a').write(line)\n" + _answer("request['legal'][-1]['text']"),
    )
    bot = make_bot(spec)
    assert bot.name == spec
    game, mirror = Game.new(players=3, seed=11), Game.new(players=3, seed=11)
    rng = random.Random(3)
    while not game.state.is_over():
        player = game.state.current_player
        legal = game.state.legal_action_ids()
        game.apply(decide(bot, game.view(player), legal, rng))
        mirror.apply(decide(HighestLegal(), mirror.view(player), legal, rng))
    assert game.actions == mirror.actions
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == len(game.actions)
    first = requests[0]
    assert (first["type"], first["protocol"]) == ("decide", 1)
    assert (
        first["view"]["player"]
        == first["seat"]
        == Game.new(players=3, seed=11).state.current_player
    )
    ids = [a["id"] for a in first["legal"]]
    assert ids == sorted(Game.new(players=3, seed=11).state.legal_action_ids())
    assert first["legal"][0]["text"].startswith("play ")
    # Its own hand, and no card of another seat's hand anywhere in the request.
    start = Game.new(players=3, seed=11).state
    seat = first["seat"]
    assert first["view"]["hand"] == [BIRD_NAMES[b] for b in start.hands[seat]]
    said = json.dumps(first)
    others = [BIRD_NAMES[b] for p, hand in enumerate(start.hands) if p != seat for b in hand]
    assert len(others) == 8 and not any(f'"{code}"' in said for code in others)
    assert isinstance(first["seed"], int)


def test_a_tournament_of_a_program_repeats_in_worker_processes(tmp_path: Path) -> None:
    """The program uses the request's seed: a seeded tournament plays the same games inline
    and in two worker processes (each runs its own copy of the program)."""
    spec = _program(
        tmp_path,
        "import random\n"
        + _answer("random.Random(request['seed']).choice(request['legal'])['id']"),
    )
    config = MatchConfig(2, (spec, "random"), 8, seed=4)
    inline = run_games(config, backend="inline")
    pooled = run_games(config, backend="process", workers=2, batch_size=2)
    assert [r.actions for r in pooled] == [r.actions for r in inline]
    assert len(inline) == 8 and all(r.sheet.final for r in inline)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("sys.exit(3)\n", r"exited \(status 3\) before answering"),
        (
            "print('take the blackbird', flush=True)\n",
            r"answered 'take the blackbird', not a JSON line",
        ),
        (
            "print(json.dumps([1, 2]), flush=True)\n",
            r"answered '\[1, 2\]', not \{\"action\": \.\.\.\}",
        ),
        (_answer("'fly away'"), r"answered the action 'fly away': cannot read action"),
        (_answer("2.5"), r"answered the action 2\.5: give an id or an action's text"),
        (_answer("request['legal'][0]['id'] + 100000"), r"chose \d+, which is not legal"),
    ],
)
def test_a_program_that_does_not_answer_with_a_legal_action_fails_the_decision(
    tmp_path: Path, body: str, said: str
) -> None:
    bot = make_bot(_program(tmp_path, body))
    game = Game.new(players=2, seed=1)
    player = game.state.current_player
    with pytest.raises(BotMoveError, match=said):
        decide(bot, game.view(player), game.state.legal_action_ids(), random.Random(1))
    assert game.actions == []


def test_a_slow_program_is_stopped_and_started_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "slow"
    marker.touch()
    spec = _program(
        tmp_path,
        f"""
        import os, time
        if os.path.exists({str(marker)!r}):
            os.remove({str(marker)!r})
            time.sleep(30)
        """
        + _answer("request['legal'][0]['id']"),
    )
    monkeypatch.setattr(program_module, "DECISION_TIMEOUT", 1.0)
    bot = make_bot(spec)
    game = Game.new(players=2, seed=1)
    view, legal = game.view(game.state.current_player), game.state.legal_action_ids()
    with pytest.raises(BotMoveError, match=r"did not answer within 1 s"):
        decide(bot, view, legal, random.Random(1))
    (running,) = program_module._RUNNING.values()
    assert running.process is None, "the slow one was stopped"
    # The next decision starts it afresh, and it answers.
    assert decide(bot, view, legal, random.Random(1)) == min(legal)


def test_a_tournament_names_the_seat_of_a_failing_program(tmp_path: Path) -> None:
    config = MatchConfig(2, (_program(tmp_path, "sys.exit(1)\n"), "random"), 2, seed=1)
    with pytest.raises(
        BotFailure, match=r"program:.* in seat 0 exited \(status 1\) before answering"
    ):
        run_games(config, backend="inline")


def test_a_spec_without_a_program_to_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"give the command that runs it"):
        make_bot("program:")
    with pytest.raises(ValueError, match=r"no program 'no-such-bot-program' to run"):
        make_bot("program:no-such-bot-program --fast")
    with pytest.raises(ValueError, match=r"No closing quotation"):
        make_bot("program:python3 'unclosed")


def test_the_program_ends_with_the_process_that_started_it(tmp_path: Path) -> None:
    """A program reads until its input closes: it does not outlive its tournament."""
    pids = tmp_path / "pids"
    spec = _program(
        tmp_path,
        f"import os\nopen({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        + _answer("request['legal'][0]['id']"),
    )
    script = textwrap.dedent(
        f"""
        from piepmatz.sim import MatchConfig, run_games
        run_games(MatchConfig(2, ({spec!r}, "random"), 2, seed=1), backend="inline")
        print("done")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "done\n", done.stderr
    (pid,) = set(pids.read_text().split())
    assert not Path(f"/proc/{pid}").exists()


def test_a_program_answers_one_line_a_request_and_a_stray_line_is_the_next_answer(
    tmp_path: Path,
) -> None:
    """Lines are read one a request, whatever the program's writes: a line too many (here
    written with the first answer, in one write) is read as the next answer, and refused."""
    spec = _program(
        tmp_path,
        "first = request['legal'][0]['id']\n"
        "sys.stdout.write(json.dumps({'action': first}) + '\\nthinking...\\n')\n"
        "sys.stdout.flush()\n",
    )
    bot = make_bot(spec)
    game = Game.new(players=2, seed=1)
    view, legal = game.view(game.state.current_player), game.state.legal_action_ids()
    assert decide(bot, view, legal, random.Random(1)) == min(legal)
    with pytest.raises(BotMoveError, match=r"answered 'thinking\.\.\.', not a JSON line"):
        decide(bot, view, legal, random.Random(1))
