"""The terminal at an online table: ``piepmatz play`` joins a real server's table by its invite
link and plays a whole game against a seat played through the protocol (as a browser would)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import queue
import re
import secrets
import socket
import ssl
import threading
import time
import urllib.error
from collections.abc import AsyncIterator, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from piepmatz.cli import build_parser, main
from piepmatz.core import Action, Rules
from piepmatz.i18n import translation
from piepmatz.records import unreachable
from piepmatz.server import admin
from piepmatz.server.client import SeatClient
from piepmatz.server.db import make_engine
from piepmatz.server.pace import PaceRoster
from piepmatz.server.pairing import PairingRules
from piepmatz.server.players import Players
from piepmatz.server.seats import token_hash
from piepmatz.server.store import Store
from piepmatz.text.words import action_words, birds_as
from piepmatz.tui import commands
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.online import (
    SEND_GAP,
    OnlineError,
    Seating,
    Server,
    games_text,
    move_time_left,
    offered_again,
    others_at,
    pace_words,
    parse_link,
    player_key,
    table_name,
)
from piepmatz.tui.onlinetext import OnlineText
from piepmatz.tui.plainlines import rules_lines
from piepmatz.tui.screens import ConfirmDialog, EndScreen, ReplayScreen
from piepmatz.tui.screens.online import OnlineTableScreen
from serverplay import PATIENCE, post, running_server
from serverprocs import free_port

from .conftest import SIZE, screen_text
from .test_pseudo import SIZE as PSEUDO_SIZE
from .test_pseudo import check, pseudo  # noqa: F401 (a fixture)


@pytest.fixture
def address(tmp_path: Path) -> Any:
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    # A pace whose clock runs out at once, besides the server's own.
    paces = PaceRoster.build(["blitz=live:1s+0s"])
    with running_server(url, hint_iterations=40, paces=paces) as found:
        yield found


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's stdin and stdout stand for a terminal (the pilot draws the screen)."""
    monkeypatch.setattr(commands, "_online_terminal", lambda full_screen=True: None)


def seat_online(*argv: str) -> Any:
    """The seat ``piepmatz play ARGV`` takes, through the command's own options."""
    return commands.seat_online(build_parser().parse_args(["play", *argv]))


