"""What is kept of a table: its rows in the database (a :class:`~.store.StoredTable`, from which
a restarted server rebuilds it by replaying its moves) and, once its game is over, its record
with the deal's proof and its replay, every hand shown.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from piepmatz.core import Game, state_to_json
from piepmatz.core.actions import Action
from piepmatz.core.commitment import DealProof
from piepmatz.core.game import RECORD_FORMAT, RECORD_VERSION
from piepmatz.core.scoring import majorities
from piepmatz.text.words import told

from .clocks import Clock
from .fanout import mated_pairs, strengths
from .pace import TableSetup
from .pool import BotPool
from .room import Room
from .roster import HUMAN
from .seats import Seat
from .store import Store, StoredSeat, StoredTable
from .vocabulary import TableStatus

log = logging.getLogger("piepmatz.server")


def from_stored(stored: StoredTable, store: Store, bots: BotPool, clock: Clock) -> Room:
    """Rebuild a table by replaying its stored record (options, seed, actions), with its
    clocks as stored."""
    game = Game.from_record(
        {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "options": stored.options,
            "actions": stored.actions,
            "result": None,
        }
    )
    seats = []
    replaced: dict[int, str] = {}
    for i, s in enumerate(stored.seats):
        kind = s.kind if s.kind == HUMAN else bots.roster.resumed(s.kind)
        if kind != s.kind:
            # Stored by an older server that took bot specs from requests: never built.
            log.warning("table %s: seat %d's bot is not offered; %s plays", stored.id, i, kind)
            replaced[i] = s.kind
        seats.append(
            Seat(
                kind,
                s.name,
                s.token_hash,
                s.hints,
                part=s.part,
                player_hash=s.player_hash,
                absent=s.absent,
                abort=s.abort,
            )
        )
    setup = TableSetup.from_json(stored.setup, len(seats))
    stand_in = bots.roster.resumed(setup.stand_in)
    if stand_in != setup.stand_in:
        log.warning("table %s: stand-in %s is not offered; %s", stored.id, setup.stand_in, stand_in)
        setup = dataclasses.replace(setup, stand_in=stand_in)
    room = Room(
        stored.id,
        game,
        seats,
        rules_spec=str(stored.options.get("spec", stored.options.get("preset"))),
        public=stored.public,
        spectator_hash=stored.spectator_hash,
        status=stored.status,
        store=store,
        bots=bots,
        setup=setup,
        clock=clock,
        deal=stored.deal,
        ending=stored.ending,
        rematch=stored.rematch,
    )
    room.botseats.replaced = replaced
    room.standins.movers = list(stored.movers)
    if room.status == TableStatus.PLAYING:
        room.clocks.start(clock.now())
        room.clocks.load(stored)
    return room


def to_stored(room: Room) -> StoredTable:
    options = room.game.options.to_json() | {"spec": room.rules_spec}
    return StoredTable(
        room.id,
        options,
        room.status,
        room.public,
        room.spectator_hash,
        [
            StoredSeat(s.kind, s.name, s.token_hash, s.hints, s.part, s.player_hash, s.absent)
            for s in room.seats
        ],
        [str(a) for a in room.game.actions],
        room.deal,
        setup=room.setup.to_json(),
        clock=room.clocks.at_start(room.clocks.since)
        if room.status == TableStatus.PLAYING
        else None,
        ending=room.ending,
    )


def record(room: Room) -> dict[str, Any]:
    """The game's record; with the deal's proof (``core.commitment``) once it is over, and who
    sat where (each seat's kind, and a person's name) for a replay to name them."""
    record = room.game.record()
    record["seats"] = [{"kind": s.kind, "name": s.name if s.is_human else None} for s in room.seats]
    if room.deal is not None and "secret" in room.deal:
        proof = DealProof(room.deal["secret"], tuple(s.part for s in room.seats))
        people = [i for i, s in enumerate(room.seats) if s.is_human]
        record["deal"] = proof.to_json(people)
    elif room.deal is not None:
        record["deal"] = dict(room.deal)  # {"chosen": true}
    if room.ending is not None:
        record["ending"] = room.ending
    record["stand_ins"] = [
        {"move": n, "seat": seat, "bot": by}
        for n, (seat, by) in enumerate(room.standins.movers)
        if by is not None
    ]
    return record


def replay(room: Room) -> dict[str, Any]:
    """The record and, for each position, the whole state (every hand), the majority holders
    and what the action that led there did, in sentences."""
    game = Game(room.game.options, room.game.version)
    names = room.seat_names()
    frames = [_frame(game, None, 0, names)]
    for action in room.game.actions:
        before = len(game.state.events or [])
        game.apply(action)
        frames.append(_frame(game, action, before, names))
    return {"record": record(room), "rules": room.rules_spec, "frames": frames}


def _frame(game: Game, action: Action | None, since: int, names: list[str]) -> dict[str, Any]:
    state = game.state
    said = [told(e, names) for e in (state.events or [])[since:]]
    return {
        "action": None if action is None else str(action),
        #: The action as fields (``Action.to_json``), so that the page reads no notation.
        "choice": None if action is None else action.to_json(),
        "state": state_to_json(state) | {"events": []},
        "majority": majorities(state.collections),
        "strengths": strengths(state),
        "mated": mated_pairs(state),
        "log": ["".join(p.text for p in parts) for parts in said],
        "log_parts": [[p.to_json() for p in parts] for parts in said],
    }


__all__ = ["from_stored", "record", "replay", "to_stored"]
