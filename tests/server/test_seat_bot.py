"""A bot for a friend who does not come: a seated person lets a bot the server offers take a
free person's seat at a table still waiting (``seat_bot``), and the game starts once the
other seats are taken. What cannot be done is refused, saying why, and changes nothing."""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any

from piepmatz.core.commitment import verify_record
from piepmatz.server.client import SeatClient
from serverplay import PATIENCE, get, play_randomly, post, until, ws_url


async def _refusal(client: SeatClient, message: dict[str, Any]) -> dict[str, Any]:
    await client.send(message)
    while True:
        said = await asyncio.wait_for(client.receive(), PATIENCE)
        if said["type"] == "error":
            return said


def _kinds(info: dict[str, Any]) -> list[str]:
    return [seat["kind"] for seat in info["seats"]]


async def _a_bot_for_a_friend(address: str) -> None:
    table = await post(
        address, "/api/tables", {"seats": ["human", "human", "human"], "name": "Anna"}
    )
    url, at = ws_url(address, table["table"]), f"/api/tables/{table['table']}"
    invites = {invite["seat"]: invite["token"] for invite in table["invites"]}
    async with (
        SeatClient.connect(url, table["token"]) as anna,
        SeatClient.connect(url, table["spectator_token"]) as watcher,
    ):
        await until(anna, "welcome")
        await until(watcher, "welcome")
        # Nobody's seat but a free person's; a bot this server offers; a spectator, never.
        taken = await _refusal(anna, {"type": "seat_bot", "seat": 0, "bot": "random"})
        assert taken["code"] == "seat_taken" and "not a free person's seat" in taken["message"]
        unknown = await _refusal(anna, {"type": "seat_bot", "seat": 2, "bot": "grandmaster"})
        assert unknown["code"] == "malformed"
        assert "not a bot this server offers: choose one of" in unknown["message"]
        watching = await _refusal(watcher, {"type": "seat_bot", "seat": 2, "bot": "random"})
        assert watching["code"] == "spectator"
        assert _kinds(await get(address, at)) == ["human", "human", "human"]

        await anna.send({"type": "seat_bot", "seat": 2, "bot": "Random"})
        while _kinds(await get(address, at)) != ["human", "human", "random"]:
            await asyncio.sleep(0.05)
        info = await get(address, at)
        assert info["status"] == "waiting"  # Ben's seat is still free
        again = await _refusal(anna, {"type": "seat_bot", "seat": 2, "bot": "random"})
        assert again["code"] == "seat_taken"
        # The seat's invite no longer seats anyone.
        refused = await post(address, f"{at}/join", {"name": "Cy", "token": invites[2]}, status=403)
        assert "this invite is not for a seat at this table" in refused["detail"]

        joined = await post(address, f"{at}/join", {"name": "Ben", "token": invites[1]}, status=200)
        async with SeatClient.connect(url, joined["token"]) as ben:
            await until(ben, "welcome")
            ends = await asyncio.gather(
                play_randomly(anna, random.Random(1)), play_randomly(ben, random.Random(2))
            )
            begun = await _refusal(anna, {"type": "seat_bot", "seat": 1, "bot": "random"})
            assert begun["code"] == "not_waiting"
    record = await get(address, f"{at}/record")
    # Played to the end: the bot moved at its seat (Anna and Ben answer only their own).
    assert ends[0]["result"] == ends[1]["result"] == record["result"] is not None
    assert [s["kind"] for s in record["seats"]] == ["human", "human", "random"]
    verify_record(record)  # the deal is still the sealed one, from both people's parts


def test_a_seated_person_lets_a_bot_take_a_friends_seat(server: str) -> None:
    asyncio.run(_a_bot_for_a_friend(server))


def test_a_rated_tables_seats_are_for_people_only(server: str) -> None:
    async def scenario() -> None:
        key = secrets.token_urlsafe(32)
        table = await post(
            server,
            "/api/tables",
            {"seats": ["human", "human"], "name": "Anna", "rated": True, "player": key},
        )
        async with SeatClient.connect(ws_url(server, table["table"]), table["token"]) as anna:
            await until(anna, "welcome")
            said = await _refusal(anna, {"type": "seat_bot", "seat": 1, "bot": "random"})
        assert said["code"] == "people_only"
        info = await get(server, f"/api/tables/{table['table']}")
        assert _kinds(info) == ["human", "human"] and info["status"] == "waiting"

    asyncio.run(scenario())


def test_a_name_taken_at_the_table_is_refused_saying_so(server: str) -> None:
    """Two Lenas at one table would read as one in the log: the second is asked for another
    name (letter case aside), and nothing changes; another name sits down."""

    async def scenario() -> None:
        table = await post(server, "/api/tables", {"seats": ["human"] * 3, "name": "Lena"})
        at = f"/api/tables/{table['table']}"
        invite = table["invites"][0]["token"]
        refused = await post(server, f"{at}/join", {"name": "LENA ", "token": invite}, 422)
        assert refused["detail"] == (
            "LENA sits at this table already: choose a name the others can tell apart"
        )
        assert [s["name"] for s in (await get(server, at))["seats"]] == ["Lena", None, None]
        await post(server, f"{at}/join", {"name": "Lena B", "token": invite}, 200)
        assert [s["name"] for s in (await get(server, at))["seats"]] == ["Lena", "Lena B", None]

    asyncio.run(scenario())
