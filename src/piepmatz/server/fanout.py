"""What each connection at a table is sent: its seat's view and log after every move, in its own
words, and the table's news. The views and filtered logs are the core's (``views_to_json``,
``filter_event``); what seats see alike is worked out once per move, not once per connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from piepmatz.core import views_to_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES
from piepmatz.core.events import Event, event_to_json
from piepmatz.core.scoring import mated
from piepmatz.core.state import State, chases, shown_row
from piepmatz.core.view import filter_event
from piepmatz.i18n import use_language
from piepmatz.text.scoresheet import explain
from piepmatz.text.words import told as sentence

from .messages import state_message
from .seats import Connection
from .vocabulary import TableStatus

if TYPE_CHECKING:
    from .room import Room


def mated_pairs(state: State) -> list[list[str]]:
    """Each player's birds in mated pairs (E4, by the core), as card names."""
    return [[BIRD_NAMES[b] for b in sorted(mated(state.rules, c))] for c in state.collections]


def strengths(state: State) -> list[dict[str, Any]]:
    """Each row's perch value, ground total and whether the ground chases (T2), by the core; a
    perch whose chase waits for the crow's victim is empty (``perch`` null)."""
    out = []
    for i, row in enumerate(state.rows):
        _bird, _ground, perch, ground = shown_row(row, i == state.chase_perch)
        beats = perch is not None and chases(perch, ground)
        out.append({"perch": perch, "ground": ground, "chases": beats})
    return out


class Audience:
    """The connections at one table: each seat's (kept on its :class:`~.seats.Seat`) and the
    spectators'."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.spectators: set[Connection] = set()
        #: Whether the game could be aborted at the last state told (None: none told yet).
        self.abortable: bool | None = None

    def connections(self) -> list[Connection]:
        out = list(self.spectators)
        for seat in self.room.seats:
            out.extend(seat.connections)
        return out

    async def tell(self, text: str) -> None:
        """Send ``text`` to every connection."""
        for conn in self.connections():
            await conn.send(text)

    async def tell_chat(self, text: str, line_id: int, seat: int) -> None:
        """Send ``seat``'s chat line to every connection that did not have it in its history
        and did not mute the seat (:mod:`.moderation`). Called under the table's lock, as a
        connection's arrival reads its history (``Room.connect``): every line reaches every
        connection exactly once."""
        for conn in self.connections():
            fresh = not line_id or line_id > conn.chat_upto
            if fresh and seat not in conn.muted and conn.hears_chat:
                await conn.send(text)

    async def announce_table(self) -> None:
        await self.tell(self.room.info().model_dump_json())

    def state_message(self, conn: Connection, full: bool = False) -> str:
        """``conn``'s view now, with the log entries it has not had (all of them if ``full``)."""
        return self.state_messages([conn], full)[0]

    def state_messages(self, conns: list[Connection], full: bool = False) -> list[str]:
        """Each connection's ``state`` message now (see :meth:`state_message`). What seats see
        alike (the public part of the views, the score, the log's sentences in one language)
        is worked out once per position, not once per connection: a move is told to everyone."""
        room = self.room
        state = room.game.state
        docs = views_to_json(state, {conn.seat for conn in conns})
        if state.is_over():
            # Once the game is over nothing is hidden (the record names every card): each
            # seat's blind seeds too, for the end's seed piles.
            blind = [[FEEDER_NAMES[f] for f in seeds] for seeds in state.seeds_blind]
            docs = {seat: doc | {"blind_seeds": blind} for seat, doc in docs.items()}
        over = state.is_over()
        to_act = state.current_player if room.status == TableStatus.PLAYING and not over else None
        if to_act is not None and room.seats[to_act].absent is not None:
            to_act = None  # the stand-in decides for the seat: its person has nothing to choose
        weighed = strengths(state)
        pairs = mated_pairs(state)
        actions = state.legal_actions() if to_act is not None else []
        legal = [str(a) for a in actions]
        choices = [a.to_json() for a in actions]
        sheet = room.game.score() if over else None
        result = sheet.to_json() if sheet else None
        explained: dict[str, list[list[str]]] = {}
        clock = room.clocks.snapshot(room.clocks.clock.now())
        log_ = state.events or []
        # The log's new entries as JSON and told in a language, by the entries as a seat saw
        # them: seats that saw the same (no secret among them) share the work.
        told: dict[
            tuple[tuple[Event, ...], str],
            tuple[list[dict[str, Any]], list[str], list[list[dict[str, Any]]]],
        ] = {}
        out = []
        for conn in conns:
            start = 0 if full else conn.events_sent
            seen = tuple(filter_event(e, conn.seat) for e in log_[start:])
            if (seen, conn.lang) not in told:
                # Sent from whichever task moved (a bot, another seat): in the receiver's words.
                with use_language(conn.lang):
                    names = room.seat_names()
                    parts = [sentence(e, names) for e in seen]
                    told[seen, conn.lang] = (
                        [event_to_json(e) for e in seen],
                        ["".join(p.text for p in said) for said in parts],
                        [[p.to_json() for p in said] for said in parts],
                    )
            events, log, log_parts = told[seen, conn.lang]
            if sheet is not None and conn.lang not in explained:
                # Once over nothing is hidden: every seat's seeds, blind ones too.
                piles = [state.seed_pile(p) for p in range(state.num_players)]
                with use_language(conn.lang):
                    explained[conn.lang] = [
                        explain(sheet, state.rules, state.collections, piles, p)
                        for p in range(state.num_players)
                    ]
            conn.events_sent = len(log_)
            message = state_message(
                move=room.move,
                view=docs[conn.seat],
                events_from=start,
                events=events,
                legal=legal if conn.seat == to_act else [],
                choices=choices if conn.seat == to_act else [],
                strengths=weighed,
                mated=pairs,
                log=log,
                log_parts=log_parts,
                result=result,
                explained=explained.get(conn.lang),
                clock=clock,
                ending=room.ending,
            )
            out.append(message)
        return out

    async def broadcast_state(self) -> None:
        # The move that ends the first round ends the time to abort: the table's message says
        # so first (else an Abort button stays up for the whole game, to be refused).
        abortable = self.room.standins.abortable()
        if self.abortable and not abortable:
            await self.announce_table()
        self.abortable = abortable
        conns = self.connections()
        for conn, text in zip(conns, self.state_messages(conns), strict=True):
            await conn.send(text)