async def until(pilot: Pilot[Any], holds: Callable[[], object]) -> None:
    """Let the app run until ``holds()`` is true; a test that waits longer fails."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE
    while not holds():
        assert loop.time() < deadline, "waited too long"
        await pilot.pause(0.01)


async def anna(address: str, table: str, token: str, sent: list[str], heard: list[str]) -> None:
    """The other person, at the protocol (as the browser is): says good luck, then plays the
    first legal action of each of her decisions; keeps the actions sent and the chat heard."""
    async with SeatClient.connect(f"ws://{address}/ws/{table}", token) as seat:
        await seat.send({"type": "chat", "text": "good luck!"})
        while True:
            message = await seat.receive()
            if message["type"] == "chat":
                heard.append(message["text"])
            elif message["type"] == "state":
                if message["result"] is not None:
                    return
                if message["legal"] and seat.answered != message["move"]:
                    sent.append(message["legal"][0])
                    await seat.act(message["legal"][0], message["move"])


def test_a_terminal_joins_by_invite_and_plays_a_whole_game_with_a_browser_seat(
    address: str, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    tables: list[str] = []

    async def scenario() -> None:
        opened = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "Anna"})
        tables.append(opened["table"])
        link = opened["invites"][0]["link"]
        seating = seat_online(link, "--name", "Ben")
        assert (seating.table, seating.seat) == (opened["table"], 1)
        # The same link again (the terminal was closed): the seat it took, not a refusal.
        again = seat_online(link)
        assert (again.seat, again.token) == (1, seating.token)
        sent: list[str] = []
        heard: list[str] = []
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            other = asyncio.create_task(
                anna(address, opened["table"], opened["token"], sent, heard)
            )
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            said = dropped = False
            loop = asyncio.get_running_loop()
            deadline = loop.time() + PATIENCE
            while not isinstance(app.screen, EndScreen):
                assert loop.time() < deadline, screen_text(app)
                await pilot.pause(0.01)
                state = screen.state
                if state is None or not state["legal"] or app.screen is not screen:
                    continue
                if not said:  # the chat line: t, the words, Enter
                    said = True
                    await pilot.press("t", *"hello Anna", "enter")
                if len(sent) >= 5 and not dropped and screen.client is not None:
                    dropped = True
                    # The connection drops: the screen says so, the client comes back.
                    await screen.client.websocket.close()
                    while screen.connection != "reconnecting" and loop.time() < deadline:
                        await pilot.pause(0.01)
                    shown = str(screen.query_one("#people", Static).content)
                    assert "disconnected — reconnecting…" in shown
                    continue
                if screen.query_one("#choices").has_focus and screen.state is state:
                    await pilot.press("enter")
                    while screen.state is state and loop.time() < deadline:
                        await pilot.pause(0.01)
            await asyncio.wait_for(other, PATIENCE)
            await until(pilot, lambda: re.search(r"^total", screen_text(app), re.MULTILINE))
            assert screen.client is not None and screen.client.reconnects == 1
            assert "reconnecting" not in str(screen.query_one("#people", Static).content)
            log = "\n".join(strip.text for strip in screen.query_one("#log").lines)
            sheet = screen_text(app)
            result = screen.state["result"]
            # Its replay names the seats as the table did, not as Player 1, 2.
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            await pilot.pause()
            shown = screen_text(app)
            assert all(name in shown for name in screen.names()) and "Player 1" not in shown
            # Anna asks to play again: Ben is told; the score sheet's Play again (a) seats him
            # at his seat of the new table, whose screen takes this one's place.
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen)
            rematch = f"/api/tables/{opened['table']}/rematch"
            again = await post(address, rematch, {"token": opened["token"]})
            told = "Anna wants to play again: a in the score sheet (e) joins them."
            await until(pilot, lambda: told in [str(n.message) for n in app._notifications])
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EndScreen))
            assert str(app.screen.query_one("#again", Button).label) == "Play again"
            await pilot.press("a")
            await until(
                pilot,
                lambda: isinstance(app.screen, OnlineTableScreen) and app.screen is not screen,
            )
            assert app.online_screen is app.screen
            assert (app.screen.seating.table, app.screen.seating.seat) == (again["table"], 1)
            await until(pilot, lambda: app.screen.state is not None)  # both in: dealt
        assert "Anna: good luck!" in log
        assert "hello Anna" in heard
        # Anna's moves, told in the terminal's log by her name; every turn names its player.
        assert sent and sum(line.startswith("Anna plays") for line in log.splitlines()) > 5
        turns = re.findall(r"^Turn \d+: (.*)\.$", log, re.MULTILINE)
        assert len(turns) > 10 and set(turns) == {"Anna", "Ben"}
        # The score sheet of the finished game (replayed from its record), with the totals the
        # server's result has, headed by both names.
        totals = [p["total"] for p in result["players"]]
        assert re.search(r"^\s*Anna\s+Ben$", sheet, re.MULTILINE)
        assert re.search(rf"^total\s+{totals[0]}\s+{totals[1]}$", sheet, re.MULTILINE)

    asyncio.run(scenario())
    # The terminal's player key sat down there: "My games" at the server lists the table.
    capsys.readouterr()
    assert main(["games", "--server", address]) == 0
    listed = capsys.readouterr().out.splitlines()
    # The game they play again at is going on (whoever's turn it is); the first is finished.
    going = [line for line in listed if re.match(r"^(Your turn|Waiting for others) \(1\)$", line)]
    assert len(going) == 1
    at = listed.index("Finished (1)")
    # As the browser lists it: who sat where (this terminal is Ben), how far, who won.
    record = httpx.get(f"http://{address}/api/tables/{tables[0]}/record").json()
    won = {(0,): "Anna won", (1,): "you won"}.get(tuple(record["result"]["winners"]), "shared")
    moves = len(record["actions"])
    finished = listed[at + 1]
    assert finished.startswith(f"  Table {tables[0]} · Anna, Ben (you) · {moves} moves played · ")
    assert finished.endswith(won) or (won == "shared" and "shared win: Anna, Ben" in finished)
    assert listed[at + 2] == f"    piepmatz replay http://{address}/replay/{tables[0]}"


def test_games_lists_each_table_as_the_browsers_my_games_does() -> None:
    anna, bot = {"kind": "human", "name": "Anna"}, {"kind": "easy", "name": None}
    ben, free = {"kind": "human", "name": "Ben"}, {"kind": "human", "name": None}

    def game(table: str, seats: list[Any], **rest: Any) -> dict[str, Any]:
        return {"table": table, "seat": 0, "seats": seats, "status": "playing", "move": 7} | rest

    def over(table: str, how: str, winners: list[int], seat: int | None = None) -> dict[str, Any]:
        ending = {"how": how, "winners": winners, "seat": seat}
        return game(table, [anna, ben], status="over", move=60, ending=ending)

    games = {
        "playing": [
            game("t1", [anna, bot], your_turn=True),
            game("t2", [anna, free], status="waiting", move=0),
            # What a server may send that is not what it should: shown, never a crash.
            game("t3", [{"kind": "human", "name": 7}, "nonsense"], move="many"),
            game("t10", [anna, ben], absent="time"),
        ],
        "finished": [
            over("t4", "played_out", [0]),
            over("t5", "played_out", [1]),
            over("t6", "played_out", [0, 1]),
            over("t7", "resigned", [0], seat=1),
            over("t8", "aborted", []),
            game("t9", [anna, ben], status="over", ending={"how": "played_out", "winners": 1}),
        ],
    }
    assert games_text(games, "http://h").splitlines() == [
        "Your turn (1)",
        "  Table t1 · Anna (you), Bot 2 (easy) · 7 moves played",
        "    piepmatz play --server http://h --join t1",
        "Waiting for others (3)",
        "  Table t2 · Anna (you), (free seat) · waiting for people to join",
        "    piepmatz play --server http://h --join t2",
        "  Table t3 · (free seat) (you) · 0 moves played",
        "    piepmatz play --server http://h --join t3",
        "  Table t10 · Anna (you), Ben · 7 moves played · a bot plays for you",
        "    piepmatz play --server http://h --join t10",
        "Finished (6)",
        "  Table t4 · Anna (you), Ben · 60 moves played · you won",
        "    piepmatz replay http://h/replay/t4",
        "  Table t5 · Anna (you), Ben · 60 moves played · Ben won",
        "    piepmatz replay http://h/replay/t5",
        "  Table t6 · Anna (you), Ben · 60 moves played · shared win: Anna, Ben",
        "    piepmatz replay http://h/replay/t6",
        "  Table t7 · Anna (you), Ben · 60 moves played · Ben resigned, Anna won",
        "    piepmatz replay http://h/replay/t7",
        "  Table t8 · Anna (you), Ben · 60 moves played · aborted, no winner",
        "    piepmatz replay http://h/replay/t8",
        "  Table t9 · Anna (you), Ben · 7 moves played",
        "    piepmatz replay http://h/replay/t9",
    ]
    assert games_text({}, "http://h").splitlines()[1] == "  None right now."


def test_a_spectators_link_watches_the_whole_game_with_nothing_to_play(
    address: str, terminal: None
) -> None:
    async def scenario() -> None:
        opened = await post(address, "/api/tables", {"seats": ["human", "random"], "name": "Anna"})
        link = opened["spectate"]
        with pytest.raises(OnlineError, match="a spectator has no name at the table"):
            seat_online(link, "--name", "Ben")
        seating = seat_online(link)
        assert (seating.table, seating.seat) == (opened["table"], None)
        sent: list[str] = []
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            # Anna has not come yet: the game waits for her move (after the bot's, if first).
            title = screen.query_one("#choices-title", Static)
            await until(pilot, lambda: "Watching: Anna to move" in str(title.content))
            # The public view: every seat's cards in hand counted, no hand of anyone's.
            assert screen.view.player == -1 and screen.view.hand == ()
            text = screen_text(app)
            assert "YOUR HAND" not in text and "(you)" not in text
            assert "Anna" in text and "Bot 2 (random)" in text
            # Nothing to play, say or ask: the keys are not offered, and t opens no chat line.
            for action in ("chat", "hint", "resign", "abort", "back"):
                assert screen.check_action(action, ()) is False
            await pilot.press("t")
            assert not screen.query_one("#chat", Input).has_class("shown")
            other = asyncio.create_task(anna(address, opened["table"], opened["token"], sent, []))
            # Followed to the end, with the score sheet of the record.
            await until(pilot, lambda: isinstance(app.screen, EndScreen))
            await asyncio.wait_for(other, PATIENCE)
            await until(pilot, lambda: re.search(r"^total", screen_text(app), re.MULTILINE))
            log = "\n".join(strip.text for strip in screen.query_one("#log").lines)
            sheet = screen_text(app)
            result = screen.state["result"]
            # Its replay names the seats as the table did, not as Player 1, 2.
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            await pilot.pause()
            shown = screen_text(app)
            assert all(name in shown for name in screen.names()) and "Player 1" not in shown
        assert sent and sum(line.startswith("Anna plays") for line in log.splitlines()) > 5
        totals = [p["total"] for p in result["players"]]
        assert re.search(rf"^total\s+{totals[0]}\s+{totals[1]}$", sheet, re.MULTILINE)

    asyncio.run(scenario())


def test_the_player_key_is_kept_per_server(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    first = player_key("http://a.example", path)
    assert len(first) == 43
    assert player_key("http://a.example", path) == first  # the next run: the same key
    assert player_key("http://b.example", path) != first  # another server: another key
    assert path.stat().st_mode & 0o777 == 0o600  # a credential: only its owner reads it


def test_the_name_at_the_table_is_asked_once_and_kept_never_the_login_name(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keys.json"
    # Nobody to ask and no name kept: told, nothing written.
    with pytest.raises(OnlineError, match="give your name at the table with --name NAME"):
        table_name(None, path)
    assert not path.exists()
    # Asked once (an empty answer is asked again), kept beside the keys.
    asked: list[str] = []
    answers = iter(["", "  Anna  "])

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    assert table_name(None, path, ask) == "Anna"
    assert asked == ["Your name at the table (the other players see it): "] * 2
    key = player_key("http://a.example", path)
    assert table_name(None, path, ask) == "Anna" and len(asked) == 2  # not asked again
    # --name changes it for this run and the next; the key stays.
    assert table_name("Ben", path) == "Ben"
    assert table_name(None, path) == "Ben"
    assert player_key("http://a.example", path) == key
    assert path.stat().st_mode & 0o777 == 0o600
    # A name no browser would send is refused, and the kept one stays.
    with pytest.raises(OnlineError, match="1 to 32 characters"):
        table_name("x" * 33, path)
    with pytest.raises(OnlineError, match="1 to 32 characters"):
        table_name("   ", path)
    with pytest.raises(OnlineError, match="without control characters"):
        table_name("a\x01b", path)  # the server would refuse it: never kept
    assert table_name(None, path) == "Ben"
    # Asked, a name the server would refuse is asked again, saying why.
    prompts: list[str] = []
    tries = iter(["x" * 40, "a\x1b[2Jb", "Cleo"])

    def again(prompt: str) -> str:
        prompts.append(prompt)
        return next(tries)

    assert table_name(None, tmp_path / "third.json", again) == "Cleo"
    assert prompts[1].startswith("a name at the table has 1 to 32 characters\n")
    assert prompts[2].startswith("a name at the table is plain text on one line")

    def gone(prompt: str) -> str:
        raise EOFError

    with pytest.raises(OnlineError, match="no name was given"):
        table_name(None, tmp_path / "other.json", gone)


@pytest.mark.parametrize(
    ("link", "said"),
    [
        ("http://host/tables/abc", "is not an invite link"),
        ("ftp://host/play/abc#seat=1&token=x", "is not an invite link"),
        ("http://host/play/a%2Fb#seat=1&token=x", "does not name a table"),
        ("http://host/play/abc#seat=one&token=x", "the seat in"),
    ],
)
def test_a_malformed_link_is_told(link: str, said: str) -> None:
    with pytest.raises(OnlineError, match=said):
        parse_link(link)


def test_bad_input_ends_with_a_clear_message(
    address: str, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    # No name given, none kept, and nobody to ask (stdin is not a terminal): told first.
    assert main(["play", "--server", address, "--bots", "random"]) == 2
    assert "give your name at the table with --name NAME" in capsys.readouterr().err
    assert main(["play", "http://host/tables/abc"]) == 2
    assert "is not an invite link" in capsys.readouterr().err
    assert main(["play", f"{nowhere}/play/abc#seat=1&token=xyz", "--name", "Ben"]) == 2
    assert f"cannot reach {nowhere}: nothing answers at 127.0.0.1:" in capsys.readouterr().err
    assert main(["play", "--server", nowhere, "--list"]) == 2
    assert "is the server started?" in capsys.readouterr().err
    # A public table whose only person's seat is taken: full.
    full = asyncio.run(
        post(address, "/api/tables", {"seats": ["human", "random"], "name": "A", "public": True})
    )
    assert main(["play", "--server", address, "--join", full["table"], "--name", "Ben"]) == 2
    err = capsys.readouterr().err
    assert "every seat at this table is taken" in err and "Traceback" not in err
    assert main(["play", "--server", address, "--bots", "nobody"]) == 2
    assert "not a bot this server offers" in capsys.readouterr().err
    # Too few or too many seats: said in the player's words, before the server is asked.
    assert main(["play", "--server", address, "--seats", "human", "--name", "Ben"]) == 2
    assert "a table has 2, 3 or 4 seats, not 1 (human)" in capsys.readouterr().err
    assert main(["play", "--server", address, "--seats", "human,human,friend"]) == 2
    assert "seat 3: not a bot this server offers" in capsys.readouterr().err  # counted from 1
    # In the player's language: the server's refusal too.
    assert main(["play", "--lang", "de", "--server", address, "--join", full["table"]]) == 2
    german = translation("de")
    said = german.gettext("the server refused: {reason}").format(
        reason=german.gettext("every seat at this table is taken")
    )
    assert capsys.readouterr().err == f"piepmatz play: {said}\n"
    assert said != "the server refused: every seat at this table is taken"
    assert main(["play", "--server", address, "--join", full["table"], "--rules", "overview"]) == 2
    assert "comes with its own seats and rules: drop --rules" in capsys.readouterr().err


def test_the_public_tables_are_listed_with_the_command_that_joins_each(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    seats = {"seats": ["human", "human", "easy"], "name": "A", "public": True}
    opened = asyncio.run(post(address, "/api/tables", seats))
    assert main(["play", "--server", address, "--list"]) == 0
    # Its seats as the lobby names them: a bot by its number and level.
    assert capsys.readouterr().out.splitlines() == [
        f"Table {opened['table']} · standard rules · turn-based · A, (free seat), Bot 3 (easy)",
        f"    piepmatz play --server http://{address} --join {opened['table']}",
    ]


def test_a_table_with_friends_shows_its_invites_until_they_sit_down(
    address: str, terminal: None
) -> None:
    seating = seat_online("--server", address, "--seats", "human,HUMAN,random", "--name", "Ben")
    assert seating.seat == 0 and [seat for seat, _link in seating.invites] == [1]

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.table is not None)
            text = screen_text(app)
            assert "Waiting for 1 more person to sit down" in text
            assert f"Seat 2: {seating.invites[0][1]}" in text
            assert "Anyone may watch (without seeing hands): http://" in text

    asyncio.run(scenario())
    # The spectators' link watches the same table.
    assert seating.spectate is not None
    watching = seat_online(seating.spectate)
    assert (watching.table, watching.seat) == (seating.table, None)


async def dropped(text: Any) -> None:
    """A websocket's send that loses what it is given, as a connection about to drop."""


