"""Playing again with the same people (``POST /api/tables/{id}/rematch``): the first to ask opens
the new table, everyone at the old one is told, each of the others sits down at their own seat."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from piepmatz.server.client import SeatClient
from serverplay import PATIENCE, get, open_table, post, running_server, ws_url


async def aborted_table(address: str, seats: list[str]) -> dict[str, Any]:
    """Anna and Ben at a table of ``seats``, its game aborted at once (so that it is over)."""
    table = await open_table(address, seats)
    tokens = [table["token"], table["second_token"]]
    for token in tokens:
        async with SeatClient.connect(ws_url(address, table["table"]), token) as seat:
            await seat.send({"type": "abort"})
            await asyncio.wait_for(seat.until("table"), PATIENCE)
    info = await get(address, f"/api/tables/{table['table']}")
    assert info["status"] == "over" and info["ending"]["how"] == "aborted"
    return table


def test_the_same_people_play_again_at_the_same_seats(tmp_path: Path) -> None:
    async def run(address: str) -> tuple[str, str]:
        old = await aborted_table(address, ["human", "human", "random"])
        rematch = f"/api/tables/{old['table']}/rematch"
        async with SeatClient.connect(ws_url(address, old["table"]), old["token"]) as anna:
            await asyncio.wait_for(anna.until("state"), PATIENCE)
            # Ben asks first: a new table, with him at his seat, waiting for Anna.
            ben = await post(address, rematch, {"token": old["second_token"]}, status=201)
            assert ben["seat"] == 1 and ben["table"] != old["table"]
            told = await asyncio.wait_for(anna.until("table"), PATIENCE)
            while told["rematch"] is None:  # the table's message on connecting came first
                told = await asyncio.wait_for(anna.until("table"), PATIENCE)
            assert told["rematch"] == {"table": ben["table"], "by": 1}
        new = await get(address, f"/api/tables/{ben['table']}")
        assert new["status"] == "waiting"
        assert [s["kind"] for s in new["seats"]] == ["human", "human", "random"]
        assert [s["name"] for s in new["seats"][:2]] == [None, "Ben"]
        # Anna follows: at her own seat, and the game starts.
        her = await post(address, rematch, {"token": old["token"]}, status=200)
        assert (her["table"], her["seat"]) == (ben["table"], 0)
        assert her["link"].endswith(f"/play/{ben['table']}#seat=0&token={her['token']}")
        new = await get(address, f"/api/tables/{ben['table']}")
        assert new["status"] == "playing"
        assert [s["name"] for s in new["seats"][:2]] == ["Anna", "Ben"]
        old_info = await get(address, f"/api/tables/{old['table']}")
        for key in ("rules", "pace", "stand_in", "resign"):
            assert new[key] == old_info[key]
        # Her seat there is hers now: asking again is refused, and a stranger's link too.
        again = await post(address, rematch, {"token": old["token"]}, status=409)
        assert again["detail"] == "seat 1 is already taken"
        wrong = await post(address, rematch, {"token": "x" * 43}, status=403)
        assert wrong["detail"] == "this link is not for a seat at this table"
        return old["table"], ben["table"]

    database = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    with running_server(database) as address:
        old, new = asyncio.run(run(address))
    # Kept: after a restart the finished table still says where its people play again.
    with running_server(database) as address:
        info = asyncio.run(get(address, f"/api/tables/{old}"))
        assert info["rematch"] == {"table": new, "by": 1}


def test_two_asking_at_once_open_one_table(server: str) -> None:
    async def run() -> None:
        old = await aborted_table(server, ["human", "human"])
        rematch = f"/api/tables/{old['table']}/rematch"
        answers = await asyncio.gather(
            post_any(server, rematch, {"token": old["token"]}),
            post_any(server, rematch, {"token": old["second_token"]}),
        )
        assert {a["table"] for a in answers} == {answers[0]["table"]}
        assert sorted(a["seat"] for a in answers) == [0, 1]
        new = await get(server, f"/api/tables/{answers[0]['table']}")
        assert new["status"] == "playing"

    asyncio.run(run())


def test_a_player_key_asks_for_its_seat(server: str) -> None:
    """The terminal holds a seat by its player key (``--join TABLE``): that key asks too."""

    async def run() -> None:
        key = "k" * 43
        body = {"seats": ["human", "random"], "name": "Anna", "player": key}
        table = await post(server, "/api/tables", body)
        async with SeatClient.connect(ws_url(server, table["table"]), table["token"]) as anna:
            await asyncio.wait_for(anna.until("state"), PATIENCE)
            await anna.send({"type": "abort"})
            while (await get(server, f"/api/tables/{table['table']}"))["status"] != "over":
                await asyncio.sleep(0.01)
        again = await post(server, f"/api/tables/{table['table']}/rematch", {"token": key})
        assert again["seat"] == 0 and again["table"] != table["table"]

    asyncio.run(run())


def test_a_game_not_over_is_not_played_again(server: str) -> None:
    async def run() -> None:
        table = await open_table(server, ["human", "human"])
        refused = await post(
            server, f"/api/tables/{table['table']}/rematch", {"token": table["token"]}, status=409
        )
        assert refused["detail"] == "the game at this table is not over yet"
        # A table closed while it waited: its unused invite plays nothing again.
        waiting = await post(server, "/api/tables", {"seats": ["human", "human"], "name": "A"})
        async with SeatClient.connect(ws_url(server, waiting["table"]), waiting["token"]) as a:
            await asyncio.wait_for(a.until("table"), PATIENCE)
            await a.send({"type": "abort"})
            while (await get(server, f"/api/tables/{waiting['table']}"))["status"] != "over":
                await asyncio.sleep(0.01)
        path = f"/api/tables/{waiting['table']}/rematch"
        unused = await post(server, path, {"token": waiting["invites"][0]["token"]}, status=409)
        assert unused["detail"] == "nobody sat at this seat: there is no game to play again"

    asyncio.run(run())


async def post_any(address: str, path: str, body: dict[str, Any]) -> Any:
    """A request that opens (201) or joins (200) the new table."""
    import httpx

    async with httpx.AsyncClient(base_url=f"http://{address}") as http:
        response = await http.post(path, json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()
