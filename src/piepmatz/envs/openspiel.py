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

**Chance.** Every random event is an explicit chance node with uniform outcomes, asked of the
engine itself: the engine asks its chance interface (:mod:`piepmatz.core.chance`) for each of
them, from the deal on, and here it answers "ask" (:data:`~piepmatz.core.chance.ASKED`), so the
engine pauses right there and the state records what it waits for
(:attr:`~piepmatz.core.state.State.asked`). The position is a chance node over the possible
outcomes until one is applied, which resumes the engine
(:meth:`~piepmatz.core.state.State.apply_outcome`). The chance nodes are:

- the deal (S2–S5): the species set aside (two players), the first player, each feeder card
  turned up for the seed column (a pest among them goes back into the deck), one bird per perch,
  each hand one card at a time, the three display birds;
- every card drawn blind during play: bird deck draws and display refills, feeder cards taken in
  a chase (T2.1a) or revealed to refill the column (T3.2);
- each seed a squirrel takes (T2.1d), uniform over the player's seed pile.

The engine's decks hold the cards nobody has seen, in no order. Nothing is copied or applied
twice, and a copy of a paused position is a copy of the engine.

**Utility.** By default zero-sum, from the winners (E5): a sole winner gets 1, the others share
-1 (:func:`~piepmatz.envs.rewards.win_rewards`); terminal rewards only. The parameter
``reward`` chooses another (:mod:`piepmatz.envs.rewards`): ``margin``, the lead over the best
other player in points (zero-sum with two players, general-sum with more), or ``score``, the own
points (general-sum); the game's utility type and bounds follow it.
:meth:`PiepmatzState.score_sheet` gives the whole score sheet.

**Bots.** :meth:`PiepmatzState.view` is a player's view of the position, what a Piepmatz bot
decides from; :class:`piepmatz.envs.openspiel_bot.PiepmatzBot` plays any Piepmatz bot as a
``pyspiel.Bot``.

**Observations** are built from each player's view only, by the observer
(:mod:`piepmatz.envs.openspiel_observer`).

``resample_from_infostate`` deals the unseen cards anew with
:func:`~piepmatz.core.view.determinise`.
"""

from __future__ import annotations

import random
from operator import itemgetter
from typing import Any, Final

import pyspiel

from piepmatz.core.actions import NUM_ACTIONS, Action
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES, NUM_BIRDS, NUM_FEEDER, SPECIES
from piepmatz.core.chance import ASKED, DEAL_DRAWS, POOLS, Draw, Pool
from piepmatz.core.errors import InvalidOptionsError
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import ScoreSheet, score_state
from piepmatz.core.state import State
from piepmatz.core.view import PlayerView, determinise, view_of

from .openspiel_observer import Deal, Dealt, PiepmatzObserver
from .rewards import Reward, final_rewards, reward_kind, reward_range, zero_sum
from .text import birds_text, feeder_text

GAME_NAME: Final = "python_piepmatz"

# Chance outcome ids.
FEEDER_OUTCOME: Final = NUM_BIRDS  # 72 + feeder card
SPECIES_OUTCOME: Final = FEEDER_OUTCOME + NUM_FEEDER  # 108 + species
FIRST_OUTCOME: Final = SPECIES_OUTCOME + len(SPECIES)  # 114 + seat
MAX_CHANCE_OUTCOMES: Final = FIRST_OUTCOME + 4  # 118
#: By :class:`~piepmatz.core.chance.Pool`: the outcome id of its first item.
POOL_OUTCOMES: Final = (0, FEEDER_OUTCOME, FEEDER_OUTCOME, SPECIES_OUTCOME, FIRST_OUTCOME)
#: By :class:`~piepmatz.core.chance.Draw`: the outcome id of its pool's first item.
_DRAW_OUTCOMES: Final = tuple(POOL_OUTCOMES[POOLS[draw]] for draw in Draw)

_DEFAULT_PARAMS: Final = {"players": 2, "preset": "standard", "reward": Reward.WIN.value}


def game_type(zero_sum: bool = True) -> pyspiel.GameType:
    """The game's type; the utility is general-sum for the rewards that do not add up to 0."""
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Piepmatz (Little Songbirds)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility.ZERO_SUM if zero_sum else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULT_PARAMS),
    )