def test_a_quick_game_against_the_servers_bots_starts_at_once(address: str, terminal: None) -> None:
    seating = seat_online(
        "--server",
        address,
        "--players",
        "2",
        "--bots",
        "random",
        "--pace",
        "live",
        "--name",
        "Anna",
    )
    assert seating.invites == []

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.state and screen.state["legal"] and screen.previews)
            text = screen_text(app)
            # The hand is headed with the name the table knows Anna by, as everything else.
            assert "Bot 2 (random)" in text and "YOUR HAND (Anna)" in text
            assert "Player 1" not in text
            # Each choice with the server's preview of what it does.
            first = screen.state["legal"][0]
            assert screen.cards.words(screen.previews[first]["headline"]).plain in text
            # An option of an earlier decision's list (its event late) chooses nothing now.
            move, legal = screen.state["move"], screen.state["legal"]
            assert screen.chosen_action(f"{move}:0") == legal[0]
            assert screen.chosen_action(f"{move - 1}:0") is None
            assert screen.chosen_action(f"{move}:{len(legal)}") is None
            # A message the terminal cannot read is told; the table goes on.
            screen.take({"type": "chat", "text": "no name"})
            await pilot.pause()
            assert any("cannot read" in n.message for n in app._notifications)
            # The live pace's clock runs for the person to move: 5 minutes, counting down.
            people = str(screen.query_one("#people", Static).content)
            assert re.search(r"\(you\) [45]:\d\d", people), people
            # A hint from the server's hint bot, for this decision.
            await pilot.press("h")
            hint = screen.query_one("#hint", Static)
            await until(pilot, lambda: "Hint (" in str(hint.content))
            # The cursor is on the move the hint names.
            suggested = screen.query_one("#choices", OptionList).highlighted
            assert suggested is not None
            with birds_as("code"):
                said = action_words(Action.parse(screen.state["legal"][suggested]))
            assert f"): {screen.cards.words(said).plain} — expected lead" in str(hint.content)
            # A choice is sent once: its preview coming late does not offer it again; a
            # refused one, or one dropped with the connection, is offered again.
            client = screen.client
            assert client is not None
            client.websocket.send = dropped  # type: ignore[method-assign]
            await pilot.press("enter")
            choices = screen.query_one("#choices", OptionList)
            await until(pilot, lambda: choices.option_count == 0)
            screen.take({"type": "preview", "move": move, "previews": []})
            assert choices.option_count == 0 and "Sent:" in screen_text(app)
            screen.take({"type": "error", "code": "rate_limited", "message": "slow down"})
            assert choices.option_count == len(legal)
            await pilot.press("enter")
            await until(pilot, lambda: choices.option_count == 0)
            screen.connected(True)
            screen.take({"type": "preview", "move": move, "previews": []})
            assert choices.option_count == len(legal)

    asyncio.run(scenario())
    # Back to the table by its id: the seat this terminal's key sits at (My games).
    back = seat_online("--server", address, "--join", seating.table)
    assert (back.table, back.seat) == (seating.table, 0)
    assert back.token == player_key(back.server.url)

    async def hello() -> Any:
        url = back.server.ws_url(back.table, "en")
        async with SeatClient.connect(url, back.token) as seat:
            return await asyncio.wait_for(seat.until("welcome"), PATIENCE)

    assert asyncio.run(hello())["seat"] == 0  # the key is the seat's credential there


