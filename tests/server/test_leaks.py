"""Over random games, no message to a seat or a spectator names a card hidden from it."""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaks import assert_names_none, hidden_names
from piepmatz.server.room import Room
from piepmatz.server.seats import Connection
from serverplay import playing_room


class CheckingClient:
    """A connection that checks every message against what its viewer may know *now*."""

    def __init__(self, room: list[Room], viewer: int | None) -> None:
        self.room = room
        self.viewer = viewer
        self.messages = 0
        self.leaks: list[str] = []

    async def send(self, text: str) -> None:
        # The room drops a connection whose send fails, so failures are kept, not raised.
        try:
            self.check(text)
        except AssertionError as exc:
            self.leaks.append(str(exc))
        self.messages += 1

    async def close(self) -> None:
        raise AssertionError("the room closed a connection that was reading")

    def check(self, text: str) -> None:
        state = self.room[0].game.state
        who = "the spectator" if self.viewer is None else f"seat {self.viewer}"
        hidden = hidden_names(state, self.viewer)
        assert_names_none(text, hidden, who)
        for action in json.loads(text).get("legal", []):
            assert not set(action.split()) & set(hidden), f"{who} may play a hidden card"


async def _play(seed: int, players: int, rules: str, policy: int, database: Path) -> int:
    holder: list[Room] = []
    async with playing_room(database, players, rules, seed) as room:
        holder.append(room)
        clients = [CheckingClient(holder, p) for p in [*range(players), None]]
        for client in clients:
            await room.connect(Connection(client, client.viewer))
        rng = random.Random(policy)
        while not room.game.state.is_over():
            p = room.game.state.current_player
            legal = [str(a) for a in room.game.state.legal_actions()]
            await room.act(p, room.move, rng.choice(legal))
    for client in clients:
        assert not client.leaks, client.leaks[0]
    return min(c.messages for c in clients)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0, max_value=2**63 - 1),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["standard", "overview", "standard:last_hand=false"]),
    st.integers(min_value=0, max_value=2**32),
)
def test_no_message_names_a_card_hidden_from_its_receiver(
    seed: int, players: int, rules: str, policy: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sent = asyncio.run(_play(seed, players, rules, policy, Path(folder) / "server.db"))
    assert sent > 20, "every receiver heard the whole game"