_GAME_TYPE = game_type()


def max_game_length(players: int) -> int:
    """An upper bound on the player decisions of one game.

    Every play (T1.1) and every no-chase collect (T2.2, at most one per play) follows a bird
    entering a hand; every draw decision (T3.1) moves one bird into a hand; plus at most one crow
    decision per crow card (3) and one last-hand choice per player (E3).
    """
    birds = NUM_BIRDS - (12 if players == 2 else 0)
    return 2 * birds + birds + 3 + players


def game_info(players: int, reward: str = Reward.WIN) -> pyspiel.GameInfo:
    low, high = reward_range(reward, players)
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=MAX_CHANCE_OUTCOMES,
        num_players=players,
        min_utility=low,
        max_utility=high,
        utility_sum=0.0 if zero_sum(reward, players) else None,
        max_game_length=max_game_length(players),
    )


def preset_rules(preset: Any) -> tuple[Rules, Any]:
    """The rules a ``preset`` parameter names, and the parameter as the game string writes it.

    A game string cannot hold ``=`` or ``,`` in a value (OpenSpiel splits parameters there), so
    flags are written ``standard+last_hand:false+draw:one`` in it; the usual text
    ``standard:last_hand=false,draw=one`` (:meth:`~piepmatz.core.rules.Rules.parse`) is taken too
    and written the first way. A preset without flags is kept as given.

    >>> preset_rules("standard:last_hand=false")[1]
    'standard+last_hand:false'
    >>> preset_rules("standard+last_hand:false")[0].last_hand
    False
    """
    if not isinstance(preset, str) or (":" not in preset and "+" not in preset):
        return Rules.parse(preset), preset  # parse refuses what is not text
    name, *items = preset.split("+")
    spec = preset
    if items:  # the game string's form, to the text Rules.parse reads
        flags = []
        for item in items:
            flag, colon, value = item.partition(":")
            if not colon:
                raise InvalidOptionsError(f"rule flag {item!r} needs a value: write {item}:...")
            flags.append(f"{flag}={value}")
        spec = f"{name}:{','.join(flags)}"
    name = spec.partition(":")[0].strip()
    rules, base = Rules.parse(spec), Rules.parse(name)
    changed = "".join(
        f"+{flag}:{str(value).lower() if isinstance(value, bool) else value}"
        for flag, value in rules.to_json().items()
        if getattr(base, flag) != value
    )
    return rules, name + changed


