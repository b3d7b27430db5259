"""Piepmatz as an OpenSpiel Python game, ``python_piepmatz``, registered on import.

>>> import pyspiel
>>> import piepmatz.envs.openspiel
>>> game = pyspiel.load_game("python_piepmatz", {"players": 3, "preset": "overview"})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 2921, 118)
>>> game.new_initial_state().is_chance_node()
True

**Actions.** Player actions are the engine's action ids (0–2920, see
:mod:`piepmatz.core.actions`). Chance outcomes have ids of their own (0–117): a bird ``b`` is
outcome ``b`` (0–71), a feeder card ``f`` is ``72 + f`` (72–107), the species set aside in a
two-player game is ``108 + s`` and the first player ``114 + seat``.

**Chance.** The engine shuffles its decks from a seed; here every random event is an explicit
chance node with uniform outcomes instead:

- the deal (S2–S5): the species set aside (two players), the first player, the four seeds of the
  column (uniform over the seeds: drawing until four seeds come up, pests set aside and shuffled
  back, gives every ordered choice of four seeds the same chance), one bird per perch, each
  hand one card at a time, the three display birds;
- every card drawn blind during play: bird deck draws and display refills, feeder cards taken in
  a chase (T2.1a) or revealed to refill the column (T3.2);
- each seed a squirrel takes (T2.1d), uniform over the player's seed pile.

The engine's decks hold the cards nobody has seen, in no order. The engine asks its chance
interface (:mod:`piepmatz.core.chance`) for every card it draws and every squirrel's pick; here
it answers "ask" (:data:`~piepmatz.core.chance.ASKED`), so the engine pauses right there and the
state records what it waits for (:attr:`~piepmatz.core.state.State.asked`). The position is a
chance node over the possible outcomes until one is applied, which resumes the engine
(:meth:`~piepmatz.core.state.State.apply_outcome`). Nothing is copied or applied twice, and a
copy of a paused position is a copy of the engine.

**Utility.** Zero-sum, from the winners (E5): a sole winner gets 1, the others share -1
(:func:`~piepmatz.envs.encoding.win_rewards`); terminal rewards only.

**Observations** are built from :func:`~piepmatz.core.view.view_of` only:

- observation tensor: :func:`~piepmatz.envs.encoding.encode` as floats;
- observation string: the table as text (:func:`~piepmatz.envs.text.draw_table`);
- information-state string: the public deal, the player's own deal, the event log as that player
  saw it (:func:`~piepmatz.core.view.filter_event`) and the current table — perfect recall;
- information-state tensor: the observation tensor followed by a summary of the log, for each
  seat relative to the observer: the birds it played, the birds it took from the display.

``resample_from_infostate`` deals the unseen cards anew with
:func:`~piepmatz.core.view.determinise` and starts fresh chance bookkeeping.
"""

from __future__ import annotations

import random
from operator import itemgetter
from typing import Any, Final

import numpy as np
import pyspiel

from piepmatz.core.actions import DISPLAY_SIZE, NUM_ACTIONS, Action
from piepmatz.core.cards import (
    BIRD_NAMES,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    NUM_BIRDS,
    NUM_FEEDER,
    SEED,
    SPECIES,
)
from piepmatz.core.chance import ASKED, Draw
from piepmatz.core.events import Event, EventKind, describe_event
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import score
from piepmatz.core.state import (
    COLUMN_SIZE,
    HAND_SIZE,
    NO_CARD,
    State,
    perches_for,
)
from piepmatz.core.view import PlayerView, determinise, filter_event, view_of

from .encoding import OBSERVATION_SIZE, Encoder, describe_fields, win_rewards
from .text import draw_table

GAME_NAME: Final = "python_piepmatz"

# Chance outcome ids.
FEEDER_OUTCOME: Final = NUM_BIRDS  # 72 + feeder card
SPECIES_OUTCOME: Final = FEEDER_OUTCOME + NUM_FEEDER  # 108 + species
FIRST_OUTCOME: Final = SPECIES_OUTCOME + len(SPECIES)  # 114 + seat
MAX_CHANCE_OUTCOMES: Final = FIRST_OUTCOME + 4  # 118

