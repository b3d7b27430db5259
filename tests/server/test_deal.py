"""A deal nobody could choose, through the real server: the commitment shown from the start,
each person's part added when they sit down, nothing dealt until the last one is in, and a
record whose deal ``piepmatz verify`` checks once the game is over."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from piepmatz.cli import main
from piepmatz.core import Game
from piepmatz.core.commitment import commit, seed_from
from piepmatz.server.client import SeatClient
from serverplay import get, play_randomly, post, until, ws_url
from serverprocs import free_port

ANNA, BEN = "anna-part-" + "a" * 33, "ben-part-" + "b" * 34


async def _whole_game(server: str) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """Anna opens a table for herself, Ben and a bot, Ben joins; both play it to the end.
    Returns the record, the commitment shown while the table waited, and every message."""
    made = await post(
        server,
        "/api/tables",
        {"seats": ["human", "random", "human"], "name": "Anna", "deal_part": ANNA},
    )
    shown = (await get(server, f"/api/tables/{made['table']}"))["commitment"]
    url = ws_url(server, made["table"])
    async with SeatClient.connect(url, made["token"]) as anna:
        waiting = await until(anna, "table")
        assert waiting["status"] == "waiting" and waiting["commitment"] == shown
        assert anna.state is None  # nothing is dealt while a part is missing
        joined = await post(
            server,
            f"/api/tables/{made['table']}/join",
            {"name": "Ben", "token": made["invites"][0]["token"], "deal_part": BEN},
            status=200,
        )
        await get(server, f"/api/tables/{made['table']}/record", status=409)
        async with SeatClient.connect(url, joined["token"]) as ben:
            rng = random.Random(2)
            await asyncio.gather(play_randomly(anna, rng), play_randomly(ben, rng))
        record = await get(server, f"/api/tables/{made['table']}/record")
        return record, shown, anna.received + ben.received


def test_the_deal_comes_from_the_committed_secret_and_every_persons_part(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, shown, received = asyncio.run(_whole_game(server))
    deal = record["deal"]
    assert deal["commitment"] == shown == commit(deal["secret"])
    assert deal["parts"] == [ANNA, None, BEN] and deal["people"] == [0, 2]
    assert record["options"]["seed"] == seed_from(deal["secret"], [ANNA, None, BEN])
    # The secret was told to nobody before the end: not in any message a seat received.
    assert not any(deal["secret"] in json.dumps(m) for m in received)
    assert Game.from_record(record).score().to_json() == record["result"]

    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok  commitment" in out and "seats 1, 3" in out and "verified:" in out

    record["deal"]["parts"][2] = "ben-changed-his-mind-0000"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 1
    assert "NO  seed" in capsys.readouterr().out
    path.write_text("{not json")
    assert main(["verify", str(path)]) == 2
    assert f"piepmatz verify: {path}: not JSON" in capsys.readouterr().err


def test_verify_and_replay_take_an_online_games_link(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = {"name": "Anna", "bot": "random", "deal_part": ANNA}
    made = asyncio.run(post(server, "/api/quick", body))
    page, replay = (
        f"http://{server}/play/{made['table']}",
        f"http://{server}/replay/{made['table']}",
    )
    # Not over: the server's own sentence, and not the seat's token the link carries.
    assert main(["verify", f"{page}#seat=0&token={made['token']}"]) == 2
    # (Other lines may be the log of the test's own HTTP client.)
    err = capsys.readouterr().err
    assert f"piepmatz verify: {page}: the server refused: " in err
    assert made["token"] not in err

    async def play() -> dict[str, Any]:
        async with SeatClient.connect(ws_url(server, made["table"]), made["token"]) as anna:
            await play_randomly(anna, random.Random(5))
        record: dict[str, Any] = await get(server, f"/api/tables/{made['table']}/record")
        return record

    record = asyncio.run(play())
    # The table's link as the page has it (its seat and token after "#", never sent).
    assert main(["verify", f"{page}#seat=0&token={made['token']}"]) == 0
    assert "verified:" in capsys.readouterr().out
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 0
    from_file = capsys.readouterr().out
    assert main(["replay", replay]) == 0
    assert capsys.readouterr().out == from_file
    assert from_file.startswith("Replay of a game of Piepmatz")
    # A link to no table, to no game, and to no server: each said in a line.
    assert main(["verify", f"http://{server}/play/nosuchtable"]) == 2
    assert "the server refused: " in capsys.readouterr().err
    assert main(["verify", f"http://{server}/rules"]) == 2
    assert "is not a game's link (SERVER/play/TABLE" in capsys.readouterr().err
    nobody = f"http://127.0.0.1:{free_port()}"
    assert main(["replay", f"{nobody}/replay/{made['table']}"]) == 2
    assert f"cannot reach {nobody}: nothing answers at 127.0.0.1:" in capsys.readouterr().err


def test_a_quick_game_is_dealt_at_once_from_its_persons_part(server: str) -> None:
    async def run() -> None:
        made = await post(
            server, "/api/quick", {"name": "Anna", "bot": "random", "deal_part": ANNA}
        )
        info = await get(server, f"/api/tables/{made['table']}")
        assert info["status"] == "playing" and len(info["commitment"]) == 64
        async with SeatClient.connect(ws_url(server, made["table"]), made["token"]) as anna:
            await play_randomly(anna, random.Random(3))
        record = await get(server, f"/api/tables/{made['table']}/record")
        assert record["deal"]["parts"][0] == ANNA
        assert record["options"]["seed"] == seed_from(record["deal"]["secret"], [ANNA, None, None])

    asyncio.run(run())


def test_a_chosen_seed_says_so_in_the_record(server: str) -> None:
    async def run() -> dict[str, Any]:
        made = await post(server, "/api/quick", {"name": "Anna", "bot": "random", "seed": 7})
        assert (await get(server, f"/api/tables/{made['table']}"))["commitment"] is None
        async with SeatClient.connect(ws_url(server, made["table"]), made["token"]) as anna:
            await play_randomly(anna, random.Random(4))
        record: dict[str, Any] = await get(server, f"/api/tables/{made['table']}/record")
        return record

    record = asyncio.run(run())
    assert record["deal"] == {"chosen": True} and record["options"]["seed"] == 7


def test_a_part_that_is_not_random_text_is_refused(server: str) -> None:
    async def run() -> None:
        for part in ("short", "x" * 129, "no spaces allowed here", 1234567890123456789):
            body = {"name": "Anna", "bot": "random", "deal_part": part}
            refused = await post(server, "/api/quick", body, status=422)
            assert "deal_part" in refused["detail"] and str(part) not in refused["detail"]

    asyncio.run(run())
