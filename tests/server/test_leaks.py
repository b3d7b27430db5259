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
from piepmatz.server.pace import PaceRoster
from piepmatz.server.room import Room
from piepmatz.server.seats import Connection
from serverplay import ManualClock, local_hub, playing_room


class CheckingClient:
    """A connection that checks every message against what its viewer may know *now*."""

    def __init__(self, room: list[Room], viewer: int | None, resent: bool = True) -> None:
        self.room = room
        self.viewer = viewer
        #: Check a log resent whole (a return's hello) too: its entries were filtered by the
        #: core when they happened, and a card public then may be one "hidden now" by this
        #: check's measure (it knows only the present), so tests of returns check the rest.
        self.resent = resent
        self.messages = 0
        self.kinds: dict[str, int] = {}
        self.leaks: list[str] = []

    async def send(self, text: str) -> None:
        # The room drops a connection whose send fails, so failures are kept, not raised.
        message = json.loads(text)
        if not self.resent and message["type"] == "state" and message["events_from"] == 0:
            for past in ("events", "log", "log_parts"):
                message[past] = []
            text = json.dumps(message)
        try:
            self.check(text)
        except AssertionError as exc:
            self.leaks.append(str(exc))
        self.messages += 1
        kind = json.loads(text)["type"]
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

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


async def _play_with_absences(seed: int, players: int, policy: int, database: Path) -> int:
    """A live table of people where, as ``policy`` has it, someone runs out of time, is away
    too long, comes back, asks to abort or resigns: every message is checked as above."""
    clock = ManualClock()
    paces = PaceRoster.build(["fast=live:10s+1s,away=5s"])
    holder: list[Room] = []
    rng = random.Random(policy)
    async with local_hub(database, clock, paces) as hub:
        opened = await hub.open(
            ["human"] * players, "standard", name="P0", pace="fast", resign="play_on"
        )
        room = opened.room
        holder.append(room)
        for seat in range(1, players):
            await room.take_seat(seat, f"P{seat}", opened.tokens[seat])
        clients = [CheckingClient(holder, p, resent=False) for p in [*range(players), None]]
        conns = [Connection(client, client.viewer) for client in clients]
        for conn in conns:
            await room.connect(conn)
        while room.status == "playing":
            p = room.game.state.current_player
            roll = rng.random()
            if room.seats[p].absent is not None and room.botseats.nobody_plays_on():
                # Every person away: the stand-ins wait, and one comes back.
                back = next(i for i, s in enumerate(room.seats) if s.stood_in)
                conns[back] = Connection(clients[back], back)
                await room.connect(conns[back])
            elif room.seats[p].absent is not None:
                move = room.move  # the stand-in plays
                for _ in range(2000):
                    if room.move != move or room.status != "playing":
                        break
                    await asyncio.sleep(0.002)
            elif roll < 0.03:
                await clock.advance(11)  # out of time
            elif roll < 0.05:
                await room.disconnect(conns[p])
                await clock.advance(6)  # away too long
            elif roll < 0.07 and room.standins.abortable():
                await room.standins.abort(p)
            elif roll < 0.08:
                await room.standins.resign(p)
            else:
                legal = [str(a) for a in room.game.state.legal_actions()]
                await room.act(p, room.move, rng.choice(legal))
            for seat, person in enumerate(room.seats):
                if person.stood_in and rng.random() < 0.2:
                    conns[seat] = Connection(clients[seat], seat)
                    await room.connect(conns[seat])  # back
    for client in clients:
        assert not client.leaks, client.leaks[0]
    return sum(client.kinds.get("stand_in", 0) for client in clients)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0, max_value=2**63 - 1),
    st.sampled_from([2, 3, 4]),
    st.integers(min_value=0, max_value=2**32),
)
def test_no_message_names_a_hidden_card_with_stand_ins_resignations_and_aborts(
    seed: int, players: int, policy: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "server.db"
        asyncio.run(_play_with_absences(seed, players, policy, database))
