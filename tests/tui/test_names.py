"""People at one terminal by their names: given on the command line (``--names``) or on the
new-game screen, said at the hand-off, the prompt and the score sheet, kept in the save and
asked again for the next game. A name that cannot be one is refused, saying why."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input, Select

from piepmatz.cli import main
from piepmatz.core import Game
from piepmatz.records import GameFileError, load_game, read_save, seat_labels
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import HandoffScreen, NewGameScreen, TableScreen
from piepmatz.tui.session import SeatError, Session


def played_out(session: Session) -> Session:
    while not session.state_over:
        legal = session.game.state.legal_action_ids()
        session.apply(legal[0])
    return session


def text_game(monkeypatch: pytest.MonkeyPatch, capsys: Any, *args: str) -> tuple[int, str, str]:
    """``piepmatz play --text`` with ``args`` and no input (the person leaves at once)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["play", "--text", "--delay", "0", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.usefixtures("data_home")
def test_names_on_the_command_line_name_the_people_in_seat_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seats = ["--seats", "random,human,human", "--seed", "5"]
    code, out, _ = text_game(monkeypatch, capsys, *seats, "--names", " Anna , Petr")
    assert code == 0
    assert out.splitlines()[0] == (
        "Piepmatz · standard rules · seed 5 · Player 1 (random bot), Anna, Petr"
    )
    assert "\nAnna (play)> " in out or "\nPetr (play)> " in out
    assert "Player 2" not in out and "Player 3" not in out
    # Fewer names than people: the others stay "Player N".
    code, out, _ = text_game(monkeypatch, capsys, *seats, "--names", "Anna")
    assert out.splitlines()[0].endswith("Player 1 (random bot), Anna, Player 3 (person)")


@pytest.mark.usefixtures("data_home", "plain_bots")
def test_names_alone_seat_that_many_people_against_bots(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("piepmatz.tui.session.default_bot", lambda: "random")
    code, out, _ = text_game(monkeypatch, capsys, "--names", "Anna,Petr", "--seed", "2")
    assert code == 0
    assert out.splitlines()[0].endswith("seed 2 · Anna, Petr, Player 3 (random bot)")
    code, out, _ = text_game(monkeypatch, capsys, "--names", "A,B,C,D", "--seed", "2")
    assert out.splitlines()[0].endswith("seed 2 · A, B, C, D")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--seats", "human,random", "--names", "Anna,Petr"],
            "piepmatz play: --names gives 2 names, but 1 people sit at this table",
        ),
        (["--names", "A,B,C,D,E"], "--names gives 5 names: a game has 2, 3 or 4 seats"),
        (
            ["--seats", "human,human", "--names", "Anna," + "x" * 33],
            "Player 2: a name has at most 32 characters: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' "
            "has 33",
        ),
        (
            ["--seats", "human,human", "--names", "Anna,Pe\x1b[2Jtr"],
            "Player 2: a name is plain text on one line",
        ),
        (
            ["--names", "Anna", "--server", "http://127.0.0.1:9"],
            "argument --names: names the people at one terminal",
        ),
        (["--names", "Anna", "--resume", "kept.json"], "drop --names"),
    ],
)
def test_a_name_that_cannot_be_one_is_refused_before_the_game(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--text", *args]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and len(captured.err.splitlines()) == 1
    assert captured.out == ""


def test_the_save_keeps_the_names_and_a_save_without_them_still_reads(tmp_path: Path) -> None:
    session = Session.new(["human", "random", "human"], seed=4, names=["Anna", None, "Petr"])
    assert [session.label(p) for p in range(3)] == ["Anna", "Player 2 (random bot)", "Petr"]
    path = tmp_path / "named.json"
    session.save(path)
    assert json.loads(path.read_text())["names"] == ["Anna", None, "Petr"]
    assert Session.load(path).names == ["Anna", None, "Petr"]
    # Without names the save is as it always was, and reads the same.
    plain = Session.new(["human", "random"], seed=4).save_doc()
    assert "names" not in plain and read_save(plain).names is None
    # A finished game's replay names the people; the bots keep their seats' names.
    path.write_text(json.dumps(played_out(session).save_doc()))
    loaded = load_game(path, finished=True)
    assert seat_labels(loaded.seats, 3, loaded.names) == ["Anna", "Player 2 (random)", "Petr"]


@pytest.mark.parametrize(
    "names",
    [["Anna", "Bot"], ["Anna"], "Anna", [1, None], ["x" * 40, None], ["A\nB", None]],
)
def test_a_save_whose_names_cannot_be_read_is_refused(names: Any) -> None:
    doc = Session.new(["human", "random"], seed=4).save_doc() | {"names": names}
    with pytest.raises(GameFileError, match="the save's names must be a list of its 2 seats"):
        read_save(doc)


def test_names_are_trimmed_and_an_empty_one_is_none() -> None:
    from piepmatz.records import seat_names

    assert seat_names(["human", "easy", "human"], [" Anna", None, ""]) == ["Anna", None, None]
    assert seat_names(["human", "easy"], None) == [None, None]


def test_a_bots_seat_takes_no_name() -> None:
    with pytest.raises(SeatError, match="Player 2 is a bot's: only a person's seat"):
        Session(Game.new(players=2, seed=1), ["human", "random"], names=["Anna", "Robo"])


@pytest.mark.usefixtures("quick_idle", "plain_bots", "data_home")
def test_the_new_game_screen_names_the_people_and_the_next_game_asks_them_again(
    tui: Any,
) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(bot_delay=0)
        async with app.run_test(size=tui.size) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            # The button takes a second press however soon it comes (see test_app).
            screen.query_one("#start", Button).active_effect_duration = 0
            # A bot's seat has no name to give; a person's has.
            assert not screen.query_one("#name-1", Input).display
            screen.query_one("#players", Select).value = 2
            screen.query_one("#seat-1", Select).value = "human"
            await pilot.pause()
            assert screen.query_one("#name-1", Input).display
            screen.query_one("#name-0", Input).value = "Anna"
            screen.query_one("#name-1", Input).value = "Pe\tter"
            await pilot.click("#start")
            await pilot.pause()
            assert "a name is plain text on one line" in tui.text(app)
            screen.query_one("#name-1", Input).value = "Petr"
            await pilot.click("#start")
            handoff = await tui.until_screen(app, pilot, HandoffScreen)
            table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
            first = table.session.to_act
            person = ["Anna", "Petr"][first]
            assert f"Pass the keyboard to {person}." in tui.text(app)
            assert f"{person}: press {first + 1} to see your hand." in tui.text(app)
            await pilot.press(handoff.key)
            await tui.settle(pilot)
            assert f"YOUR HAND ({person})" in tui.text(app)
            table.action_new_game()
            await tui.settle(pilot)
            if not isinstance(app.screen, NewGameScreen):  # asked whether to leave: yes
                await pilot.press("y")
            again = await tui.until_screen(app, pilot, NewGameScreen)
            assert again.query_one("#players", Select).value == 2
            assert again.query_one("#seat-1", Select).value == "human"
            assert [again.query_one(f"#name-{p}", Input).value for p in (0, 1)] == [
                "Anna",
                "Petr",
            ]

    asyncio.run(scenario())
