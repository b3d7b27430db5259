"""Before a process stops (``Hub.drain``): a bot's move being stored is stored, a bot that is
still thinking is stopped, and no bot starts another move. (The whole restart, through a proxy
during games, is in ``test_deployment.py``.)"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from piepmatz.server.hub import Hub
from piepmatz.server.room import Room
from serverplay import local_hub, open_room


async def _bot_to_move(hub: Hub) -> Room:
    # Two bots: the table's task plays one move after another until it is stopped.
    return await open_room(hub, ["random", "random"], seed=3)


def test_a_bot_move_being_stored_is_stored_before_the_process_stops(tmp_path: Path) -> None:
    async def run() -> None:
        async with local_hub(tmp_path / "server.db") as hub:
            storing, release = asyncio.Event(), asyncio.Event()
            add_move = hub.store.add_move

            async def slow_add_move(*args: Any, **kwargs: Any) -> None:
                storing.set()
                await release.wait()  # the commit takes a while
                await add_move(*args, **kwargs)

            hub.store.add_move = slow_add_move  # type: ignore[method-assign]
            room = await _bot_to_move(hub)
            room.botseats.wake()
            await asyncio.wait_for(storing.wait(), 10)
            assert room.botseats.storing
            asyncio.get_running_loop().call_later(0.2, release.set)
            await hub.drain(5)
            assert room.move == 1, "the move being stored was stored and played"
            assert [len(t.actions) for t in await hub.store.load(("playing",))] == [1]
            assert not room.botseats.thinking(), "and no bot went on to the next move"
            room.botseats.wake()
            assert not room.botseats.thinking(), "nor starts one after the drain"

    asyncio.run(run())


def test_a_bot_still_thinking_is_stopped_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="piepmatz.server")

    async def run() -> None:
        async with local_hub(tmp_path / "server.db") as hub:
            thinking = asyncio.Event()

            async def choose_for_ever(*_args: Any, **_kwargs: Any) -> Any:
                thinking.set()
                await asyncio.sleep(3600)

            hub.bots.choose_or_fallback = choose_for_ever  # type: ignore[method-assign]
            room = await _bot_to_move(hub)
            room.botseats.wake()
            await asyncio.wait_for(thinking.wait(), 10)
            # Not waited for (another process asks its bot again): the drain's hour is not used.
            await asyncio.wait_for(hub.drain(3600), 10)
            await asyncio.sleep(0)
            assert not room.botseats.thinking() and room.move == 0

    asyncio.run(run())
    # The host reads what the stop did to the games in play.
    said = [r.getMessage() for r in caplog.records if r.name == "piepmatz.server"]
    assert (
        "stopping: games in play here 1 (they go on at the next start), bots stopped "
        "thinking 1, bot moves stored first 0"
    ) in said
