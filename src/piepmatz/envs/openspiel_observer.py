"""What each player of ``python_piepmatz`` observes (:mod:`piepmatz.envs.openspiel`): the
observer OpenSpiel asks for observations and information states, and the texts of a position as
one player saw it. Everything here is built from that player's view
(:func:`~piepmatz.core.view.view_of`, :func:`~piepmatz.core.view.filter_event`) and from the
deal's outcomes that player saw, never from the engine's hidden cards.

- observation tensor: :func:`~piepmatz.envs.encoding.encode` as floats;
- observation string: the table as text (:func:`~piepmatz.envs.text.draw_table`);
- information-state string: the deal as that player saw it (every outcome of it but the others'
  hands), the event log as that player saw it and the current table — perfect recall;
- information-state tensor: the observation tensor followed by a summary of the log, for each
  seat relative to the observer: the birds it played, the birds it took from the display.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np
import pyspiel

from piepmatz.core.cards import FEEDER_EGGS, NUM_BIRDS, SPECIES
from piepmatz.core.chance import Draw
from piepmatz.core.events import Event, EventKind, describe_event
from piepmatz.core.rules import Rules
from piepmatz.core.state import State
from piepmatz.core.view import PlayerView, filter_event, view_of

from .encoding import OBSERVATION_SIZE, Encoder, describe_fields
from .text import birds_text, draw_table, feeder_text

if TYPE_CHECKING:
    from .openspiel import PiepmatzState, Position

#: Summary of the log in the information-state tensor, after the observation: each field is a
#: block of four relative seats (0 = the observer) of one entry per bird, the fields one after
#: the other (all seats' ``played``, then all seats' ``took_from_display``).
HISTORY_FIELDS: Final = (("played", NUM_BIRDS), ("took_from_display", NUM_BIRDS))
HISTORY_SIZE: Final = 4 * sum(length for _, length in HISTORY_FIELDS)
INFO_STATE_SIZE: Final = OBSERVATION_SIZE + HISTORY_SIZE
_HISTORY_TEXT: Final = {
    "played": "1 per bird the seat played to a perch",
    "took_from_display": "1 per bird the seat took from the display (T3.1)",
}


def describe_history() -> list[tuple[str, int, str, str]]:
    """The information-state tensor's entries after the observation: (name, offset, shape,
    meaning) per field; entry ``offset + seat * 72 + bird`` is the relative seat's and bird's
    (``reshape(2, 4, 72)`` of the tail: field, seat, bird)."""
    out = []
    at = OBSERVATION_SIZE
    for name, length in HISTORY_FIELDS:
        out.append((name, at, f"4 × {length}", f"per relative seat: {_HISTORY_TEXT[name]}"))
        at += 4 * length
    return out


PRIVATE_SIZE: Final = NUM_BIRDS + 1  # own hand, own blind eggs

#: An outcome of the deal as chance gave it: the draw, its slot (perch, player, display slot)
#: and the card, species or seat.
Dealt = tuple[Draw, int, int]


class Deal(NamedTuple):
    """The deal so far (S2–S5), from its outcomes in the order chance gave them."""

    species: str
    first: str
    #: The feeder cards turned up for the seed column, a pest among them too (S3).
    column: list[int]
    perches: list[int]
    display: list[int]
    hands: list[list[int]]

    @staticmethod
    def of(dealt: tuple[Dealt, ...], players: int) -> Deal:
        species = first = "-"
        column: list[int] = []
        perches: list[int] = []
        display: list[int] = []
        hands: list[list[int]] = [[] for _ in range(players)]
        for draw, slot, outcome in dealt:
            if draw == Draw.SPECIES:
                species = SPECIES[outcome]
            elif draw == Draw.FIRST_PLAYER:
                first = str(outcome)
            elif draw == Draw.DEAL_COLUMN:
                column.append(outcome)
            elif draw == Draw.DEAL_PERCH:
                perches.append(outcome)
            elif draw == Draw.DEAL_HAND:
                hands[slot].append(outcome)
            else:
                display.append(outcome)
        return Deal(species, first, column, perches, display, hands)

    def public_text(self) -> str:
        """What everybody saw of the deal."""
        return (
            f"deal: set aside {self.species}; first seat {self.first}; turned up for the "
            f"column {feeder_text(self.column)}; perches {birds_text(self.perches)}; display "
            f"{birds_text(self.display)}"
        )


# ---------------------------------------------------------------------------- a position, seen


def seen_deal(position: Position, player: int, private: bool = True) -> str:
    """The deal as ``player`` saw it: every outcome but the others' hands (``private``: and
    their own)."""
    deal = Deal.of(position.dealt, position.n)
    if not private:
        return deal.public_text()
    return f"{deal.public_text()}; own hand {birds_text(sorted(deal.hands[player]))}"


def seen_log(position: Position, player: int) -> str:
    """The event log as ``player`` saw it (:func:`filter_event`), one sentence a line.

    Rendered incrementally: the log only grows, so each call describes the new events.
    """
    events = position.engine.events
    if events is None:
        return ""
    count, text = position.logs[player]
    if count < len(events):
        new = "\n".join(describe_event(filter_event(e, player)) for e in events[count:])
        text = f"{text}\n{new}" if text else new
        position.logs[player] = (len(events), text)
    return text


def seen_events(position: Position, player: int) -> list[Event]:
    """The log as ``player`` saw it: exactly the events of their view."""
    events = position.engine.events
    if events is None:
        return []
    key = ("events", player)
    cache = position.cache
    if key not in cache:
        cache[key] = [filter_event(e, player) for e in events]
    seen: list[Event] = cache[key]
    return seen


def seen_view(position: Position, player: int) -> PlayerView | None:
    """``player``'s view, without the log (see :func:`seen_events` and :func:`seen_log`);
    ``None`` in the deal, with nothing on the table yet."""
    if position.dealing:
        return None
    key = ("view", player)
    cache = position.cache
    if key not in cache:
        # Without the log the view costs far less; the log is rendered incrementally.
        cache[key] = view_of(State.copy(position.engine, events=False), player)
    view: PlayerView = cache[key]
    return view


# ---------------------------------------------------------------------------- the observer


class PiepmatzObserver:
    """Observations and information states, built from the player's view only.

    Supported observation types: the observation (``perfect_recall=False``) and the
    information state (``perfect_recall=True``), both with public and the player's private
    information; and, without perfect recall, public information only or the player's private
    information only.
    """

    def __init__(self, players: int, rules: Rules, public: bool, private: bool, recall: bool):
        self._encoder = Encoder(players, rules)
        self.public = public
        self.private = private
        self.recall = recall
        if recall:
            size = INFO_STATE_SIZE
        elif public:
            size = OBSERVATION_SIZE
        else:
            size = PRIVATE_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        if public:
            for name, offset, length, _, _ in describe_fields():
                self.dict[name] = self.tensor[offset : offset + length]
        else:
            self.dict["hand"] = self.tensor[:NUM_BIRDS]
            self.dict["own_blind_eggs"] = self.tensor[NUM_BIRDS:]
        if recall:
            at = OBSERVATION_SIZE
            for name, length in HISTORY_FIELDS:
                self.dict[name] = self.tensor[at : at + 4 * length].reshape(4, length)
                at += 4 * length

    @staticmethod
    def for_type(iig_obs_type: Any, players: int, rules: Rules) -> PiepmatzObserver | None:
        single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        none = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        public = bool(iig_obs_type.public_info)
        recall = bool(iig_obs_type.perfect_recall)
        if recall and not (public and single):
            return None  # only the full information state keeps perfect recall
        if not (single or none) or (none and not public):
            return None  # all players' private information, or nothing at all
        return PiepmatzObserver(players, rules, public, single, recall)

    def set_from(self, state: PiepmatzState, player: int) -> None:
        self.tensor.fill(0.0)
        position = state.position
        view = seen_view(position, player)
        if view is None:
            return  # still dealing: nothing on the table yet
        if not self.public:
            for bird in view.hand:
                self.tensor[bird] = 1.0
            self.tensor[NUM_BIRDS] = sum(FEEDER_EGGS[s] for s in view.own_blind)
            return
        self.tensor[:OBSERVATION_SIZE] = self._encoder.encode(view)
        if not self.private:
            self.dict["hand"].fill(0.0)
            self.dict["own_blind_eggs"].fill(0.0)
        if self.recall:
            played = self.dict["played"]
            took = self.dict["took_from_display"]
            n = view.num_players
            for event in seen_events(position, player):
                if event.kind == EventKind.PLAY:
                    played[(event.player - player) % n, event.bird] = 1.0
                elif event.kind == EventKind.DRAW_DISPLAY:
                    took[(event.player - player) % n, event.bird] = 1.0

    def string_from(self, state: PiepmatzState, player: int) -> str:
        position = state.position
        view = seen_view(position, player)
        if not self.public:
            hand = sorted(position.engine.hands[player]) if view is None else list(view.hand)
            blind = [] if view is None else list(view.own_blind)
            return f"hand {birds_text(hand)}; blind seeds {feeder_text(blind)}"
        deal = seen_deal(position, player, self.private)
        if view is None:
            return deal
        table = draw_table(view, private=self.private)
        if not self.recall:
            return table
        return f"{deal}\n{seen_log(position, player)}\n{table}"