@pytest.mark.usefixtures("quick_idle")
def test_a_held_enter_plays_on_under_the_servers_message_rate(address: str, terminal: None) -> None:
    seating = seat_online(
        "--server", address, "--players", "2", "--bots", "random", "--name", "Anna"
    )

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.state and screen.state["legal"])
            first = screen.state["move"]
            client = screen.client
            assert client is not None
            sent: list[float] = []
            actions: list[int] = []
            send = client.websocket.send

            async def noted(text: Any) -> None:
                sent.append(time.monotonic())
                message = json.loads(text)
                if message["type"] == "action":
                    actions.append(message["move"])
                await send(text)

            client.websocket.send = noted  # type: ignore[method-assign]
            # Enter held down for three seconds, as a keyboard repeats it: each decision's
            # first choice as soon as it is there (with its preview, two messages each).
            for _ in range(90):
                if screen.ended:  # on a slow machine the held key plays the game out
                    break
                await pilot.press("enter")
                await pilot.pause(1 / 30)
            assert client.reconnects == 0
            refused = [n.message for n in app._notifications if n.title == "Refused"]
            assert refused == [], "the server refused messages sent too fast"
            # Each decision answered once: a preview arriving after the choice does not offer
            # its choices again for the key's next repeat (which ended a game twice).
            assert len(actions) == len(set(actions)), actions
            assert screen.state["move"] - first >= 6, "the held key played on"
            # Under the server's sustained 20 a second: held for long, a faster client would
            # use up its burst, be refused, and be cut off as a flood.
            assert len(sent) / (sent[-1] - sent[0] + SEND_GAP) <= 20

    asyncio.run(scenario())


def test_a_seat_the_server_refuses_is_told_and_not_tried_again(
    address: str, terminal: None
) -> None:
    opened = asyncio.run(post(address, "/api/tables", {"seats": ["human", "human"], "name": "A"}))
    wrong = Seating(Server(f"http://{address}"), opened["table"], 1, "x" * 43)

    async def scenario() -> None:
        app = PiepmatzApp(online=wrong)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.connection == "refused")
            await app.workers.wait_for_complete()  # the connection is given up
            assert "this link is no seat's or spectator's at this table" in screen_text(app)
            assert "disconnected" in str(screen.query_one("#people", Static).content)

    asyncio.run(scenario())


def test_a_banned_player_is_told_why_and_not_tried_again(
    address: str, terminal: None, tmp_path: Path
) -> None:
    seating = seat_online(
        "--server", address, "--players", "2", "--bots", "random", "--name", "Cleo"
    )

    async def banned() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'server.db'}")
        try:
            # Known to the server (as a reported or rated player is), then banned.
            player = token_hash(player_key(seating.server.url))
            store = Store(engine)
            await Players(store).ensure(player)
            await store.close()
            await admin.ban(engine, player[:12], "insults in the chat")
        finally:
            await engine.dispose()

    asyncio.run(banned())

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.connection == "refused")
            await app.workers.wait_for_complete()  # the connection is given up
            assert "insults in the chat" in screen_text(app)

    asyncio.run(scenario())


@pytest.mark.usefixtures("pseudo")
def test_every_text_of_the_online_table_is_translated(
    address: str, terminal: None, tui: Any
) -> None:
    # A name the pseudo-locale check exempts (the game's own), so that only texts are left.
    seating = seat_online("--server", address, "--bots", "random", "--name", "Piepmatz")

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=PSEUDO_SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.state and screen.state["legal"] and screen.previews)
            await pilot.press("h")
            await until(pilot, lambda: "Hint" in str(screen.query_one("#hint", Static).content))
            await pilot.press("t")
            check(app, tui, set())

    asyncio.run(scenario())


def test_a_person_whose_time_ran_out_takes_the_seat_back(address: str, terminal: None) -> None:
    seating = seat_online(
        "--server", address, "--bots", "random", "--pace", "blitz", "--name", "Dora"
    )

    async def scenario() -> None:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, screen.stood_in)  # a second, then the stand-in plays the seat
            assert "(a stand-in plays)" in str(screen.query_one("#people", Static).content)
            await pilot.press("b")
            await until(pilot, lambda: not screen.stood_in())
            assert "(a stand-in plays)" not in str(screen.query_one("#people", Static).content)

    asyncio.run(scenario())


def test_a_game_the_other_person_resigns_is_over_for_the_terminal(
    address: str, terminal: None
) -> None:
    async def scenario() -> None:
        opened = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "Anna"})
        seating = seat_online(opened["invites"][0]["link"], "--name", "Ben")
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            url = f"ws://{address}/ws/{opened['table']}"
            async with SeatClient.connect(url, opened["token"]) as other:
                await asyncio.wait_for(other.until("state"), PATIENCE)
                await other.send({"type": "resign"})
                await until(pilot, lambda: screen.ended)
            assert "Anna resigned: Ben wins." in screen_text(app)
            assert screen.query_one("#choices", OptionList).option_count == 0

    asyncio.run(scenario())


class Impostor(BaseHTTPRequestHandler):
    """A server that answers JSON, but not a Piepmatz server's: a table id that would climb out
    of its path, a list where an object belongs."""

    def do_GET(self) -> None:
        self.answer(["not", "a", "table"] if "/api/tables/" in self.path else {"tables": 1})

    def do_POST(self) -> None:
        self.answer({"table": "../../admin", "seat": 0, "token": "abc"})

    def answer(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_server_that_answers_strangely_is_told_and_named(
    terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    impostor = ThreadingHTTPServer(("127.0.0.1", 0), Impostor)
    threading.Thread(target=impostor.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{impostor.server_address[1]}"
    try:
        said = f"{url} answered, but not as a Piepmatz server does"
        assert main(["play", "--server", url, "--name", "Ben"]) == 2  # a quick game: its id refused
        assert capsys.readouterr().err == f"piepmatz play: {said}\n"
        assert main(["play", f"{url}/play/abc#seat=1&token=xyz"]) == 2
        assert capsys.readouterr().err == f"piepmatz play: {said}\n"
        assert main(["play", "--server", url, "--list"]) == 2
        assert capsys.readouterr().err == f"piepmatz play: {said}\n"
    finally:
        impostor.shutdown()
        impostor.server_close()


class NotPiepmatz(BaseHTTPRequestHandler):
    """Some other web server: every path unknown, as a plain page."""

    def do_GET(self) -> None:
        self.send_error(404)

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


def wrong_version() -> ssl.SSLError:
    """What an https request to a plain http server fails with."""
    error = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    error.reason = "WRONG_VERSION_NUMBER"
    return error


def test_an_address_that_is_not_a_piepmatz_server_is_told(
    terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    other = ThreadingHTTPServer(("127.0.0.1", 0), NotPiepmatz)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{other.server_address[1]}"
    try:
        said = f"{url} answered, but it is not a Piepmatz server (404 Not Found)"
        assert main(["play", "--server", url, "--name", "Ben"]) == 2
        assert capsys.readouterr().err == f"piepmatz play: {said}\n"
        assert main(["replay", f"{url}/replay/abc"]) == 2
        assert said in capsys.readouterr().err
    finally:
        other.shutdown()
        other.server_close()


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (socket.gaierror(-2, "Name or service not known"), "no computer is known by the name h"),
        (ConnectionRefusedError(111, "Connection refused"), "nothing answers at h:81; is the"),
        (TimeoutError("timed out"), "it did not answer in time"),
        (wrong_version(), "the server does not speak https; try http://h:81"),
        (PermissionError(13, "Permission denied"), "at https://h:81: [Errno 13] Permission"),
    ],
)
def test_why_a_server_cannot_be_reached_is_told_in_words(reason: OSError, said: str) -> None:
    told = unreachable("https://h:81", urllib.error.URLError(reason))
    assert told.startswith("cannot reach ") and said in told


def test_the_terminal_resigns_and_asks_to_abort(address: str, terminal: None) -> None:
    async def scenario(resign: bool) -> tuple[str, dict[str, Any]]:
        opened = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "Anna"})
        seating = seat_online(opened["invites"][0]["link"], "--name", "Ben")
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            url = f"ws://{address}/ws/{opened['table']}"
            async with SeatClient.connect(url, opened["token"]) as other:
                await asyncio.wait_for(other.until("state"), PATIENCE)
                await until(pilot, lambda: screen.table and screen.table["abortable"])
                if resign:
                    await pilot.press("g")  # asked first: yes
                    await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
                    assert "The game ends at once and Anna wins." in screen_text(app)
                    await pilot.press("y")
                else:
                    await pilot.press("a")
                    await until(pilot, lambda: screen.table and screen.table["abort"] == [1])
                    assert not screen.check_action("abort", ())  # asked once
                    await other.send({"type": "abort"})
                await until(pilot, lambda: screen.ended)
                ending = await asyncio.wait_for(other.until("state"), PATIENCE)
            assert not screen.check_action("resign", ())
            assert screen.query_one("#choices", OptionList).option_count == 0
            return str(screen.query_one("#choices-title", Static).content), ending["ending"]

    said, ending = asyncio.run(scenario(resign=True))
    assert said == "Ben resigned: Anna wins."
    assert (ending["how"], ending["seat"], ending["winners"]) == ("resigned", 1, [0])
    said, ending = asyncio.run(scenario(resign=False))
    assert said == "The game was aborted: nobody wins."
    assert (ending["how"], ending["winners"]) == ("aborted", [])