#: Summary of the log in the information-state tensor, per relative seat.
HISTORY_FIELDS: Final = (("played", NUM_BIRDS), ("took_from_display", NUM_BIRDS))
HISTORY_SIZE: Final = 4 * sum(length for _, length in HISTORY_FIELDS)
INFO_STATE_SIZE: Final = OBSERVATION_SIZE + HISTORY_SIZE
PRIVATE_SIZE: Final = NUM_BIRDS + 1  # own hand, own blind eggs

_DEFAULT_PARAMS: Final = {"players": 2, "preset": "standard"}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Piepmatz (Little Songbirds)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULT_PARAMS),
)


def max_game_length(players: int) -> int:
    """An upper bound on the player decisions of one game.

    Every play (T1.1) and every no-chase collect (T2.2, at most one per play) follows a bird
    entering a hand; every draw decision (T3.1) moves one bird into a hand; plus at most one crow
    decision per crow card (3) and one last-hand choice per player (E3).
    """
    birds = NUM_BIRDS - (12 if players == 2 else 0)
    return 2 * birds + birds + 3 + players


def game_info(players: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=MAX_CHANCE_OUTCOMES,
        num_players=players,
        min_utility=-1.0 / (players - 1),
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_game_length(players),
    )


class PiepmatzGame(pyspiel.Game):  # type: ignore[misc]
    """The game; parameters ``players`` (2–4) and ``preset`` (a rule set: ``standard``,
    ``overview``, or either with flags, ``standard:last_hand=false``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        unknown = sorted(set(given) - set(_DEFAULT_PARAMS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}: python_piepmatz takes players, preset")
        players = given.get("players", _DEFAULT_PARAMS["players"])
        check_players(players)
        preset = given.get("preset", _DEFAULT_PARAMS["preset"])
        self.rules = Rules.parse(preset)  # a preset, with flags if any
        super().__init__(_GAME_TYPE, game_info(players), given)
        self.players = players

    def new_initial_state(self) -> PiepmatzState:
        return PiepmatzState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> PiepmatzObserver | None:
        if params:
            raise ValueError(f"python_piepmatz observers take no parameters, got {params}")
        return PiepmatzObserver.for_type(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            self.players,
            self.rules,
        )


# ---------------------------------------------------------------------------- the engine


class _ChanceState(State):
    """The engine state that asks every draw of chance (:data:`~piepmatz.core.chance.ASKED`):
    it pauses there (:attr:`State.asked`) until OpenSpiel's chance player gives the outcome.

    Its decks hold the unseen cards in ascending order, the order of OpenSpiel's outcomes: the
    binding deals them so, and after the deal the engine only takes cards out of a deck.
    """

    __slots__ = ()

    chance = ASKED

    @staticmethod
    def adopt(state: State) -> _ChanceState:
        s = _ChanceState.__new__(_ChanceState)
        for name in _STATE_SLOTS:
            setattr(s, name, getattr(state, name))
        return s


_STATE_SLOTS: Final = State.__slots__


# ---------------------------------------------------------------------------- the position

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


def _deal_steps(players: int) -> tuple[tuple[str, int], ...]:
    """The chance nodes of the deal (S2–S5), in order: what each one deals, and where."""
    steps: list[tuple[str, int]] = []
    if players == 2:
        steps.append(("species", 0))
    steps.append(("first", 0))
    steps += [("column", i) for i in range(COLUMN_SIZE)]
    steps += [("perch", k) for k in range(perches_for(players))]
    for p in range(players):
        steps += [("hand", p)] * HAND_SIZE
    steps += [("display", i) for i in range(DISPLAY_SIZE)]
    return tuple(steps)


_DEAL_STEPS: Final = {n: _deal_steps(n) for n in (2, 3, 4)}
#: The engine's setup (S1–S5) per players, rules, first player and species set aside; the
#: binding replaces its deal with the one chance made.
_SETUPS: dict[tuple[int, Rules, int, str | None], _ChanceState] = {}
_CARDS_IN_PLAY: dict[tuple[int, str | None], tuple[list[int], list[int]]] = {}


def _setup(players: int, rules: Rules, first: int, species: str | None) -> _ChanceState:
    key = (players, rules, first, species)
    setup = _SETUPS.get(key)
    if setup is None:
        setup = _SETUPS[key] = _ChanceState.new_game(players, rules, 0, first, species)
    return setup


def _cards_in_play(players: int, rules: Rules, species: str | None) -> tuple[list[int], list[int]]:
    """The birds and feeder cards of a game, taken from the engine's own setup (S2)."""
    key = (players, species)
    if key not in _CARDS_IN_PLAY:
        # The setup of first player 0 serves the games that player begins, too.
        template = _setup(players, rules, 0, species)
        removed_b = set(template.removed_birds)
        removed_f = set(template.removed_feeder)
        _CARDS_IN_PLAY[key] = (
            [b for b in range(NUM_BIRDS) if b not in removed_b],
            [f for f in range(NUM_FEEDER) if f not in removed_f],
        )
    birds, feeder = _CARDS_IN_PLAY[key]
    return birds[:], feeder[:]


