"""Every HTTP call and WebSocket message of the server, good and bad, through a real uvicorn."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import piepmatz.bots
from piepmatz.server.client import SeatClient
from piepmatz.server.messages import MAX_MESSAGE
from piepmatz.server.plaintext import MAX_CHAT
from piepmatz.server.roster import BotRoster
from serverplay import game_at, get, open_table, post, running_server, until, ws_url


async def _two_people(address: str, public: bool = False) -> dict[str, Any]:
    return await open_table(address, ["human", "human"], public=public)


# ---------------------------------------------------------------------- HTTP


def test_a_new_table_gives_each_free_seat_an_invite_and_stores_only_hashes(
    server: str, sqlite_url: str
) -> None:
    async def run() -> dict[str, Any]:
        return await post(
            server,
            "/api/tables",
            {"seats": ["easy", "human", "human", "human"], "name": "Anna", "seat": 2},
        )

    table = asyncio.run(run())
    assert table["seat"] == 2
    assert sorted(i["seat"] for i in table["invites"]) == [1, 3]
    tokens = [table["token"], table["spectator_token"]] + [i["token"] for i in table["invites"]]
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) >= 43 for t in tokens), "at least 256 bits, URL-safe"
    assert all(
        i["link"].endswith(f"#seat={i['seat']}&token={i['token']}") for i in table["invites"]
    )
    database = Path(sqlite_url.split("///", 1)[1])
    with sqlite3.connect(database) as conn:
        dump = "\n".join(conn.iterdump())
    assert not any(token in dump for token in tokens), "tokens are stored only as hashes"
    info = asyncio.run(get(server, f"/api/tables/{table['table']}"))
    assert info["status"] == "waiting"
    assert [s["name"] for s in info["seats"]] == ["easy", None, "Anna", None]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"seats": ["human"], "name": "A"}, "at least 2"),
        ({"seats": ["human"] * 5, "name": "A"}, "at most 4"),
        ({"seats": ["human", "grandmaster"], "name": "A"}, "seat 2: not a bot this server offers"),
        ({"seats": ["easy", "medium"], "name": "A"}, "at least one person"),
        ({"seats": ["human", "easy"], "name": "A", "rules": "chess"}, "chess"),
        ({"seats": ["human", "easy"], "name": "A", "rules": "standard:draw=many"}, "draw"),
        ({"seats": ["human", "easy"], "name": "A", "seat": 1}, "seat 2 is not a person's seat"),
        ({"seats": ["human", "easy"], "name": ""}, "name"),
        ({"seats": ["human", "easy"], "name": "A" * 33}, "name"),
        ({"seats": ["human", "easy"], "name": "Anna\nBen"}, "one line"),
        ({"seats": ["human", "easy"], "name": "A", "colour": "red"}, "colour"),
    ],
)
def test_a_table_that_cannot_be_is_refused_with_what_was_wrong(
    server: str, body: dict[str, Any], says: str
) -> None:
    answer = asyncio.run(post(server, "/api/tables", body, status=422))
    assert says in json.dumps(answer)
    assert asyncio.run(get(server, "/api/tables")) == []


def test_public_tables_are_listed_until_full_and_joined_without_invite(server: str) -> None:
    async def run() -> None:
        public = await _two_people(server, public=True)
        await _two_people(server, public=False)
        listed = await get(server, "/api/tables")
        assert [t["table"] for t in listed] == [public["table"]]
        joined = await post(
            server, f"/api/tables/{public['table']}/join", {"name": "Cleo"}, status=200
        )
        assert joined["seat"] == 1 and len(joined["token"]) >= 43
        assert await get(server, "/api/tables") == []
        info = await get(server, f"/api/tables/{public['table']}")
        assert info["status"] == "playing"
        assert [s["name"] for s in info["seats"]] == ["Anna", "Cleo"]
        full = await post(
            server, f"/api/tables/{public['table']}/join", {"name": "Dora"}, status=409
        )
        assert "taken" in full["detail"]

    asyncio.run(run())


def test_joining_needs_the_right_invite(server: str) -> None:
    async def run() -> None:
        table = await post(server, "/api/tables", {"seats": ["human", "human"], "name": "A"})
        path = f"/api/tables/{table['table']}/join"
        no_invite = await post(server, path, {"name": "B"}, status=403)
        assert "invite only" in no_invite["detail"]
        wrong = await post(server, path, {"name": "B", "token": "x" * 43}, status=403)
        assert "not for a seat" in wrong["detail"]
        invite = table["invites"][0]["token"]
        assert (await post(server, path, {"name": "B", "token": invite}, status=200))["seat"] == 1
        again = await post(server, path, {"name": "C", "token": invite}, status=409)
        assert again["detail"] == "seat 2 is already taken"  # counted from 1, as people do
        await post(server, "/api/tables/nosuchtable/join", {"name": "B"}, status=404)
        info = await get(server, f"/api/tables/{table['table']}")
        assert [s["name"] for s in info["seats"]] == ["A", "B"]

    asyncio.run(run())


def test_play_against_bots_now_starts_at_once_and_the_record_waits_for_the_end(
    server: str,
) -> None:
    async def run() -> None:
        game = await post(server, "/api/quick", {"name": "Anna", "players": 4, "bot": "easy"})
        info = await get(server, f"/api/tables/{game['table']}")
        assert info["status"] == "playing"
        assert [s["kind"] for s in info["seats"]] == ["human", "easy", "easy", "easy"]
        assert game["invites"] == []
        refused = await get(server, f"/api/tables/{game['table']}/record", status=409)
        assert "not over" in refused["detail"]
        await post(server, "/api/quick", {"players": 5}, status=422)
        await post(server, "/api/quick", {"bot": "nobody"}, status=422)
        await get(server, "/api/tables/nosuchtable", status=404)

    asyncio.run(run())


# ---------------------------------------------------------------------- WebSocket


def test_hello_names_the_seat_or_the_spectator_and_a_bad_one_is_refused(server: str) -> None:
    async def run() -> None:
        table = await post(server, "/api/tables", {"seats": ["human", "human"], "name": "A"})
        url = ws_url(server, table["table"])
        async with SeatClient.connect(url, None) as client:
            await client.act("pass", 0)
            assert (await until(client, "error"))["code"] == "hello_first"
            await client.send({"type": "hello", "token": "nope"})
            assert (await until(client, "error"))["code"] == "bad_token"
            await client.send({"type": "hello", "token": table["invites"][0]["token"]})
            assert (await until(client, "error"))["code"] == "not_joined"
            await client.send({"type": "hello", "token": table["token"]})
            welcome = await until(client, "welcome")
            assert welcome["seat"] == 0 and welcome["protocol"] == 1
            presence = await until(client, "table")
            assert [s["connected"] for s in presence["seats"]] == [True, False]
            # Nothing is dealt before the table is full: the deal waits for Ben's part.
            assert len(presence["commitment"]) == 64 and client.state is None
            await client.send({"type": "sync"})
            assert (await until(client, "table"))["status"] == "waiting"
            assert client.state is None
            await client.send({"type": "hello", "token": table["token"]})
            assert (await until(client, "error"))["code"] == "hello_again"
        async with SeatClient.connect(ws_url(server, "nosuchtable"), "x") as client:
            assert (await until(client, "error"))["code"] == "no_table"

    asyncio.run(run())


def test_actions_are_played_once_and_bad_ones_change_nothing(server: str) -> None:
    async def run() -> None:
        table = await _two_people(server)
        url = ws_url(server, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, table["second_token"]) as ben,
        ):
            first = await until(anna, "state")
            await until(ben, "state")
            mover, waiter = (anna, ben) if first["legal"] else (ben, anna)
            before = await until(mover, "state") if not mover.state else mover.state
            assert before["move"] == 0 and before["legal"]
            if not waiter.state:
                await until(waiter, "state")
            bad: list[tuple[SeatClient, Any, str]] = [
                (mover, "{not json", "malformed"),
                (mover, {"type": "shout"}, "malformed"),
                (mover, {"type": "action", "action": "pass"}, "malformed"),
                (mover, {"type": "action", "move": "0", "action": "pass"}, "malformed"),
                (mover, {"type": "action", "move": -1, "action": "pass"}, "malformed"),
                (mover, "x" * (MAX_MESSAGE + 1), "too_long"),
                (mover, {"type": "action", "move": 0, "action": "fly away"}, "illegal"),
                (mover, {"type": "action", "move": 0, "action": "draw deck"}, "illegal"),
                (mover, {"type": "action", "move": 7, "action": before["legal"][0]}, "not_yet"),
                (waiter, {"type": "action", "move": 0, "action": before["legal"][0]}, "illegal"),
            ]
            for client, message, code in bad:
                await client.send(message)
                error = await until(client, "error")
                assert error["code"] == code, error
                assert error["message"]
            turn_error = [m for m in waiter.received if m["type"] == "error"][-1]
            # told to the seat that tried, in its words (the reason's id, not the core's text)
            assert turn_error["message"] == "it is not your turn"
            await mover.send({"type": "sync"})
            again = await until(mover, "state")
            assert (again["move"], again["view"], again["legal"]) == (
                0,
                before["view"],
                before["legal"],
            ), "nothing changed"
            # A double click: the same action twice for move 0 is played once.
            await mover.act(before["legal"][0], 0)
            await mover.act(before["legal"][0], 0)
            ack = await until(mover, "ack")
            assert ack == {"type": "ack", "move": 0, "action": before["legal"][0]}
            assert (await until(mover, "state"))["move"] == 1
            second = await until(mover, "error")
            assert second["code"] == "stale" and "sent twice?" in second["message"]
            seen = await until(waiter, "state")
            while seen["move"] < 1:
                seen = await until(waiter, "state")
            assert seen["events"], "the other seat hears of the move"
        info = await get(server, f"/api/tables/{table['table']}")
        assert info["move"] == 1

    asyncio.run(run())


def test_chat_reaches_the_table_is_stored_and_refused_when_too_long(server: str) -> None:
    async def run() -> None:
        table = await _two_people(server)
        url = ws_url(server, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, table["spectator_token"]) as watcher,
        ):
            await until(anna, "state")
            await until(watcher, "state")
            await anna.send({"type": "chat", "text": "<b>good luck</b>"})
            line = await until(watcher, "chat")
            assert (line["seat"], line["name"], line["text"]) == (0, "Anna", "<b>good luck</b>")
            await anna.send({"type": "chat", "text": "x" * (MAX_CHAT + 1)})
            assert "text" in (await until(anna, "error"))["message"]
            for bad in ("", "   ", "two\nlines", "\x1b[31mred"):
                await anna.send({"type": "chat", "text": bad})
                assert (await until(anna, "error"))["code"] == "malformed", bad
            await watcher.send({"type": "chat", "text": "hello"})
            assert (await until(watcher, "error"))["code"] == "spectator"
            await watcher.act("pass", 0)
            assert (await until(watcher, "error"))["code"] == "spectator"
        async with SeatClient.connect(url, table["second_token"]) as ben:
            history = await until(ben, "chat")
            assert history["text"] == "<b>good luck</b>", "chat is stored with the table"

    asyncio.run(run())


def test_every_chat_line_reaches_a_newcomer_once_whenever_it_says_hello(server: str) -> None:
    """A line said while someone is arriving reaches them once: in the history they are sent
    or afterwards, never neither, never both."""
    lines = [f"line {i}" for i in range(10)]

    async def listen(url: str, token: str) -> list[str]:
        heard: list[str] = []
        async with SeatClient.connect(url, token) as watcher:
            while not heard or heard[-1] != lines[-1]:
                heard.append((await until(watcher, "chat"))["text"])
        return heard

    async def run() -> list[list[str]]:
        table = await _two_people(server)
        url = ws_url(server, table["table"])
        async with SeatClient.connect(url, table["token"]) as anna:
            await until(anna, "state")
            watchers = []
            for text in lines:  # each newcomer says hello while the next line is being said
                await anna.send({"type": "chat", "text": text})
                watchers.append(asyncio.create_task(listen(url, table["spectator_token"])))
            heard = await asyncio.gather(*watchers)
            while (await until(anna, "chat"))["text"] != lines[-1]:
                pass  # read what came (an unread queue would hold up the closing handshake)
            return heard

    for heard in asyncio.run(run()):
        start = lines.index(heard[0])
        assert heard == lines[start:], "a line missed or told twice"


def test_presence_tells_every_seat_who_is_connected(server: str) -> None:
    async def run() -> None:
        table = await _two_people(server)
        url = ws_url(server, table["table"])
        async with SeatClient.connect(url, table["token"]) as anna:
            await until(anna, "table")
            async with SeatClient.connect(url, table["second_token"]):
                both = await until(anna, "table")
                assert [s["connected"] for s in both["seats"]] == [True, True]
                async with SeatClient.connect(url, table["spectator_token"]):
                    assert (await until(anna, "table"))["spectators"] == 1
            left = await until(anna, "table")
            while left["seats"][1]["connected"]:
                left = await until(anna, "table")
            assert left["spectators"] == 0

    asyncio.run(run())


class _BrokenBot:
    name = "servertest_broken"

    def choose(self, view: object, legal: list[int], rng: object) -> int:
        return -1  # no action at all


def test_a_bot_that_breaks_the_protocol_is_replaced_for_the_move_and_the_game_goes_on(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "servertest_broken", lambda arg: _BrokenBot())
    roster = BotRoster.build(plugin_bots=["servertest_broken"])

    async def run(server: str) -> None:
        table = await post(
            server, "/api/tables", {"seats": ["human", "servertest_broken"], "name": "A"}
        )
        replaced = []
        async with SeatClient.connect(ws_url(server, table["table"]), table["token"]) as anna:
            first = None
            while True:
                message = await asyncio.wait_for(anna.receive(), 30)
                if message["type"] == "state" and first is None:
                    first = message["move"]
                if message["type"] == "bot_replaced":
                    replaced.append(message)
                elif message["type"] == "state":
                    if message["result"] is not None:
                        break
                    if message["legal"]:
                        await anna.act(message["legal"][0], message["move"])
        record = await get(server, f"/api/tables/{table['table']}/record")
        moves = range(len(record["actions"]))
        bot_moves = [m for m in moves if game_at(record, m).state.current_player == 1]
        # Every one of the bot's moves was the fallback's, and the table was told each time
        # (the first ones came before Anna was there).
        told = [r["move"] for r in replaced]
        assert first is not None
        assert {m for m in bot_moves if m > first} <= set(told) <= set(bot_moves)
        assert len(told) == len(set(told))
        assert all(r["seat"] == 1 and r["fallback"] == "greedy" for r in replaced)
        # What the bot did wrong goes to the log, not to the table (it may name its hand).
        assert {r["reason"] for r in replaced} == {"it failed"}

    with running_server(sqlite_url, roster=roster) as server:
        asyncio.run(run(server))


# ---------------------------------------------------------------------- the state message


def test_the_state_message_written_directly_is_the_models_byte_for_byte() -> None:
    """The server writes its most frequent message without the model (for speed): along whole
    games, in Czech too, it is exactly what the model would write, and the model reads it."""
    import random

    from piepmatz.core import Game, views_to_json
    from piepmatz.core.events import event_to_json
    from piepmatz.i18n import use_language
    from piepmatz.server.messages import StateMessage, state_message
    from piepmatz.text.words import tell

    for seed, players in ((1, 2), (2, 3), (3, 4)):
        game = Game.new(players=players, preset="standard", seed=seed)
        rng = random.Random(seed)
        while True:
            state = game.state
            events = state.events or []
            with use_language("cs"):
                log = [tell(e) for e in events[-5:]]
            seat = 0 if state.is_over() else state.current_player
            fields: dict[str, Any] = {
                "move": len(game.actions),
                "view": views_to_json(state, [seat])[seat],
                "events_from": max(0, len(events) - 5),
                "events": [event_to_json(e) for e in events[-5:]],
                "legal": [str(a) for a in state.legal_actions()],
                "choices": [a.to_json() for a in state.legal_actions()],
                "strengths": [{"perch": 5, "ground": 3, "chases": False}],
                "mated": [["BL3m", "BL3f"], []],
                "log": log,
                "log_parts": [[{"text": line}] for line in log],
                "result": game.score().to_json() if state.is_over() else None,
                "explained": [["Seeds 0: no seed cards", "Total 0"]] if state.is_over() else None,
                "clock": {
                    "pace": "live",
                    "left": [1000] * players,
                    "running": seat,
                    "deadline": 5000,
                    "now": 4000,
                },
                "ending": None,
            }
            text = state_message(**fields)
            assert text == StateMessage(**fields).model_dump_json()
            assert StateMessage.model_validate_json(text).model_dump() == json.loads(text)
            if state.is_over():
                break
            game.apply(rng.choice(state.legal_action_ids()))