def test_text_mode_plays_a_whole_online_game_as_plain_lines(
    address: str,
    terminal: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``play --text`` at the server: a script's lines answer the decisions in turn (a number
    of the help list, a line of notation, chat, commands); refused lines are told on stderr and
    asked again; the log is the server's, and the score sheet is the record's."""
    script = ["help", "say hello table", "table", "log", "rules", "hint", "0", "play XX9z 1"]
    script += ["1"] * 400
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(script) + "\n"))
    argv = ["play", "--server", address, "--bots", "random", "--players", "2", "--name", "Ben"]
    assert main([*argv, "--text"]) == 1  # a script's refused lines: status 1 at the end
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"Piepmatz at http://{address} · standard rules · Ben (you), Bot 2 (random)"
    # help: every legal action numbered, in words, with the server's preview of what it does
    # and the notation to type; birds in words on the table too.
    listed = [line for line in lines if re.match(r"^\s+\d+\. .+ — .+ \((play|draw) .+\)$", line)]
    plays = [line for line in listed if re.search(r"[a-z] [1-6][♂♀] → .+ \(play ", line)]
    assert plays, listed[:3]  # the first decision is a play: its birds in words
    assert re.search(r"^YOUR HAND \(Ben\)  [A-Z][a-z]+( [a-z]+)? [1-6][♂♀]", out, re.MULTILINE)
    assert "Ben: hello table\n" in out  # the chat, as the server says it to everyone
    # log: the server's sentences so far again (the first turn's twice by then); rules: the
    # guide and the rules in play, as the local text mode prints them.
    first = next(line for line in lines if line.startswith("Turn 1: "))
    assert out.count(first + "\n") == 2  # (a line may begin with the prompt, on a pipe)
    assert all(line in out for line in rules_lines(Rules.preset("standard"))[:3] if line)
    # The server's hint for the first decision (a play), its bird in words; the next prompt
    # waits for it (a line of the pipe's output may begin with the prompt, the input unseen).
    bird = r"[A-Z][a-z]+(?: [a-z]+)? [1-6][♂♀]"
    hinted = rf"(?:^|\(play\)> )Hint \(hard bot\): {bird} → perch [12] — expected lead "
    assert re.search(hinted, out, re.MULTILINE)
    assert not re.search(r"\(play\)> Ben \(play\)> Hint", out)
    assert "error: there is no move 0: choose 1-" in err
    assert err.count("error: ") == 2, err  # the two refused lines, and nothing else
    # The server's log, by name; the prompt names the seat and what it decides.
    assert out.count("Ben plays ") > 5 and out.count("Bot 2 plays ") > 5
    assert "Ben (play)> " in out and "Ben (draw)> " in out
    assert "YOUR HAND (Ben)" in out and "YOUR HAND (Player 1)" not in out
    # The table is the local text mode's, the perches under the heading that explains them.
    heading = "PERCHES  (each perch: its bird, then the ground birds in order of arrival)"
    assert f"\n{heading}\n 1 " in out
    # The score sheet, replayed from the record: its totals are the server's result.
    server = Server(address)
    (game,) = server.my_games(player_key(server.url))["finished"]
    record = server.request(f"tables/{game['table']}/record")
    want = [p["total"] for p in record["result"]["players"]]
    assert re.search(rf"^total\s+{want[0]}\s+{want[1]}$", out, re.MULTILINE), out[-1500:]
    # Ben's own score told by its cards, and the command that replays the game.
    told = out.split("Your score, by its cards:\n", 1)[1].splitlines()
    assert re.match(r"  Seeds \d+: ", told[0]) and re.match(r"  Pairs \d+", told[1])
    assert f"To replay this game: piepmatz replay http://{address}/replay/{game['table']}" in out


def test_text_mode_leaves_the_table_at_quit_and_the_seat_stays(
    address: str,
    terminal: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    argv = ["play", "--server", address, "--bots", "random", "--name", "Cleo", "--text"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    server = Server(address)
    (game,) = server.my_games(player_key(server.url))["playing"]
    assert game["seat"] == 0
    # It says the command back: a quick game's own command would deal a new table.
    back = f"piepmatz play --server {server.url} --join {game['table']}"
    said = f"You left the table: your seat stays yours; {back} takes you back."
    assert out.rstrip().endswith(said)
    # The end of input leaves the same way, back at the same seat.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([*back.split()[1:], "--text"]) == 0
    again = capsys.readouterr().out
    assert f"End of input: you left the table; {back} takes you back." in again
    assert server.my_games(player_key(server.url))["playing"] == [game]


def test_text_mode_with_a_spectators_link_prints_the_game_to_its_end(
    address: str,
    terminal: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nothing is read: there is no prompt

    async def scenario() -> int:
        opened = await post(address, "/api/tables", {"seats": ["human", "random"], "name": "Anna"})
        other = asyncio.create_task(anna(address, opened["table"], opened["token"], [], []))
        status = await asyncio.to_thread(main, ["play", opened["spectate"], "--text"])
        await asyncio.wait_for(other, PATIENCE)
        return status

    assert asyncio.run(scenario()) == 0
    out = capsys.readouterr().out
    assert out.startswith("Piepmatz at ") and "(you)" not in out and "> " not in out
    assert "YOUR HAND" not in out and out.count("Anna plays ") > 5
    assert re.search(r"^total\s+\d+\s+\d+$", out, re.MULTILINE)


def test_find_seats_the_terminal_with_a_person_already_waiting(
    address: str, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    anna_key = secrets.token_urlsafe(32)

    async def seek_as_anna() -> Any:
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            asked = await http.post(
                "/api/seek",
                json={"players": 2, "pace": "live", "name": "Anna"},
                headers={"Authorization": f"Bearer {anna_key}"},
            )
            assert asked.status_code == 201 and asked.json()["status"] == "waiting"

    async def where_is_anna() -> Any:
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            answer = await http.get("/api/seek", headers={"Authorization": f"Bearer {anna_key}"})
            return answer.json()

    asyncio.run(seek_as_anna())
    seating = seat_online("--server", address, "--find", "--name", "Ben")
    anna = asyncio.run(where_is_anna())
    assert anna["status"] == "seated" and anna["table"] == seating.table
    assert {anna["seat"], seating.seat} == {0, 1}
    # Seated at the table: the server knows the terminal's seat by its player key.
    server = Server(address)
    (game,) = server.my_games(player_key(server.url))["playing"]
    assert (game["table"], game["seat"]) == (seating.table, seating.seat)
    # What a found game does not take is refused, naming it.
    with pytest.raises(OnlineError, match=r"--find looks for people.*drop --rules, --seed"):
        seat_online("--server", address, "--find", "--rules", "overview", "--seed", "3")
    with pytest.raises(OnlineError, match="--find needs --server"):
        seat_online("--find")


def test_find_fills_the_seats_with_bots_once_the_wait_is_over(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    with running_server(url, pairing=PairingRules(bots_after=0.5)) as address:
        server = Server(address)
        told: list[str] = []
        seating = server.find(
            "Ben", secrets.token_urlsafe(32), 3, "live", told.append, lambda: True, every=0.1
        )
        table = server.table(seating.table)
    assert [s["kind"] for s in table["seats"]].count("human") == 1 and len(table["seats"]) == 3
    assert told[0].startswith("Looking for a game of 3 players (live): 0 other people wait for it.")
    assert told[-1].endswith("Press Enter to fill the empty seats with bots now; Ctrl+C gives up.")


def test_ctrl_c_while_finding_gives_the_seek_up(address: str) -> None:
    server, key = Server(address), secrets.token_urlsafe(32)

    def interrupted(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(OnlineError, match="you stopped looking for a game"):
        server.find("Ben", key, 2, "live", interrupted, lambda: False)
    with pytest.raises(OnlineError) as gone:
        server.request("seek", key=key)
    assert gone.value.status == 404  # the server's list holds it no more


def test_text_mode_tells_a_message_it_cannot_read_and_goes_on() -> None:
    out, err = io.StringIO(), io.StringIO()
    game = OnlineText(Seating(Server("http://host"), "abc", 0, "tok"), out, io.StringIO(), err)
    for strange in ({"type": "state"}, {"type": "state", "events_from": 0, "events": "x"}):
        assert game.take_or_tell(strange) is None
    assert err.getvalue().count("error: The server sent a message this terminal cannot read") == 2
    assert not game.refused and game.state is None  # nothing taken from it


def test_text_mode_greets_before_a_chat_line_said_during_its_hello() -> None:
    out = io.StringIO()
    game = OnlineText(Seating(Server("http://host"), "abc", None, "tok"), out, out, out)
    game.take({"type": "chat", "name": "Anna", "text": "good luck!"})
    assert out.getvalue() == ""
    seats = [{"name": "Anna", "kind": "human"}, {"name": "Ben", "kind": "human"}]
    table = {"type": "table", "rules": "standard", "seats": seats}
    game.take(table)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Piepmatz at http://host · standard rules")
    assert lines[1:] == ["Anna: good luck!"]
    game.take({"type": "chat", "name": "Ben", "text": "thanks"})
    assert out.getvalue().splitlines()[-1] == "Ben: thanks"


def test_text_mode_tells_a_bot_played_for_by_the_fallback() -> None:
    out = io.StringIO()
    game = OnlineText(Seating(Server("http://host"), "abc", 0, "tok"), out, out, out)
    seats = [{"name": "Anna", "kind": "human"}, {"name": "", "kind": "mine"}]
    game.take({"type": "table", "rules": "standard", "seats": seats})
    failed = {"seat": 1, "bot": "mine", "fallback": "greedy", "move": 4, "reason": "it failed"}
    game.take({"type": "bot_replaced", **failed})
    assert out.getvalue().splitlines()[-1] == (
        "Bot 2 (mine) could not move: the greedy bot played this move for it."
    )


def test_text_mode_tells_when_a_stand_in_plays_for_another_person_and_when_they_return() -> None:
    out = io.StringIO()
    game = OnlineText(Seating(Server("http://host"), "abc", 0, "tok"), out, out, out)
    seats = [{"name": "Tomáš", "kind": "human"}, {"name": "Jana", "kind": "human"}]
    game.take({"type": "table", "rules": "standard", "seats": seats})
    game.take({"type": "stand_in", "seat": 1, "bot": "medium", "reason": "time", "move": 3})
    game.take({"type": "returned", "seat": 1})
    assert out.getvalue().splitlines()[-2:] == [
        "Jana's time ran out: the medium bot plays for them until they come back.",
        "Jana is back and plays again.",
    ]


def test_the_pace_and_the_time_left_for_a_move_are_said_in_words() -> None:
    turn = {"name": "turn-based", "kind": "turn", "per_move": 86400.0}
    live = {"name": "live", "kind": "live", "base": 300.0, "increment": 5.0, "away": 60.0}
    assert pace_words(turn).startswith("Turn-based: 1 day a move. Each move has its time;")
    assert pace_words(live).startswith("Live: 5 min + 5 s a move. Each person has a clock.")
    assert pace_words(None) == "Untimed"
    clock = {"left": [None, None], "running": 1, "deadline": 90_061_000, "now": 0}
    assert move_time_left(clock, 1) == "1 day 1 h 1 min 1 s"
    assert move_time_left(clock, 1, since=61) == "1 day 1 h"
    assert move_time_left(clock, 0) is None  # not that seat's move
    assert move_time_left(None, 1) is None  # an untimed table
    # The text mode names the pace when it sits down.
    out = io.StringIO()
    game = OnlineText(Seating(Server("http://host"), "abc", 0, "tok"), out, out, out)
    seats = [{"name": "Tomáš", "kind": "human"}, {"name": "Jana", "kind": "human"}]
    game.take({"type": "table", "rules": "standard", "seats": seats, "pace": turn})
    assert out.getvalue().splitlines()[1] == pace_words(turn)


def test_text_mode_asks_again_for_an_answer_a_broken_connection_lost(
    address: str,
    terminal: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The connection breaks as the seat's first answer is sent: the answer is lost, and the
    state after the reconnect asks the same decision again (before, nothing was asked and the
    game waited for ever)."""
    send = SeatClient.send
    answers: list[dict[str, Any]] = []

    async def breaking(client: SeatClient, message: dict[str, Any] | str) -> None:
        if isinstance(message, dict) and message.get("type") == "action":
            answers.append(message)
            if len(answers) == 1:
                await client.websocket.close()  # down as the answer goes: it never arrives
        await send(client, message)

    monkeypatch.setattr(SeatClient, "send", breaking)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    argv = ["play", "--server", address, "--bots", "random", "--players", "2", "--name", "Ben"]
    status: list[int] = []
    game = threading.Thread(target=lambda: status.append(main([*argv, "--text"])), daemon=True)
    game.start()
    game.join(PATIENCE)
    out, err = capsys.readouterr()
    assert status == [0], "the game waits for an answer that was lost"
    assert err == ""
    # The lost answer's decision was asked again and answered again; the game went on to its
    # end, every decision answered once more.
    assert answers[1]["move"] == answers[0]["move"]
    assert len({a["move"] for a in answers}) == len(answers) - 1
    assert re.search(r"^total\s+\d+\s+\d+$", out, re.MULTILINE)
    # The break and the way back were said, once each: a terminal gone silent looks hung.
    assert out.count("The connection to the server broke: reconnecting…") == 1
    assert out.index("reconnecting…") < out.index("Connected again.")