class _Position:
    """Everything a :class:`PiepmatzState` holds, in one object that copies fast.

    OpenSpiel clones a Python state with ``copy.deepcopy`` of its attributes (several times per
    move in its own tests); one object with a hand-written ``__deepcopy__`` keeps that cheap.
    """

    __slots__ = (
        "cache",
        "column",
        "display",
        "engine",
        "first",
        "hands",
        "logs",
        "n",
        "rows",
        "rules",
        "species",
        "step",
        "to_move",
        "unseen_birds",
        "unseen_feeder",
    )

    n: int
    rules: Rules
    #: The deal so far (S2–S5): the step, and what chance dealt.
    step: int
    species: int
    first: int
    column: list[int]
    rows: list[int]
    hands: list[list[int]]
    display: list[int]
    unseen_birds: list[int]
    unseen_feeder: list[int]
    #: After the deal: the engine, paused at a chance node or waiting for a player.
    engine: _ChanceState | None
    #: OpenSpiel's current player: a seat, chance or terminal (asked several times a node).
    to_move: int
    #: Per player: how many events of the log are rendered, and the rendered text.
    logs: list[tuple[int, str]]
    #: Views and texts of this exact position (OpenSpiel asks for them several times a move);
    #: emptied whenever the position changes.
    cache: dict[Any, Any]

    @staticmethod
    def initial(players: int, rules: Rules) -> _Position:
        s = _Position.__new__(_Position)
        s.n = players
        s.rules = rules
        s.step = 0
        s.species = -1
        s.first = -1
        s.column, s.rows, s.display = [], [], []
        s.hands = [[] for _ in range(players)]
        s.unseen_birds, s.unseen_feeder = (
            ([], []) if players == 2 else _cards_in_play(players, rules, None)
        )
        s.engine = None
        s.to_move = _CHANCE
        s.logs = [(0, "")] * players
        s.cache = {}
        return s

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        s = _Position.__new__(_Position)
        s.n = self.n
        s.rules = self.rules
        s.step = self.step
        s.species = self.species
        s.first = self.first
        s.column = self.column[:]
        s.rows = self.rows[:]
        s.hands = [h[:] for h in self.hands]
        s.display = self.display[:]
        s.unseen_birds = self.unseen_birds[:]
        s.unseen_feeder = self.unseen_feeder[:]
        s.engine = None if self.engine is None else self.engine.copy()
        s.to_move = self.to_move
        s.logs = self.logs[:]
        s.cache = self.cache.copy()
        return s

    # -------------------------------------------------------------- the deal

    @property
    def dealing(self) -> bool:
        return self.engine is None

    def deal_outcomes(self) -> list[int]:
        """The outcome ids of this deal step, ascending (the unseen birds themselves: not to be
        changed)."""
        kind, _ = _DEAL_STEPS[self.n][self.step]
        if kind == "species":
            return [SPECIES_OUTCOME + s for s in range(len(SPECIES))]
        if kind == "first":
            return [FIRST_OUTCOME + p for p in range(self.n)]
        if kind == "column":
            return [FEEDER_OUTCOME + f for f in self.unseen_feeder if FEEDER_KIND[f] == SEED]
        return self.unseen_birds

    def apply_deal(self, outcome: int) -> None:
        if self.cache:
            self.cache = {}
        steps = _DEAL_STEPS[self.n]
        kind, index = steps[self.step]
        if kind == "species":
            self.species = outcome - SPECIES_OUTCOME
            self.unseen_birds, self.unseen_feeder = _cards_in_play(
                2, self.rules, SPECIES[self.species]
            )
        elif kind == "first":
            self.first = outcome - FIRST_OUTCOME
        elif kind == "column":
            seed = outcome - FEEDER_OUTCOME
            self.unseen_feeder.remove(seed)
            self.column.append(seed)
        else:
            self.unseen_birds.remove(outcome)
            if kind == "perch":
                self.rows.append(outcome)
            elif kind == "hand":
                self.hands[index].append(outcome)
            else:
                self.display.append(outcome)
        self.step += 1
        if self.step == len(steps):
            self.start_play()

    def start_play(self) -> None:
        species = SPECIES[self.species] if self.species >= 0 else None
        # A copy of the engine's setup costs a fraction of a new one, which shuffles its decks.
        engine = _setup(self.n, self.rules, self.first, species).copy()
        # Replace the engine's seeded deal with the one chance made.
        engine.rows = [[bird] for bird in self.rows]
        engine.hands = [sorted(hand) for hand in self.hands]
        engine.display = self.display[:]
        engine.column = self.column[:]
        engine.column_pests = [NO_CARD] * COLUMN_SIZE
        engine.bird_deck = self.unseen_birds[:]
        engine.feeder_deck = self.unseen_feeder[:]
        self.start_from(engine)

    def start_from(self, engine: _ChanceState) -> None:
        self.engine = engine
        self.settle(engine)

    # -------------------------------------------------------------- play and chance

    def play(self, action: int) -> None:
        """A player's action, or a chance outcome during play: the engine plays on to the next
        decision or chance node (from where it paused, for an outcome)."""
        if self.cache:
            self.cache = {}
        engine = self.engine
        assert engine is not None
        asked = engine.asked
        if asked is None:
            engine.apply_id(action)
        else:
            engine.apply_outcome(action if asked.draw <= Draw.DISPLAY else action - FEEDER_OUTCOME)
        self.settle(engine)

    def settle(self, engine: _ChanceState) -> None:
        """Who is to move after the engine moved."""
        if engine.asked is not None:
            self.to_move = _CHANCE
        else:
            self.to_move = _TERMINAL if engine.is_over() else engine.current_player

    def chance_ids(self) -> list[int]:
        engine = self.engine
        if engine is None:
            return self.deal_outcomes()[:]
        assert engine.asked is not None
        if engine.asked.draw <= Draw.DISPLAY:
            return engine.bird_deck[:]  # ascending (see _ChanceState)
        return [FEEDER_OUTCOME + c for c in engine.chance_outcomes()]

    # -------------------------------------------------------------- what a player saw

    def deal_text(self, player: int, private: bool = True) -> str:
        """The deal as ``player`` saw it: the public cards and (``private``) their own hand."""
        species = SPECIES[self.species] if self.species >= 0 else "-"
        text = (
            f"deal: set aside {species}; first player {self.first}; column "
            f"{_feeder(self.column)}; perches {_birds(self.rows)}; display "
            f"{_birds(self.display)}"
        )
        if private:
            text += f"; own hand {_birds(sorted(self.hands[player]))}"
        return text

    def log_text(self, player: int) -> str:
        """The event log as ``player`` saw it (:func:`filter_event`), one sentence a line.

        Rendered incrementally: the log only grows, so each call describes the new events.
        """
        engine = self.engine
        if engine is None or engine.events is None:
            return ""
        count, text = self.logs[player]
        events = engine.events
        if count < len(events):
            new = "\n".join(describe_event(filter_event(e, player)) for e in events[count:])
            text = f"{text}\n{new}" if text else new
            self.logs[player] = (len(events), text)
        return text

    def seen_events(self, player: int) -> list[Event]:
        """The log as ``player`` saw it: exactly the events of their view."""
        engine = self.engine
        if engine is None or engine.events is None:
            return []
        key = ("events", player)
        if key not in self.cache:
            self.cache[key] = [filter_event(e, player) for e in engine.events]
        events: list[Event] = self.cache[key]
        return events

    def view(self, player: int) -> PlayerView | None:
        """``player``'s view, without the log (see :meth:`seen_events` and :meth:`log_text`)."""
        engine = self.engine
        if engine is None:
            return None
        key = ("view", player)
        if key not in self.cache:
            # Without the log the view costs far less; the log is rendered incrementally.
            self.cache[key] = view_of(State.copy(engine, events=False), player)
        view: PlayerView = self.cache[key]
        return view

    def describe(self) -> str:
        """The full position, hidden cards included (OpenSpiel's ``ToString``)."""
        if "describe" not in self.cache:
            self.cache["describe"] = self._describe()
        text: str = self.cache["describe"]
        return text

    def _describe(self) -> str:
        if self.engine is None:
            return (
                f"dealing {self.step}/{len(_DEAL_STEPS[self.n])}: set aside "
                f"{SPECIES[self.species] if self.species >= 0 else '-'}, first player "
                f"{self.first}, column {_feeder(self.column)}, perches {_birds(self.rows)}, "
                f"hands {' / '.join(_birds(h) for h in self.hands)}, display "
                f"{_birds(self.display)}"
            )
        e = self.engine
        rows = " | ".join(_birds(r) for r in e.rows)
        lines = [
            f"{e!r}",
            f"perches: {rows}; column {_feeder(e.column)} pests "
            f"{' '.join(str(x) for x in e.column_pests)}; display "
            f"{' '.join(str(x) for x in e.display)}; decks {len(e.bird_deck)}/{len(e.feeder_deck)}",
        ]
        for p in range(self.n):
            lines.append(
                f"player {p}: hand {_birds(e.hands[p])}; collection {_birds(e.collections[p])}; "
                f"seeds {_feeder(e.seeds_seen[p])} + blind {_feeder(e.seeds_blind[p])}; "
                f"pests {_feeder(e.pests[p])}; kept {e.kept[p]}"
            )
        if e.asked is not None:
            lines.append(
                f"waiting for chance: {e.asked.draw.name.lower()} from {tuple(e.chance_outcomes())}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------------------- the state


class PiepmatzState(pyspiel.State):  # type: ignore[misc]
    """A position of the game: the deal in progress, or an engine state with chance pending."""

    def __init__(self, game: PiepmatzGame) -> None:
        super().__init__(game)
        self._p = _Position.initial(game.players, game.rules)

    @property
    def position(self) -> _Position:
        return self._p

    def current_player(self) -> int:
        return self._p.to_move

    # pyspiel's own is_chance_node and legal_actions ask current_player, is_terminal and
    # _legal_actions through C++ and convert the list twice: these give the same answers
    # without leaving Python (C++ callers still go through pyspiel's).

    def is_chance_node(self) -> bool:
        return self._p.to_move == _CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self._p
        to_move = p.to_move
        if to_move >= 0 and (player is None or player == to_move):
            assert p.engine is not None
            return p.engine.legal_action_ids()
        if to_move == _CHANCE:
            return p.chance_ids()  # whoever asks: OpenSpiel's LegalChanceOutcomes
        if player is None or to_move == _TERMINAL:
            return []
        return pyspiel.State.legal_actions(self, player)  # type: ignore[no-any-return]

    def _legal_actions(self, player: int) -> list[int]:
        engine = self._p.engine
        if engine is None or engine.asked is not None or player != engine.current_player:
            return []
        return engine.legal_action_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # Asked at every chance node: one frame, the pairs picked in C from prepared tables.
        engine = self._p.engine
        if engine is None:
            outcomes = self._p.deal_outcomes()
            table = 0  # by outcome id
        else:
            assert engine.asked is not None
            draw = engine.asked.draw
            outcomes = engine.chance_pool()
            if draw <= Draw.DISPLAY:
                table = 0  # a deck is in ascending order (see _ChanceState)
            else:
                table = 1  # by feeder card
                if draw == Draw.SQUIRREL:
                    outcomes = sorted(outcomes)
        count = len(outcomes)
        tables = _UNIFORM.get(count) or _uniform(count)
        pairs = tables[table]
        if count == 1:
            return [pairs[outcomes[0]]]  # itemgetter of one item gives the item itself
        return list(itemgetter(*outcomes)(pairs))

    def _apply_action(self, action: int) -> None:
        p = self._p
        if p.engine is None:
            p.apply_deal(action)
        else:
            p.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player >= 0:
            return str(Action.from_id(action))
        if action >= FIRST_OUTCOME:
            return f"first player {action - FIRST_OUTCOME}"
        if action >= SPECIES_OUTCOME:
            return f"set aside {SPECIES[action - SPECIES_OUTCOME]}"
        if action < FEEDER_OUTCOME:
            card = BIRD_NAMES[action]
        else:
            card = FEEDER_NAMES[action - FEEDER_OUTCOME]
        p = self._p
        if p.engine is None:
            kind, index = _DEAL_STEPS[p.n][p.step]
            where = {
                "column": "seed column position",
                "perch": "perch",
                "hand": "player",
                "display": "display slot",
            }[kind]
            return f"deal {card} to {where} {index if kind == 'hand' else index + 1}"
        if p.engine.asked is not None and p.engine.asked.draw == Draw.SQUIRREL:
            return f"squirrel takes {card}"
        return f"reveal {card}"

    def is_terminal(self) -> bool:
        return self._p.to_move == _TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._p.n
        engine = self._p.engine
        assert engine is not None
        piles = [engine.seed_pile(q) for q in range(engine.num_players)]
        sheet = score(engine.rules, engine.collections, piles, True)
        return win_rewards(sheet.winners, engine.num_players)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PiepmatzState:
        """A state ``player_id`` cannot tell from this one, the unseen cards dealt anew."""
        p = self._p
        if p.engine is None or p.engine.asked is not None:
            raise ValueError("resample_from_infostate needs a decision or terminal node")
        if type(player_id) is not int or not 0 <= player_id < p.n:
            raise ValueError(f"no player {player_id!r} in a {p.n}-player game")
        rng = random.Random(int(probability_sampler() * 2**53))
        world = determinise(view_of(p.engine, player_id), rng)
        clone: PiepmatzState = self.get_game().new_initial_state()
        q = clone._p
        q.step, q.species, q.first = p.step, p.species, p.first
        q.column, q.rows, q.display = p.column[:], p.rows[:], p.display[:]
        # The dealt hands of the others are not the player's to know: only their own is kept.
        q.hands = [h[:] if i == player_id else [] for i, h in enumerate(p.hands)]
        # The decks' order is chance's to fix again, card by card.
        world.bird_deck.sort()
        world.feeder_deck.sort()
        q.start_from(_ChanceState.adopt(world))
        return clone

    def __str__(self) -> str:
        return self._p.describe()


_Pairs = tuple[tuple[int, float], ...]
#: By count: the pairs of every outcome id, and of every feeder card (see _uniform).
_UNIFORM: dict[int, tuple[_Pairs, _Pairs]] = {}


def _uniform(count: int) -> tuple[_Pairs, _Pairs]:
    """Every outcome paired with the chance of one of ``count`` equally likely outcomes, by
    outcome id and by feeder card: chance_outcomes picks its pairs from here instead of
    building them at every node."""
    tables = _UNIFORM.get(count)
    if tables is None:
        probability = 1.0 / count
        by_id = tuple((o, probability) for o in range(MAX_CHANCE_OUTCOMES))
        tables = _UNIFORM[count] = (by_id, by_id[FEEDER_OUTCOME:SPECIES_OUTCOME])
    return tables


def _birds(cards: list[int]) -> str:
    return " ".join(BIRD_NAMES[c] for c in cards) or "-"


def _feeder(cards: list[int]) -> str:
    return " ".join(FEEDER_NAMES[c] for c in cards) or "-"


# ---------------------------------------------------------------------------- observer


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
        view = position.view(player)
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
            for event in position.seen_events(player):
                if event.kind == EventKind.PLAY:
                    played[(event.player - player) % n, event.bird] = 1.0
                elif event.kind == EventKind.DRAW_DISPLAY:
                    took[(event.player - player) % n, event.bird] = 1.0

    def string_from(self, state: PiepmatzState, player: int) -> str:
        position = state.position
        view = position.view(player)
        if not self.public:
            hand = sorted(position.hands[player]) if view is None else list(view.hand)
            blind = [] if view is None else list(view.own_blind)
            return f"hand {_birds(hand)}; blind seeds {_feeder(blind)}"
        deal = position.deal_text(player, self.private)
        if view is None:
            return deal
        table = draw_table(view, private=self.private)
        if not self.recall:
            return table
        return f"{deal}\n{position.log_text(player)}\n{table}"


pyspiel.register_game(_GAME_TYPE, PiepmatzGame)
