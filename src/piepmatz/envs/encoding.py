"""The observation encoding shared by the PettingZoo, Gymnasium and OpenSpiel bindings.

Everything here is computed from one :class:`~piepmatz.core.view.PlayerView` (what the observing
player may know) and nothing else. The vector is a flat ``int8`` array of small counts and flags
(``OBSERVATION_SIZE`` long, the same for every player count and preset, so one network can play
2, 3 or 4 players). Seats are *relative to the observer*: seat block 0 is the observer, block 1
the next player clockwise, and so on. ``OBSERVATION_HIGH`` holds each entry's largest value;
divide by it for inputs in ``[0, 1]``.

``FIELDS`` lists every field with its offset and length; ``docs/research.md`` explains each one.

>>> from piepmatz.core.state import State
>>> from piepmatz.core.view import view_of
>>> state = State.new_game(players=3, seed=1)
>>> vector = encode(view_of(state, 0))
>>> vector.shape == (OBSERVATION_SIZE,), vector.dtype.name
(True, 'int8')
>>> int(vector[field_slice("hand")].sum())  # four birds in hand
4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from piepmatz.core.actions import DISPLAY_SIZE, MAX_PERCHES, NUM_ACTIONS, as_id
from piepmatz.core.cards import (
    BIRD_SPECIES,
    BIRD_VALUE,
    FEEDER_EGGS,
    FEEDER_KIND,
    NUM_BIRDS,
    NUM_SPECIES,
)
from piepmatz.core.errors import InvalidActionError
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.state import COLUMN_SIZE, HAND_SIZE, PHASE_NAMES
from piepmatz.core.view import PlayerView

# Defined with the other rewards; still importable from here, where it was first.
from .rewards import win_rewards as win_rewards

MAX_PLAYERS: Final = 4

#: Ground birds of one row: G <= P <= 6 after every chase, plus the bird just played (mid-chase).
MAX_GROUND: Final = 8
ALL_EGGS: Final = sum(FEEDER_EGGS)  # 60: every seed of the game
MAX_TURN: Final = 127

# fmt: off
# One row per block, each on one line: the table reads like the one in docs/research.md.
#: (name, length, largest value, what it holds) in the order of the vector.
LAYOUT: Final[tuple[tuple[str, int, int, str], ...]] = (
    ("hand", NUM_BIRDS, 1, "own hand: 1 per bird held (bird ids, see core/cards.py)"),
    ("perch_bird", MAX_PERCHES * NUM_BIRDS, 1, "per perch: 1 for the bird at the perch"),
    ("ground", MAX_PERCHES * NUM_BIRDS, MAX_GROUND,
     "per perch: k for the k-th bird on the ground (arrival order, T1.2), 0 if absent"),
    ("row_strength", MAX_PERCHES * 2, 12, "per perch: P (perch bird's value), G (ground total)"),
    ("perch_open", MAX_PERCHES, 1, "1 for each perch in play (C5)"),
    ("column_seed", COLUMN_SIZE, 3, "per seed column position 1-4: eggs on its seed, 0 if empty"),
    ("column_pest", COLUMN_SIZE * 2, 1, "per column position: crow, squirrel beside it"),
    ("display", DISPLAY_SIZE * NUM_BIRDS, 1, "per display slot 1-3: 1 for its bird"),
    ("deck_sizes", 2, NUM_BIRDS, "cards in the bird deck, in the feeder deck"),
    ("hand_sizes", MAX_PLAYERS, HAND_SIZE, "per seat: cards in hand"),
    ("shown", MAX_PLAYERS * NUM_BIRDS, 1,
     "per seat: 1 per hand bird everybody saw drawn from the display (T3.1)"),
    ("collections", MAX_PLAYERS * NUM_BIRDS, 1, "per seat: 1 per bird in the collection"),
    ("pests", MAX_PLAYERS * 2, 3, "per seat: crows, squirrels in front of the player"),
    ("seeds", MAX_PLAYERS * 3, ALL_EGGS,
     "per seat: eggs on seeds taken from the column (public), seeds taken from the column, "
     "seeds drawn blind"),
    ("own_blind_eggs", 1, ALL_EGGS, "eggs on the observer's own blind seeds"),
    ("gone_birds", NUM_BIRDS, 1, "1 per bird scared away by a crow"),
    ("gone_seed_eggs", 1, ALL_EGGS, "eggs on seeds taken away by squirrels"),
    ("removed_species", NUM_SPECIES, 1, "species set aside (two players, S2)"),
    ("phase", len(PHASE_NAMES), 1, "phase one-hot: play, collect, crow, draw, last hand, over"),
    ("current_player", MAX_PLAYERS, 1, "relative seat to decide, one-hot"),
    ("turn_player", MAX_PLAYERS, 1, "relative seat whose turn it is, one-hot"),
    ("first_player", MAX_PLAYERS, 1, "relative seat of the first player, one-hot"),
    ("turn_state", 4, HAND_SIZE,
     "value of the bird just played, chased this turn, draws left, end triggered"),
    ("chase_perch", MAX_PERCHES, 1, "perch whose chase waits for the crow's victim, one-hot"),
    ("turn", 1, MAX_TURN, "turn number (capped at 127)"),
    ("chosen", MAX_PLAYERS, 1, "per seat: 1 once the last hand is chosen (E3)"),
    ("num_players", 3, 1, "2, 3 or 4 players, one-hot"),
    ("rules", 5, 1, "flags: no-chase collect, draw one, end on birds too, last hand, "
     "species pairs"),
)
# fmt: on


def _offsets() -> dict[str, tuple[int, int]]:
    table: dict[str, tuple[int, int]] = {}
    at = 0
    for name, length, _, _ in LAYOUT:
        table[name] = (at, length)
        at += length
    return table


FIELDS: Final = _offsets()
OBSERVATION_SIZE: Final = sum(entry[1] for entry in LAYOUT)


def _high() -> npt.NDArray[np.int8]:
    high = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
    for name, length, top, _ in LAYOUT:
        offset = FIELDS[name][0]
        high[offset : offset + length] = top
    # Entries whose largest value is not the field's.
    strength = FIELDS["row_strength"][0]
    high[strength : strength + 2 * MAX_PERCHES : 2] = 6
    high[FIELDS["deck_sizes"][0] + 1] = 36
    seeds = FIELDS["seeds"][0]
    high[seeds + 1 : seeds + 3 * MAX_PLAYERS : 3] = 30
    high[seeds + 2 : seeds + 3 * MAX_PLAYERS : 3] = 30
    turn_state = FIELDS["turn_state"][0]
    high[turn_state] = 6
    high[turn_state + 1] = 1
    high[turn_state + 3] = 1
    return high


OBSERVATION_HIGH: Final = _high()

_O = {name: offset for name, (offset, _) in FIELDS.items()}
O_HAND: Final = _O["hand"]
O_PERCH: Final = _O["perch_bird"]
O_GROUND: Final = _O["ground"]
O_STRENGTH: Final = _O["row_strength"]
O_OPEN: Final = _O["perch_open"]
O_COL_SEED: Final = _O["column_seed"]
O_COL_PEST: Final = _O["column_pest"]
O_DISPLAY: Final = _O["display"]
O_DECKS: Final = _O["deck_sizes"]
O_HAND_SIZES: Final = _O["hand_sizes"]
O_COLLECTIONS: Final = _O["collections"]
O_SHOWN: Final = _O["shown"]
O_PESTS: Final = _O["pests"]
O_SEEDS: Final = _O["seeds"]
O_OWN_BLIND: Final = _O["own_blind_eggs"]
O_GONE_BIRDS: Final = _O["gone_birds"]
O_GONE_EGGS: Final = _O["gone_seed_eggs"]
O_REMOVED: Final = _O["removed_species"]
O_PHASE: Final = _O["phase"]
O_CURRENT: Final = _O["current_player"]
O_TURN_PLAYER: Final = _O["turn_player"]
O_FIRST: Final = _O["first_player"]
O_TURN_STATE: Final = _O["turn_state"]
O_CHASE_PERCH: Final = _O["chase_perch"]
O_TURN: Final = _O["turn"]
O_CHOSEN: Final = _O["chosen"]
O_NUM_PLAYERS: Final = _O["num_players"]
O_RULES: Final = _O["rules"]

Vector = npt.NDArray[np.int8]
Mask = npt.NDArray[np.int8]

_EGGS: Final = FEEDER_EGGS.__getitem__
_ZERO_MASK: Final = bytes(NUM_ACTIONS)


def field_slice(name: str) -> slice:
    """The slice of the vector that holds field ``name`` (see ``FIELDS``)."""
    offset, length = FIELDS[name]
    return slice(offset, offset + length)


def describe_fields() -> list[tuple[str, int, int, int, str]]:
    """``(name, offset, length, largest value, meaning)`` for every field, in vector order."""
    return [(name, FIELDS[name][0], length, top, text) for name, length, top, text in LAYOUT]


class Encoder:
    """Encodes views of games with a fixed player count and rules.

    The fields that never change during a game (player count, rule flags, perches in play) are
    written once into a template; each call copies it and fills in the rest. The vector is built
    in a ``bytearray`` and handed to numpy without a copy: setting a byte costs far less than
    setting a numpy element, which matters at 20,000 observations per second.
    """

    def __init__(self, num_players: int, rules: Rules) -> None:
        check_players(num_players)
        self.num_players = num_players
        self.rules = rules
        template = bytearray(OBSERVATION_SIZE)
        for k in range(3 if num_players == 4 else 2):
            template[O_OPEN + k] = 1
        template[O_NUM_PLAYERS + num_players - 2] = 1
        flags = (
            rules.no_chase_collect,
            rules.draw == "one",
            rules.end_trigger == "feeder_or_birds",
            rules.last_hand,
            rules.pairs == "species",
        )
        for i, flag in enumerate(flags):
            template[O_RULES + i] = 1 if flag else 0
        self._template = bytes(template)

    def encode(self, view: PlayerView) -> Vector:
        """The observation vector of ``view`` (a fresh array each call)."""
        rules = view.rules
        if view.num_players != self.num_players or (
            rules is not self.rules and rules != self.rules
        ):
            raise ValueError(
                f"this encoder is for {self.num_players} players and {self.rules.name} rules, "
                f"the view is of {view.num_players} players and {view.rules.name} rules"
            )
        return np.frombuffer(self.encode_bytes(view), dtype=np.int8)

    def encode_bytes(self, view: PlayerView) -> bytearray:
        """The observation of ``view`` as raw bytes (one byte per entry)."""
        # Offsets are bound to locals: this runs once per turn of every environment.
        b = bytearray(self._template)
        me = view.player
        n = self.num_players
        value = BIRD_VALUE
        for c in view.hand:
            b[O_HAND + c] = 1
        for k, row in enumerate(view.rows):
            if row:
                base = k * NUM_BIRDS
                perch = row[0]
                b[O_PERCH + base + perch] = 1
                ground = 0
                at = O_GROUND + base
                for i, bird in enumerate(row[1:], 1):
                    ground += value[bird]
                    b[at + bird] = i
                b[O_STRENGTH + 2 * k] = value[perch]
                b[O_STRENGTH + 2 * k + 1] = ground
        pests_beside = view.column_pests
        eggs = FEEDER_EGGS
        for i, seed in enumerate(view.column):
            b[O_COL_SEED + i] = eggs[seed]
            pest = pests_beside[i]
            if pest >= 0:
                b[O_COL_PEST + 2 * i + FEEDER_KIND[pest] - 1] = 1
        slot_base = O_DISPLAY
        for bird in view.display:
            if bird >= 0:
                b[slot_base + bird] = 1
            slot_base += NUM_BIRDS
        b[O_DECKS] = view.bird_deck_size
        b[O_DECKS + 1] = view.feeder_deck_size
        if view.own_blind:
            b[O_OWN_BLIND] = sum(map(_EGGS, view.own_blind))
        b[O_TURN] = min(view.turn, MAX_TURN)
        hand_sizes = view.hand_sizes
        shown = view.shown
        collections = view.collections
        pests = view.pests
        seeds_seen = view.seeds_seen
        blind_counts = view.blind_counts
        chosen = view.chosen
        for r, q in enumerate(_SEAT_ORDER[n][me]):
            base = O_COLLECTIONS + r * NUM_BIRDS
            for bird in collections[q]:
                b[base + bird] = 1
            b[O_HAND_SIZES + r] = hand_sizes[q]
            for bird in shown[q]:
                b[O_SHOWN + r * NUM_BIRDS + bird] = 1
            own_pests = pests[q]
            if own_pests:
                crows = 0
                for x in own_pests:
                    if x < _FIRST_SQUIRREL:
                        crows += 1
                b[O_PESTS + 2 * r] = crows
                b[O_PESTS + 2 * r + 1] = len(own_pests) - crows
            seen = seeds_seen[q]
            if seen:
                b[O_SEEDS + 3 * r] = sum(map(_EGGS, seen))
                b[O_SEEDS + 3 * r + 1] = len(seen)
            b[O_SEEDS + 3 * r + 2] = blind_counts[q]
            if chosen[q]:
                b[O_CHOSEN + r] = 1
        for bird in view.gone_birds:
            b[O_GONE_BIRDS + bird] = 1
        if view.gone_feeder:
            b[O_GONE_EGGS] = sum(map(_EGGS, view.gone_feeder))
        if view.removed_birds:
            b[O_REMOVED + BIRD_SPECIES[view.removed_birds[0]]] = 1
        b[O_PHASE + view.phase] = 1
        if view.current_player >= 0:
            b[O_CURRENT + (view.current_player - me) % n] = 1
        b[O_TURN_PLAYER + (view.turn_player - me) % n] = 1
        b[O_FIRST + (view.first_player - me) % n] = 1
        b[O_TURN_STATE] = view.played_value
        if view.chased:
            b[O_TURN_STATE + 1] = 1
        b[O_TURN_STATE + 2] = view.draws_left
        if view.end_triggered is not None:
            b[O_TURN_STATE + 3] = 1
        if view.chase_perch >= 0:
            b[O_CHASE_PERCH + view.chase_perch] = 1
        return b


#: For each player count and observer, the seats in relative order (observer first).
_SEAT_ORDER: Final = {
    n: tuple(tuple((me + r) % n for r in range(n)) for me in range(n)) for n in (2, 3, 4)
}
#: Pests are crows (30-32) and squirrels (33-35).
_FIRST_SQUIRREL: Final = min(f for f, kind in enumerate(FEEDER_KIND) if kind == 2)


_ENCODERS: dict[tuple[int, Rules], Encoder] = {}


def encode(view: PlayerView) -> Vector:
    """The observation vector of any view (encoders are cached per player count and rules)."""
    key = (view.num_players, view.rules)
    encoder = _ENCODERS.get(key)
    if encoder is None:
        encoder = _ENCODERS[key] = Encoder(view.num_players, view.rules)
    return encoder.encode(view)


def action_mask(legal: Sequence[int]) -> Mask:
    """A 0/1 ``int8`` vector over the whole action space (``NUM_ACTIONS`` long)."""
    mask = bytearray(_ZERO_MASK)
    for action_id in legal:
        mask[action_id] = 1
    return np.frombuffer(mask, dtype=np.int8)


def action_id(action: Any) -> int:
    """The id a learner's action names: a Python or NumPy integer, or a 0-d integer array.

    Anything else (a float that would be truncated, a text, a bool, an array of several) is
    refused with a ``ValueError`` naming the action space, rather than silently converted; so is
    an id outside the action space, a mistake in the caller's code rather than an illegal move.
    """
    try:
        action_id = as_id(action)
    except InvalidActionError:
        raise ValueError(
            f"an action is an integer id 0-{NUM_ACTIONS - 1} (Discrete({NUM_ACTIONS})), "
            f"not {action!r} of type {type(action).__name__}"
        ) from None
    if not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"action {action_id} is outside the action space 0-{NUM_ACTIONS - 1}")
    return action_id


def describe_vector(vector: Any) -> dict[str, list[int]]:
    """The fields of a vector that are not all zero, by name (for debugging and the docs)."""
    out: dict[str, list[int]] = {}
    for name, (offset, length) in FIELDS.items():
        part = [int(x) for x in vector[offset : offset + length]]
        if any(part):
            out[name] = part
    return out