class Keyboard:
    """A person at a terminal: lines typed when the test says, read whenever they come."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def type(self, line: str) -> None:
        self.lines.put(line + "\n")

    def readline(self) -> str:
        return self.lines.get()

    def isatty(self) -> bool:
        return True


async def ben_at_a_terminal(address: str) -> tuple[OnlineText, Keyboard, io.StringIO, Any]:
    """Anna opens a table for two; Ben sits down in the text mode, at a terminal; whoever
    moves first, Ben answers his decisions until Anna is to move."""
    opened = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "Anna"})
    seating = await asyncio.to_thread(seat_online, opened["invites"][0]["link"], "--name", "Ben")
    keyboard, out = Keyboard(), io.StringIO()
    ben = OnlineText(seating, out, keyboard, io.StringIO())  # type: ignore[arg-type]
    playing = asyncio.create_task(ben.games())
    deadline = time.monotonic() + PATIENCE
    while ben.view is None or ben.table is None or ben.view.current_player != 0:
        assert time.monotonic() < deadline, "waited too long"
        if ben.state is not None and ben.legal() and ben.asked != ben.state["move"]:
            keyboard.type("1")
            await wait_for(lambda: ben.asked is not None)
        await asyncio.sleep(0.01)
    return ben, keyboard, out, (opened, playing)


@contextlib.asynccontextmanager
async def anna_to_move(
    address: str,
) -> AsyncIterator[tuple[Any, dict[str, Any], Keyboard, Any, Any, str]]:
    """:func:`ben_at_a_terminal`, and Anna connected at her seat once it is her move: her
    client, that state, Ben's keyboard and output, his game's task and the table."""
    _ben, keyboard, out, (opened, playing) = await ben_at_a_terminal(address)
    url = f"ws://{address}/ws/{opened['table']}"
    async with SeatClient.connect(url, opened["token"]) as anna:
        state = await anna.until("state")
        while not state["legal"]:
            state = await anna.until("state")
        yield anna, state, keyboard, out, playing, opened["table"]


async def wait_for(holds: Callable[[], object]) -> None:
    deadline = time.monotonic() + PATIENCE
    while not holds():
        assert time.monotonic() < deadline, "waited too long"
        await asyncio.sleep(0.01)


def test_text_mode_at_a_terminal_reads_a_line_while_others_play(
    address: str, terminal: None
) -> None:
    """A person types whenever they like: chat and an abort go while it is Anna's turn (a
    script's lines wait for the seat's prompts), and Anna's wish to abort is told, with how to
    agree."""

    async def scenario() -> tuple[str, int]:
        async with anna_to_move(address) as (anna, _state, keyboard, out, playing, _table):
            keyboard.type("say hello Anna")  # not Ben's turn: said at once all the same
            chat = await asyncio.wait_for(anna.until("chat"), PATIENCE)
            assert chat["text"] == "hello Anna"
            await anna.send({"type": "abort"})
            await wait_for(lambda: "type abort to agree" in out.getvalue())
            keyboard.type("abort")
            # Over: at a terminal the people may play again; Ben leaves instead.
            await wait_for(lambda: "Type again to play again" in out.getvalue())
            keyboard.type("quit")
            status = await asyncio.wait_for(playing, PATIENCE)
        return out.getvalue(), status

    out, status = asyncio.run(scenario())
    assert status == 0
    assert "Anna asked to abort the game: type abort to agree. It is aborted once every" in out
    assert "Asked to abort: the game is aborted once every person at the table asks." in out
    assert out.rstrip().endswith(
        "The game was aborted: nobody wins.\n"
        "Type again to play again with the same people, or quit.\nYou left the table."
    )


def test_text_mode_tells_who_sits_down_and_asks_again_after_a_line(
    address: str, terminal: None
) -> None:
    """Anna waits at her table in the text mode: told how many people it waits for and who
    sat down; at her prompt, Ben's chat line starts a line of its own and the prompt is
    asked again after it (a screen reader hears that input is still awaited)."""

    async def scenario() -> str:
        opened = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "A"})
        seating = Seating(Server(address), opened["table"], 0, opened["token"])
        keyboard, out = Keyboard(), io.StringIO()
        anna = OnlineText(seating, out, keyboard, io.StringIO())  # type: ignore[arg-type]
        playing = asyncio.create_task(anna.play())
        await wait_for(lambda: "Waiting for 1 more person to sit down" in out.getvalue())
        body = {"name": "Ben", "token": opened["invites"][0]["token"]}
        joined = await post(address, f"/api/tables/{opened['table']}/join", body, status=200)
        await wait_for(lambda: "Ben sat down." in out.getvalue())
        url = f"ws://{address}/ws/{opened['table']}"
        async with SeatClient.connect(url, joined["token"]) as ben:

            async def plays() -> None:  # Ben's decisions, until Anna is asked
                while True:
                    message = await ben.receive()
                    if message["type"] == "state" and message["legal"]:
                        await ben.act(message["legal"][0], message["move"])

            playing_ben = asyncio.create_task(plays())
            await wait_for(lambda: anna.prompt_open)
            playing_ben.cancel()
            await ben.send({"type": "chat", "text": "your turn, A"})
            await wait_for(lambda: out.getvalue().endswith("> "))
            await wait_for(lambda: "Ben: your turn, A" in out.getvalue())
            await wait_for(lambda: out.getvalue().endswith("> "))
            keyboard.type("quit")
            await asyncio.wait_for(playing, PATIENCE)
        return out.getvalue()

    out = asyncio.run(scenario())
    assert out.count("Waiting for 1 more person to sit down: the game starts then.") == 1
    prompt = re.search(r"\n(A \((?:play|draw)\)> )\nBen: your turn, A\n(.*)$", out, re.S)
    assert prompt is not None, out[-400:]
    assert prompt.group(2).startswith(prompt.group(1))  # asked again, on a line of its own


def test_text_mode_names_the_replay_of_a_game_the_other_resigned(
    address: str, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anna moves, then resigns: Ben is told who won and how to replay what was played."""

    async def scenario() -> tuple[str, str]:
        async with anna_to_move(address) as (anna, state, keyboard, out, playing, table):
            await anna.act(state["legal"][0], state["move"])
            await anna.send({"type": "resign"})
            await wait_for(lambda: "Type again to play again" in out.getvalue())
            keyboard.type("quit")
            await asyncio.wait_for(playing, PATIENCE)
        return out.getvalue(), table

    out, table = asyncio.run(scenario())
    command = f"piepmatz replay http://{address}/replay/{table}"
    assert f"Anna resigned: Ben wins.\nTo replay this game: {command}\n" in out
    assert main(command.split()[1:]) == 0
    assert "Anna resigned" in capsys.readouterr().out