class PiepmatzGame(pyspiel.Game):  # type: ignore[misc]
    """The game; parameters ``players`` (2–4), ``preset`` (a rule set: ``standard``,
    ``overview``, or either with flags, ``standard+last_hand:false``, see
    :func:`preset_rules`) and ``reward`` (``win``, ``margin`` or ``score``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        unknown = sorted(set(given) - set(_DEFAULT_PARAMS))
        if unknown:
            raise ValueError(
                f"unknown parameters {unknown}: python_piepmatz takes players, preset, reward"
            )
        players = given.get("players", _DEFAULT_PARAMS["players"])
        check_players(players)
        self.rules, preset = preset_rules(given.get("preset", _DEFAULT_PARAMS["preset"]))
        if "preset" in given:
            # The game string (str(game), pickles, serialize_game_and_state) is made from
            # these parameters: the flags go in the form it can carry.
            given["preset"] = preset
        self.reward = reward_kind(given.get("reward", _DEFAULT_PARAMS["reward"]))
        kind = (
            _GAME_TYPE if self.reward == Reward.WIN else game_type(zero_sum(self.reward, players))
        )
        super().__init__(kind, game_info(players, self.reward), given)
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
    """The engine state that asks every outcome of chance (:data:`~piepmatz.core.chance.ASKED`),
    the deal's too: it pauses there (:attr:`State.asked`) until OpenSpiel's chance player gives
    the outcome. Its decks hold the unseen cards in ascending order, the order of OpenSpiel's
    outcomes."""

    __slots__ = ()

    chance = ASKED

    @staticmethod
    def adopt(state: State) -> _ChanceState:
        s = _ChanceState.__new__(_ChanceState)
        for name in _STATE_SLOTS:
            setattr(s, name, getattr(state, name))
        return s


_STATE_SLOTS: Final = State.__slots__
#: Per players and rules: the engine paused at the deal's first chance node, which every game
#: starts from (:meth:`Position.new`).
_NEW_GAMES: dict[tuple[int, Rules], _ChanceState] = {}


# ---------------------------------------------------------------------------- the position

_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)


class Position:
    """Everything a :class:`PiepmatzState` holds, in one object that copies fast.

    OpenSpiel clones a Python state with ``copy.deepcopy`` of its attributes (several times per
    move in its own tests); one object with a hand-written ``__deepcopy__`` keeps that cheap.
    """

    __slots__ = ("cache", "dealt", "engine", "logs", "n", "shared", "to_move")

    n: int
    #: The engine, paused at a chance node or waiting for a player.
    engine: _ChanceState
    #: Whether the engine is a new game that other positions share, to be copied before it
    #: moves: OpenSpiel makes a new state for every clone, and a copy there would be wasted.
    shared: bool
    #: The deal's outcomes so far, in order (what the information states tell of the deal).
    dealt: tuple[Dealt, ...]
    #: OpenSpiel's current player: a seat, chance or terminal (asked several times a node).
    to_move: int
    #: Per player: how many events of the log are rendered, and the rendered text (kept for
    #: the observer, :func:`~piepmatz.envs.openspiel_observer.seen_log`).
    logs: list[tuple[int, str]]
    #: Views and texts of this exact position (OpenSpiel asks for them several times a move);
    #: emptied whenever the position changes.
    cache: dict[Any, Any]

    @staticmethod
    def new(players: int, rules: Rules) -> Position:
        """A new game, before the deal."""
        key = (players, rules)
        engine = _NEW_GAMES.get(key)
        if engine is None:
            engine = _NEW_GAMES[key] = _ChanceState.new_game(players, rules)
        return Position.start(engine, shared=True)

    @staticmethod
    def start(
        engine: _ChanceState, dealt: tuple[Dealt, ...] = (), shared: bool = False
    ) -> Position:
        s = Position.__new__(Position)
        s.n = engine.num_players
        s.engine = engine
        s.shared = shared
        s.dealt = dealt
        s.logs = [(0, "")] * s.n
        s.cache = {}
        s.settle(engine)
        return s

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        s = Position.__new__(Position)
        s.n = self.n
        s.engine = self.engine.copy()
        s.shared = False
        s.dealt = self.dealt
        s.to_move = self.to_move
        s.logs = self.logs[:]
        s.cache = self.cache.copy()
        return s

    @property
    def dealing(self) -> bool:
        """In the deal (S2–S5): nothing is on the table yet."""
        asked = self.engine.asked
        return asked is not None and asked.draw in DEAL_DRAWS

    # -------------------------------------------------------------- play and chance

    def play(self, action: int) -> None:
        """A player's action, or a chance outcome: the engine plays on to the next decision or
        chance node (from where it paused, for an outcome)."""
        if self.engine.asked is None and action not in self.legal_ids():
            # The engine's fast path trusts its id; an illegal one is refused, naming the rule,
            # before anything changes (an id outside the action space: InvalidActionError).
            self.engine.parse_action(action)
        if self.cache:
            self.cache = {}
        if self.shared:
            self.engine = self.engine.copy()
            self.shared = False
        engine = self.engine
        asked = engine.asked
        if asked is None:
            engine.apply_id(action)
        else:
            outcome = action - _DRAW_OUTCOMES[asked.draw]
            engine.apply_outcome(outcome)
            if asked.draw in DEAL_DRAWS:
                self.dealt += ((asked.draw, asked.slot, outcome),)
        self.settle(engine)

    def settle(self, engine: _ChanceState) -> None:
        """Who is to move after the engine moved."""
        if engine.asked is not None:
            self.to_move = _CHANCE
        else:
            self.to_move = _TERMINAL if engine.is_over() else engine.current_player

    def legal_ids(self) -> list[int]:
        """The legal action ids of the player to move (none at a chance node), kept until
        the next move: OpenSpiel asks for them, then plays one of them."""
        legal: list[int] | None = self.cache.get("legal")
        if legal is None:
            engine = self.engine
            legal = [] if engine.asked is not None else engine.legal_action_ids()
            self.cache["legal"] = legal
        return legal

    def chance_ids(self) -> list[int]:
        engine = self.engine
        assert engine.asked is not None
        pool = POOLS[engine.asked.draw]
        if pool == Pool.BIRD_DECK:
            return engine.bird_deck[:]  # ascending (see _ChanceState)
        first = POOL_OUTCOMES[pool]
        return [first + c for c in engine.chance_outcomes()]

    def describe(self) -> str:
        """The full position, hidden cards included (OpenSpiel's ``ToString``)."""
        if "describe" not in self.cache:
            self.cache["describe"] = self._describe()
        text: str = self.cache["describe"]
        return text

    def _describe(self) -> str:
        e = self.engine
        deal = Deal.of(self.dealt, self.n)
        lines = [
            f"{e!r}",
            f"{deal.public_text()}; hands {' / '.join(birds_text(sorted(h)) for h in deal.hands)}",
            f"perches: {' | '.join(birds_text(r) for r in e.rows)}; column "
            f"{feeder_text(e.column)} pests {' '.join(str(x) for x in e.column_pests)}; display "
            f"{' '.join(str(x) for x in e.display)}; decks {len(e.bird_deck)}/{len(e.feeder_deck)}",
        ]
        for p in range(self.n):
            lines.append(
                f"seat {p}: hand {birds_text(e.hands[p])}; collection "
                f"{birds_text(e.collections[p])}; seeds {feeder_text(e.seeds_seen[p])} + blind "
                f"{feeder_text(e.seeds_blind[p])}; pests {feeder_text(e.pests[p])}; "
                f"kept {e.kept[p]}"
            )
        if e.asked is not None:
            lines.append(
                f"waiting for chance: {e.asked.draw.name.lower()} from {tuple(e.chance_outcomes())}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------------------- the state


class PiepmatzState(pyspiel.State):  # type: ignore[misc]
    """A position of the game: an engine state, the deal's and play's chance pending or not."""

    def __init__(self, game: PiepmatzGame) -> None:
        super().__init__(game)
        self._p = Position.new(game.players, game.rules)
        self._reward = game.reward

    @property
    def position(self) -> Position:
        return self._p

    def view(self, player: int) -> PlayerView:
        """What ``player`` may know of this position (:func:`~piepmatz.core.view.view_of`): what
        a Piepmatz bot decides from (:class:`~piepmatz.envs.openspiel_bot.PiepmatzBot`)."""
        if type(player) is not int or not 0 <= player < self._p.n:
            raise ValueError(f"no player {player!r} in a {self._p.n}-player game")
        return view_of(self._p.engine, player)

    def score_sheet(self) -> ScoreSheet:
        """The score sheet (E4–E5): final at a terminal state, the running score before."""
        return score_state(self._p.engine)

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
            return p.engine.legal_action_ids()
        if to_move == _CHANCE:
            return p.chance_ids()  # whoever asks: OpenSpiel's LegalChanceOutcomes
        if player is None or to_move == _TERMINAL:
            return []
        return pyspiel.State.legal_actions(self, player)  # type: ignore[no-any-return]

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._p.engine.current_player:
            return []
        return self._p.legal_ids()[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # Asked at every chance node: one frame, the pairs picked in C from prepared tables.
        engine = self._p.engine
        assert engine.asked is not None
        draw = engine.asked.draw
        outcomes = engine.chance_pool()  # a deck is in ascending order (see _ChanceState)
        if draw == Draw.SQUIRREL:
            outcomes = sorted(outcomes)
        count = len(outcomes)
        tables = _UNIFORM.get(count) or _uniform(count)
        pairs = tables[POOLS[draw]]
        if count == 1:
            return [pairs[outcomes[0]]]  # itemgetter of one item gives the item itself
        return list(itemgetter(*outcomes)(pairs))

    def _apply_action(self, action: int) -> None:
        self._p.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player >= 0:
            return str(Action.from_id(action))
        if action >= FIRST_OUTCOME:
            return f"first seat {action - FIRST_OUTCOME}"
        if action >= SPECIES_OUTCOME:
            return f"set aside {SPECIES[action - SPECIES_OUTCOME]}"
        if action < FEEDER_OUTCOME:
            card = BIRD_NAMES[action]
        else:
            card = FEEDER_NAMES[action - FEEDER_OUTCOME]
        asked = self._p.engine.asked
        draw = None if asked is None else asked.draw
        if draw == Draw.SQUIRREL:
            return f"squirrel takes {card}"
        if draw == Draw.DEAL_COLUMN:
            return f"turn up {card} for the seed column"
        if draw in _DEALT_TO:
            assert asked is not None
            where = _DEALT_TO[draw]
            return (
                f"deal {card} to {where} {asked.slot if draw == Draw.DEAL_HAND else asked.slot + 1}"
            )
        return f"reveal {card}"

    def is_terminal(self) -> bool:
        return self._p.to_move == _TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._p.n
        return final_rewards(self.score_sheet(), self._reward)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PiepmatzState:
        """A state ``player_id`` cannot tell from this one, the unseen cards dealt anew."""
        p = self._p
        if p.engine.asked is not None:
            raise ValueError("resample_from_infostate needs a decision or terminal node")
        if type(player_id) is not int or not 0 <= player_id < p.n:
            raise ValueError(f"no player {player_id!r} in a {p.n}-player game")
        rng = random.Random(int(probability_sampler() * 2**53))
        # The dealt hands of the others are not the player's to know: only their own is kept.
        dealt = tuple(d for d in p.dealt if d[0] != Draw.DEAL_HAND or d[1] == player_id)
        return sampled_state(self.get_game(), view_of(p.engine, player_id), rng, dealt)

    def __str__(self) -> str:
        return self._p.describe()


def sampled_state(
    game: PiepmatzGame, view: PlayerView, rng: random.Random, dealt: tuple[Dealt, ...] = ()
) -> PiepmatzState:
    """A state of ``game`` that the player of ``view`` cannot tell from the one they see: the
    unseen cards dealt anew (:func:`~piepmatz.core.view.determinise`), ``dealt`` the deal's
    outcomes their information state keeps."""
    world = determinise(view, rng)
    # The decks' order is chance's to fix again, card by card.
    world.bird_deck.sort()
    world.feeder_deck.sort()
    state: PiepmatzState = game.new_initial_state()
    state._p = Position.start(_ChanceState.adopt(world), dealt)
    return state


#: Where a bird of the deal goes (S4), by draw.
_DEALT_TO: Final = {
    Draw.DEAL_PERCH: "perch",
    Draw.DEAL_HAND: "player",
    Draw.DEAL_DISPLAY: "display slot",
}

_Pairs = tuple[tuple[int, float], ...]
#: By count: the pairs of the outcomes of each pool, by item (see _uniform).
_UNIFORM: dict[int, tuple[_Pairs, ...]] = {}


def _uniform(count: int) -> tuple[_Pairs, ...]:
    """Every outcome paired with the chance of one of ``count`` equally likely outcomes, for
    each pool (:class:`~piepmatz.core.chance.Pool`) by its items: chance_outcomes picks its
    pairs from here instead of building them at every node."""
    tables = _UNIFORM.get(count)
    if tables is None:
        probability = 1.0 / count
        by_id = tuple((o, probability) for o in range(MAX_CHANCE_OUTCOMES))
        tables = _UNIFORM[count] = tuple(by_id[first:] for first in POOL_OUTCOMES)
    return tables


pyspiel.register_game(_GAME_TYPE, PiepmatzGame)
