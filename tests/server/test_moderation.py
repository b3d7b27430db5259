"""Moderation among strangers (issue 46): a mute hides a seat's lines from the muter (on every
connection of theirs, after a reload too), a block is stored, listed and removed and mutes the
blocked player at every table, a report keeps the table's record and chat for the operator and
is rate-limited, the operator's commands list, show and close reports and ban a player, who is
then refused everywhere with the reason. Each bad request gets a clear 4xx and changes nothing;
no answer names another player's id or key."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
import secrets
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.exceptions import ConnectionClosed

from piepmatz.cli import main
from piepmatz.server import db
from piepmatz.server.client import SeatClient
from piepmatz.server.moderation import (
    REPORTS_BURST,
    REPORTS_PER_PLAYER,
    block_ref,
    blocked_pairs,
)
from serverplay import PATIENCE, play_randomly, post, running_server, until, ws_url

#: The moves played before the report the operator reads.
MOVES = 4


def _key() -> str:
    return secrets.token_urlsafe(32)


def _id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def _table(address: str, people: dict[str, str], bot: bool = False) -> dict[str, Any]:
    """A table of ``people`` (name: player key), the first opening it and the others joining
    by invite; a bot in the last seat with ``bot``."""
    names = list(people)
    seats = ["human"] * len(names) + (["random"] if bot else [])
    opened: dict[str, Any] = await post(
        address, "/api/tables", {"seats": seats, "name": names[0], "player": people[names[0]]}
    )
    for name, invite in zip(names[1:], opened["invites"], strict=False):
        body = {"name": name, "token": invite["token"], "player": people[name]}
        await post(address, f"/api/tables/{opened['table']}/join", body, status=200)
    return opened


async def _chat_line(seat: SeatClient, text: str) -> list[dict[str, Any]]:
    """The chat lines ``seat`` receives until (and with) the one saying ``text``."""
    lines = []
    while True:
        message = await asyncio.wait_for(seat.receive(), PATIENCE)
        if message["type"] == "chat":
            lines.append(message)
            if message["text"] == text:
                return lines


async def _rows(url: str, table: Any) -> list[Any]:
    engine = db.make_engine(url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(select(table))).all())
    finally:
        await engine.dispose()


def test_a_mute_hides_a_seats_lines_and_a_block_is_stored_listed_and_removed(
    database_url: str,
) -> None:
    anna, ben, cy, stranger = _key(), _key(), _key(), _key()
    with running_server(database_url) as address:

        async def run() -> None:
            opened = await _table(address, {"Anna": anna, "Ben": ben, "Cy": cy})
            url = ws_url(address, opened["table"])
            async with (
                SeatClient.connect(url, anna) as a,
                SeatClient.connect(url, ben) as b,
                SeatClient.connect(url, cy) as c,
                SeatClient.connect(url, opened["spectator_token"]) as watcher,
            ):
                for seat in (a, b, c):
                    await until(seat, "state")
                await a.send({"type": "mute", "seat": 1, "muted": True})
                assert (await until(a, "muted"))["seats"] == [1]
                await b.send({"type": "chat", "text": "Ben was here"})
                await _chat_line(c, "Ben was here")  # Cy hears him; then Cy speaks
                await c.send({"type": "chat", "text": "Cy was here"})
                heard = await _chat_line(a, "Cy was here")
                assert [line["text"] for line in heard] == ["Cy was here"]
                # Bad mutes: refused, and nothing changes.
                for seat, code in ((0, "own_seat"), (7, "no_seat")):
                    await a.send({"type": "mute", "seat": seat, "muted": True})
                    assert (await until(a, "error"))["code"] == code
                await watcher.send({"type": "mute", "seat": 1, "muted": True})
                assert (await until(watcher, "error"))["code"] == "spectator"

            # Another device of Anna's: the mute holds, the muted line is not in the history.
            async with SeatClient.connect(url, anna) as again:
                assert (await until(again, "muted"))["seats"] == [1]
                history = await _chat_line(again, "Cy was here")
                assert [m["text"] for m in history] == ["Cy was here"]
                await again.send({"type": "mute", "seat": 1, "muted": False})
                assert (await until(again, "muted"))["seats"] == []

            # Blocks: by seat, never naming the other player's id; bad ones refused.
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                where = f"/api/tables/{opened['table']}/blocks"
                made = await http.post(where, json={"seat": 2}, headers=_bearer(anna))
                assert made.status_code == 201, made.text
                block = made.json()
                assert block["name"] == "Cy" and block["ref"] == block_ref(_id(anna), _id(cy))
                assert _id(cy) not in made.text and cy not in made.text
                again = await http.post(where, json={"seat": 2}, headers=_bearer(anna))
                assert again.status_code == 201 and again.json()["ref"] == block["ref"]
                for body, key, status, words in (
                    ({"seat": 0}, anna, 422, "your own seat"),
                    ({"seat": 3}, anna, 422, "no seat 4 at this table"),
                    ({"seat": 1}, stranger, 403, "you do not sit at this table"),
                    ({"seat": "1"}, anna, 422, "seat"),
                ):
                    refused = await http.post(where, json=body, headers=_bearer(key))
                    assert refused.status_code == status, refused.text
                    assert words in refused.json()["detail"]
                assert (await http.post(where, json={"seat": 1})).status_code == 401
                mine = await http.get("/api/blocks", headers=_bearer(anna))
                assert mine.json() == {"blocks": [block]}
                assert _id(cy) not in mine.text
                theirs = await http.get("/api/blocks", headers=_bearer(cy))
                assert theirs.json() == {"blocks": []}

            # Stored as the blocker's id and the blocked one's; pairing reads the pair.
            rows = await _rows(database_url, db.blocks)
            assert [(r.player_id, r.blocked_id) for r in rows] == [(_id(anna), _id(cy))]

            # From a player's page: by the page's id, never a player's.
            pages = {r.id: r.page for r in await _rows(database_url, db.players)}
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                for body, key, status, words in (
                    ({"page": pages[_id(anna)]}, anna, 422, "you cannot block yourself"),
                    ({"page": "nosuchpage"}, cy, 404, "there is no such player"),
                    ({"page": "../../etc"}, cy, 422, "page"),
                ):
                    refused = await http.post("/api/blocks", json=body, headers=_bearer(key))
                    assert refused.status_code == status, refused.text
                    assert words in refused.json()["detail"]
                made = await http.post(
                    "/api/blocks", json={"page": pages[_id(anna)]}, headers=_bearer(cy)
                )
                assert made.status_code == 201, made.text
                assert made.json()["ref"] == block_ref(_id(cy), _id(anna))
                assert _id(anna) not in made.text
                gone = await http.delete(f"/api/blocks/{made.json()['ref']}", headers=_bearer(cy))
                assert gone.status_code == 204
            engine = db.make_engine(database_url)
            try:
                async with engine.connect() as conn:
                    pairs = await blocked_pairs(conn, [_id(anna), _id(ben), _id(cy)])
            finally:
                await engine.dispose()
            assert pairs == {frozenset((_id(anna), _id(cy)))}

            # A block mutes the player at every table: at a new table too.
            other = await _table(address, {"Cy": cy, "Anna": anna}, bot=True)
            async with (
                SeatClient.connect(ws_url(address, other["table"]), anna) as a,
                SeatClient.connect(ws_url(address, other["table"]), cy) as c,
            ):
                assert (await until(a, "muted"))["seats"] == [0]
                await until(c, "state")
                await c.send({"type": "chat", "text": "blocked words"})
                await _chat_line(c, "blocked words")
                await a.send({"type": "chat", "text": "Anna speaks"})
                heard = await _chat_line(a, "Anna speaks")
                assert [line["text"] for line in heard] == ["Anna speaks"]

            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                gone = await http.delete(f"/api/blocks/{block['ref']}", headers=_bearer(anna))
                assert gone.status_code == 204
                assert (await http.get("/api/blocks", headers=_bearer(anna))).json() == {
                    "blocks": []
                }
                twice = await http.delete(f"/api/blocks/{block['ref']}", headers=_bearer(anna))
                assert twice.status_code == 404 and "no such block" in twice.json()["detail"]

        asyncio.run(run())


def test_a_report_keeps_the_record_and_chat_is_rate_limited_and_changes_nothing(
    database_url: str,
) -> None:
    anna, ben, cy, dan, stranger = _key(), _key(), _key(), _key(), _key()
    with running_server(database_url) as address:

        async def run() -> None:
            opened = await _table(address, {"Anna": anna, "Ben": ben, "Cy": cy, "Dan": dan})
            table = opened["table"]
            url = ws_url(address, table)
            async with SeatClient.connect(url, ben) as b:
                state = await until(b, "state")
                await b.send({"type": "chat", "text": "you play like a pigeon"})
                await _chat_line(b, "you play like a pigeon")
                if state["legal"]:
                    await b.act(state["legal"][0], state["move"])
                    await until(b, "ack")
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                before = (await http.get(f"/api/tables/{table}")).json()
                where = f"/api/tables/{table}/reports"
                for body, key, status, words in (
                    ({"reason": "abuse", "seat": 0}, anna, 422, "your own seat"),
                    (
                        {"reason": "abuse", "seat": 4},
                        anna,
                        422,
                        "no seat 5 at this table (seats are 1-4)",
                    ),
                    ({"reason": "rudeness"}, anna, 422, "reason"),
                    ({"reason": "abuse", "note": "x" * 501}, anna, 422, "500 characters"),
                    ({"reason": "abuse"}, stranger, 403, "you do not sit at this table"),
                ):
                    refused = await http.post(where, json=body, headers=_bearer(key))
                    assert refused.status_code == status, refused.text
                    assert words in refused.json()["detail"]
                assert await _rows(database_url, db.reports) == []
                body = {"reason": "abuse", "seat": 1, "note": "he insults me"}
                for _ in range(REPORTS_PER_PLAYER):
                    sent = await http.post(where, json=body, headers=_bearer(anna))
                    assert sent.status_code == 201, sent.text
                    assert sent.json() == {"table": table, "seat": 1, "reason": "abuse"}
                    assert _id(ben) not in sent.text
                limited = await http.post(where, json=body, headers=_bearer(anna))
                assert limited.status_code == 429
                assert "reports in the last hour" in limited.json()["detail"]
                after = (await http.get(f"/api/tables/{table}")).json()
                assert after == before  # a report changes nothing at the table
                record = (await http.get(f"/api/tables/{table}/record")).json()
                assert "is not over" in record["detail"]  # nor shows a player its record

                # Every report from one address: 10 at once, then one every few minutes.
                for key in (ben, cy, dan):
                    for _ in range(REPORTS_PER_PLAYER if key != dan else 1):
                        sent = await http.post(where, json={"reason": "spam"}, headers=_bearer(key))
                        assert sent.status_code == 201, sent.text
                limited = await http.post(where, json={"reason": "spam"}, headers=_bearer(dan))
                assert limited.status_code == 429
                assert "too many reports from your address" in limited.json()["detail"]

            rows = await _rows(database_url, db.reports)
            assert len(rows) == REPORTS_BURST
            assert REPORTS_BURST == 3 * REPORTS_PER_PLAYER + 1
            row = rows[0]
            assert (row.table_id, row.by_id, row.seat, row.about_id) == (
                table,
                _id(anna),
                1,
                _id(ben),
            )
            assert (row.reason, row.note, row.closed) == ("abuse", "he insults me", None)
            assert [(line["name"], line["text"]) for line in row.chat] == [
                ("Ben", "you play like a pigeon")
            ]
            assert row.record["names"] == ["Anna", "Ben", "Cy", "Dan"]
            assert len(row.record["actions"]) == after["move"]
            assert row.record["options"]["seed"] is not None  # replays, hidden cards and all

        asyncio.run(run())


def test_the_operator_sees_reports_and_a_banned_player_is_refused_everywhere(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    anna, ben = _key(), _key()
    url = database_url
    with running_server(url) as address:

        async def setup() -> tuple[str, str, str]:
            opened = await _table(address, {"Anna": anna, "Ben": ben})
            url = ws_url(address, opened["table"])
            async with SeatClient.connect(url, ben) as b, SeatClient.connect(url, anna) as a:
                await until(b, "state")
                await b.send({"type": "chat", "text": "rude words"})
                await _chat_line(b, "rude words")
                rng = random.Random(1)
                await asyncio.gather(*(play_randomly(s, rng, stop_at_move=MOVES) for s in (a, b)))
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                sent = await http.post(
                    f"/api/tables/{opened['table']}/reports",
                    json={"reason": "abuse", "seat": 1},
                    headers=_bearer(anna),
                )
                assert sent.status_code == 201
            other = await post(address, "/api/tables", {"seats": ["human"] * 2, "name": "Cy"})
            return opened["table"], other["table"], other["invites"][0]["token"]

        table, other, invite = asyncio.run(setup())
        assert main(["admin", "reports", "--database-url", url]) == 0
        listed = capsys.readouterr().out.splitlines()
        assert len(listed) == 2
        number, reported, *_rest = listed[1].split()
        assert reported == table and "seat 2" in listed[1] and listed[1].endswith("abuse")
        assert _id(anna)[:12] in listed[1] and _id(ben)[:12] in listed[1]
        assert main(["admin", "report", number, "--database-url", url]) == 0
        shown = capsys.readouterr().out
        assert "reason: abuse" in shown and "Ben: rude words" in shown
        assert f"about: seat 2, Ben ({_id(ben)[:12]})" in shown  # his name at the table
        # Every move in words, the seats by their names: at least a sentence a move.
        assert f"moves ({MOVES}):" in shown
        told = [line for line in shown.splitlines() if re.match(r"\s+\d+\. ", line)]
        assert len(told) >= MOVES and {int(line.split(".")[0]) for line in told} == set(
            range(1, MOVES + 1)
        )
        assert any("Anna" in line for line in told) and any("Ben" in line for line in told)
        assert not any(re.search(r"\b(?:BL|BU|CH|GR|SP|YE)[1-6][mf]\b", line) for line in told)
        assert main(["admin", "report", "999", "--database-url", url]) == 2
        assert "no report 999" in capsys.readouterr().err

        # Banned by the id the report shows: refused everywhere, with the reason.
        with pytest.raises(SystemExit):
            main(["admin", "ban", _id(ben)[:12], "--database-url", url])
        assert "--reason" in capsys.readouterr().err
        assert main(["admin", "ban", _id(ben)[:12], "--reason", " ", "--database-url", url]) == 2
        assert "give the reason" in capsys.readouterr().err
        assert main(["admin", "ban", "nobody", "--reason", "x", "--database-url", url]) == 2
        assert "no account named 'nobody'" in capsys.readouterr().err
        because = "you are banned from this server: insults in chat"

        async def refused() -> None:
            seat = ws_url(address, table)
            async with SeatClient.connect(seat, ben) as b, SeatClient.connect(seat, anna) as a:
                await until(b, "state")
                await _chat_line(a, "rude words")  # the history
                ban = ["admin", "ban", _id(ben)[:12], "--reason", "insults in chat"]
                assert await asyncio.to_thread(main, [*ban, "--database-url", url]) == 0
                # His open connection: the next line is refused with the reason, and closed.
                await b.send({"type": "chat", "text": "more rude words"})
                error = await until(b, "error")
                assert (error["code"], error["message"]) == ("banned", because)
                with pytest.raises(ConnectionClosed):  # after the news of his stand-in
                    while True:
                        await asyncio.wait_for(b.receive(), PATIENCE)
                await a.send({"type": "chat", "text": "quiet now"})
                heard = await _chat_line(a, "quiet now")
                assert [line["text"] for line in heard] == ["quiet now"]
            for path, body in (
                ("/api/tables", {"seats": ["human", "random"], "name": "Ben", "player": ben}),
                ("/api/quick", {"name": "Ben", "player": ben}),
                (f"/api/tables/{other}/join", {"name": "Ben", "token": invite, "player": ben}),
            ):
                assert (await post(address, path, body, status=403))["detail"] == because
            async with SeatClient.connect(seat, ben) as b:
                error = await until(b, "error")
                assert (error["code"], error["message"]) == ("banned", because)
            # His seat goes on with the stand-in; Anna plays on.
            async with httpx.AsyncClient(base_url=f"http://{address}") as http:
                info = (await http.get(f"/api/tables/{table}")).json()
            assert info["seats"][1]["absent"] == "away"
            async with SeatClient.connect(seat, anna) as a:
                assert (await until(a, "welcome"))["seat"] == 0

        asyncio.run(refused())
        assert main(["admin", "unban", _id(ben)[:12], "--database-url", url]) == 0
        capsys.readouterr()
        assert main(["admin", "unban", _id(ben)[:12], "--database-url", url]) == 2
        assert "is not banned" in capsys.readouterr().err
        asyncio.run(post(address, "/api/quick", {"name": "Ben", "player": ben}))

        assert main(["admin", "close-report", number, "--database-url", url]) == 0
        assert f"closed report {number}" in capsys.readouterr().out
        assert main(["admin", "close-report", number, "--database-url", url]) == 2
        assert "closed already" in capsys.readouterr().err
        assert main(["admin", "reports", "--database-url", url]) == 0
        assert capsys.readouterr().out == "no open reports (--all: the closed too)\n"
        assert main(["admin", "reports", "--all", "--database-url", url]) == 0
        assert capsys.readouterr().out.splitlines()[1].endswith("abuse  closed")


def test_with_the_chat_off_no_line_is_taken_or_sent(tmp_path: Any) -> None:
    """``serve --chat off`` (a class of children): every connection is told at its welcome, a
    line is refused saying why, and nobody is sent one; a server with chat tells it too."""

    async def scenario(address: str, chat: bool) -> None:
        table = await post(address, "/api/tables", {"seats": ["human", "human"], "name": "Anna"})
        joined = await post(
            address,
            f"/api/tables/{table['table']}/join",
            {"name": "Ben", "token": table["invites"][0]["token"]},
            status=200,
        )
        url = ws_url(address, table["table"])
        async with (
            SeatClient.connect(url, table["token"]) as anna,
            SeatClient.connect(url, joined["token"]) as ben,
        ):
            assert (await until(anna, "welcome"))["chat"] is chat
            assert (await until(ben, "welcome"))["chat"] is chat
            await until(ben, "state")
            await anna.send({"type": "chat", "text": "du bist doof"})
            if chat:
                assert (await until(ben, "chat"))["text"] == "du bist doof"
                return
            refused = await until(anna, "error")
            assert refused["code"] == "chat_off"
            assert refused["message"] == "chat is turned off on this server"
            # Ben is sent nothing: his next message is the answer to his own sync.
            await ben.send({"type": "sync"})
            later = await until(ben, "state")
            assert later["type"] == "state"
            assert all(m["type"] != "chat" for m in ben.received)

    for chat in (False, True):
        database = tmp_path / f"chat-{chat}.db"
        with running_server(f"sqlite+aiosqlite:///{database}", chat=chat) as address:
            asyncio.run(scenario(address, chat))