def test_text_mode_resigns_when_asked_and_confirmed_and_plays_again(
    address: str, terminal: None
) -> None:
    """Ben resigns (asked first); Anna asks to play again, Ben is told and joins: the new
    game has them at the same seats."""

    async def scenario() -> tuple[str, int, dict[str, Any], dict[str, Any]]:
        _ben, keyboard, out, (opened, playing) = await ben_at_a_terminal(address)
        url = f"ws://{address}/ws/{opened['table']}"
        async with SeatClient.connect(url, opened["token"]) as anna:
            await anna.until("state")
            keyboard.type("resign")
            await wait_for(lambda: "Type yes to resign" in out.getvalue())
            keyboard.type("table")  # anything but yes: plays on
            await wait_for(lambda: "You play on." in out.getvalue())
            assert not playing.done()
            keyboard.type("resign")
            keyboard.type("yes")
            state = anna.state
            while not state.get("ending"):
                state = await asyncio.wait_for(anna.until("state"), PATIENCE)
        await wait_for(lambda: "Type again to play again" in out.getvalue())
        rematch = f"/api/tables/{opened['table']}/rematch"
        again = await post(address, rematch, {"token": opened["token"]})
        await wait_for(lambda: "Anna wants to play again: type again to join." in out.getvalue())
        keyboard.type("again")
        new = f"/api/tables/{again['table']}"
        await wait_for(lambda: out.getvalue().count("Piepmatz at http://") == 2)  # greeted there
        info = await asyncio.to_thread(lambda: Server(address).request(new[5:]))
        keyboard.type("quit")
        status = await asyncio.wait_for(playing, PATIENCE)
        return out.getvalue(), status, state["ending"], info

    out, status, ending, info = asyncio.run(scenario())
    assert status == 0 and ending["how"] == "resigned" and ending["seat"] == 1
    assert "Resign this game? The game ends at once and Anna wins. Type yes to resign" in out
    # (With the command that replays it when moves were made: who moves first is the deal's.)
    said = r"Ben resigned: Anna wins.\n(To replay this game: piepmatz replay \S+\n)?Type again"
    assert re.search(said, out)
    assert info["status"] == "playing"
    assert [s["name"] for s in info["seats"]] == ["Anna", "Ben"]
    # The new table's game, in the same lines: its greeting and Ben's seat.
    new_game = out.split("To the new table: the game starts once everyone is there.\n", 1)[1]
    assert new_game.startswith(f"Piepmatz at http://{address} · standard rules · Anna, Ben (you)")


def test_text_mode_asks_again_when_the_server_refuses_its_help() -> None:
    err = io.StringIO()
    game = OnlineText(
        Seating(Server("http://host"), "abc", 0, "tok"), io.StringIO(), io.StringIO(), err
    )
    game.asked, game.asking = 7, True  # an answer sent, then the list of moves asked for
    refused = {"type": "error", "code": "rate_limited", "message": "more than 20 messages"}
    assert game.take(refused) is None
    # Neither the answer nor the list is awaited any more: the prompt asks again.
    assert game.asked is None and not game.asking
    assert err.getvalue() == "error: more than 20 messages\n"


def test_ctrl_c_or_closing_the_screen_mid_game_says_the_way_back(
    address: str,
    terminal: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from types import SimpleNamespace

    from piepmatz.tui.app import PiepmatzApp
    from piepmatz.tui.onlinetext import OnlineText

    def interrupted(self: OnlineText) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(OnlineText, "run", interrupted)
    argv = ["play", "--server", address, "--bots", "random", "--name", "Cleo"]
    assert main([*argv, "--text"]) == 130  # as a shell counts Ctrl+C, and no traceback
    server = Server(address)
    table = server.my_games(player_key(server.url))["playing"][0]["table"]
    back = f"piepmatz play --server {server.url} --join"
    assert capsys.readouterr().out.rstrip().endswith("takes you back.")
    # The full screen closed: mid-game the way back is printed, after the end nothing.
    for ended in (False, True):

        def closed(self: PiepmatzApp, ended: bool = ended) -> None:
            self.online_screen = SimpleNamespace(ended=ended)  # type: ignore[assignment]

        monkeypatch.setattr(PiepmatzApp, "run", closed)
        assert main([*argv[:3], "--join", table]) == 0
        out = capsys.readouterr().out
        assert (f"{back} {table} takes you back." in out) != ended


def test_a_chat_line_too_long_is_told_here_in_words_and_not_sent() -> None:
    from piepmatz.server.plaintext import MAX_CHAT, MAX_NAME
    from piepmatz.tui.online import CHAT_LENGTH, NAME_LENGTH
    from piepmatz.tui.onlinetext import OnlineText

    assert (CHAT_LENGTH, NAME_LENGTH) == (MAX_CHAT, MAX_NAME)  # as the server takes them
    seating = Seating(Server("http://host.example"), "T", 0, "x" * 43)
    out, err = io.StringIO(), io.StringIO()
    game = OnlineText(seating, out, io.StringIO(), err)
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    game.send = send  # type: ignore[method-assign]
    asyncio.run(game.answer("say " + "a" * 501))
    assert err.getvalue() == "error: a chat line has at most 500 characters, not 501\n"
    asyncio.run(game.answer("say " + "a" * 500))
    assert sent == [{"type": "chat", "text": "a" * 500}]


def test_text_mode_back_says_where_the_seat_stands() -> None:
    from piepmatz.tui.onlinetext import OnlineText

    seating = Seating(Server("http://host.example"), "T", 0, "x" * 43)
    out = io.StringIO()
    game = OnlineText(seating, out, io.StringIO(), io.StringIO())
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    game.send = send  # type: ignore[method-assign]
    seats = [{"seat": 0, "kind": "human", "name": "Anna", "absent": None}]
    game.table = {"type": "table", "seats": seats}
    asyncio.run(game.answer("back"))  # nobody plays for Anna: nothing to ask the server
    assert sent == [] and "Nobody plays for you: your seat is yours." in out.getvalue()
    seats[0]["absent"] = "away"
    asyncio.run(game.answer("back"))
    assert sent == [{"type": "back"}]
    game.take({"type": "returned", "seat": 0, "move": 9})
    assert out.getvalue().rstrip().endswith("You are back in your seat.")
    game.take({"type": "returned", "seat": 0, "move": 15, "moves": 3})
    assert (
        out.getvalue()
        .rstrip()
        .endswith("You are back in your seat: the medium bot made 3 moves for you meanwhile.")
    )


def test_only_a_seated_person_is_offered_to_play_again() -> None:
    """Playing again is for the people at the table: a spectator (no seat) is never offered
    it, nor someone whose table had nobody else; and another person's wish is told once."""
    anna, ben = {"seat": 0, "kind": "human", "name": "Anna"}, {"seat": 1, "kind": "human"}
    bot = {"seat": 1, "kind": "random", "name": "random"}
    assert others_at({"seats": [anna, ben | {"name": "Ben"}]}, 1)
    assert not others_at({"seats": [anna, ben | {"name": "Ben"}]}, None)
    assert not others_at({"seats": [anna, bot]}, 0)
    assert not others_at({"seats": [anna, ben]}, 0)  # Ben's invite was never taken
    table = {"seats": [anna, ben | {"name": "Ben"}], "rematch": {"table": "t2", "by": 0}}
    assert offered_again({"seats": table["seats"]}, table, 1) == "Anna"
    assert offered_again(table, table, 1) is None  # told already
    assert offered_again({}, table, 0) is None  # Anna's own wish
    assert offered_again({}, table, None) is None  # a spectator's screen


def test_text_mode_gives_a_free_seat_to_the_stand_in_at_a_waiting_table(
    address: str, terminal: None
) -> None:
    """Anna waits for two friends; one does not come: ``bot 2`` gives his seat to the table's
    stand-in, a seat that is not free is refused with the free ones, and the game begins once
    Ben sits down. Once it has begun, no seat waits for anyone."""

    async def scenario() -> tuple[str, str, dict[str, Any]]:
        seats = {"seats": ["human", "human", "human"], "name": "Anna", "stand_in": "easy"}
        opened = await post(address, "/api/tables", seats)
        seating = Seating(Server(address), opened["table"], 0, opened["token"])
        keyboard, out, err = Keyboard(), io.StringIO(), io.StringIO()
        anna = OnlineText(seating, out, keyboard, err)  # type: ignore[arg-type]
        playing = asyncio.create_task(anna.play())
        await wait_for(lambda: "bot 3: Let the easy bot play seat 3" in out.getvalue())
        keyboard.type("bot 7")
        await wait_for(lambda: "free seat's number: 2, 3." in err.getvalue())
        keyboard.type("bot 2")
        await wait_for(lambda: "Waiting for 1 more person to sit down" in out.getvalue())
        invite = next(i for i in opened["invites"] if i["seat"] == 2)
        body = {"name": "Ben", "token": invite["token"]}
        await post(address, f"/api/tables/{opened['table']}/join", body, status=200)
        await wait_for(lambda: anna.state is not None)
        keyboard.type("bot 3")
        await wait_for(lambda: "No seat here waits" in err.getvalue())
        keyboard.type("quit")
        await asyncio.wait_for(playing, PATIENCE)
        return out.getvalue(), err.getvalue(), anna.table or {}

    out, err, table = asyncio.run(scenario())
    assert [s["kind"] for s in table["seats"]] == ["human", "easy", "human"]
    assert table["status"] == "playing"
    assert "Type bot and a free seat's number: 2, 3." in err
    assert "No seat here waits for a person a bot could replace." in err
    # Offered while waiting: both seats, then the one still free; never seat 2 again.
    assert out.count("bot 2: Let the easy bot play seat 2") == 1
    assert out.count("bot 3: Let the easy bot play seat 3") == 2


def test_the_table_screen_offers_each_free_seat_to_the_stand_in(
    address: str, terminal: None
) -> None:
    """At the table screen the free seat is one of the choices while the table waits; chosen,
    the stand-in sits there and, every seat taken, the game is dealt."""
    seating = seat_online("--server", address, "--seats", "human,human,random", "--name", "Ben")

    async def scenario() -> tuple[list[str], str, dict[str, Any]]:
        app = PiepmatzApp(online=seating)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, OnlineTableScreen)
            await until(pilot, lambda: screen.table is not None)
            choices = screen.query_one("#choices", OptionList)
            offered = [
                str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)
            ]
            choices.focus()
            choices.highlighted = 0
            await pilot.press("enter")
            await until(pilot, lambda: screen.state is not None)
            return offered, screen_text(app), screen.table or {}

    offered, text, table = asyncio.run(scenario())
    assert offered == ["Let the medium bot play seat 2"]
    assert [s["kind"] for s in table["seats"]] == ["human", "medium", "random"]
    assert "Waiting for" not in text
