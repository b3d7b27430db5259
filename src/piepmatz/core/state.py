"""The game state and its transitions: every rule of RULES.md sections S, T and E lives here.

A :class:`State` is mutable (like a chess board): :meth:`State.apply` checks an action and plays
it, :meth:`State.apply_id` is the unchecked fast path for search loops that already hold a legal
action id, and :meth:`State.copy` is a cheap copy (lists of ints, no ``deepcopy``).

>>> state = State.new_game(players=3, seed=7)
>>> state.phase_name, state.current_player
('play', 1)
>>> state.apply("play " + BIRD_NAMES[state.hands[1][0]] + " 1")
>>> state.current_player in (1, 2)
True

The engine asks only real decisions: when exactly one option exists (one possible crow victim,
only the deck to draw from, a last hand of two cards or fewer), it takes that option itself and
records it in the event log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Any, Final, NamedTuple, Self

from . import rng as _rng
from .actions import (
    COLLECT_BASE,
    CROW_BASE,
    DISPLAY_SIZE,
    DRAW_DECK_ID,
    DRAW_DISPLAY_BASE,
    KEEP_BASE,
    MAX_PERCHES,
    PAIR_INDEX,
    PAIRS,
    PASS_ID,
    Action,
)
from .cards import (
    BIRD_NAMES,
    BIRD_SPECIES,
    BIRD_VALUE,
    CROW,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    IS_PEST,
    NUM_BIRDS,
    NUM_FEEDER,
    SPECIES,
    SQUIRREL,
    THREE_PLUS,
    species_birds,
)
from .chance import ASK, DEAL_DRAWS, DECKS, POOLS, Asked, Chance, Draw, Pool
from .errors import GameOverError, IllegalActionError, InvalidActionError, InvalidOptionsError
from .events import (
    EndReason,
    Event,
    new_chase,
    new_collect,
    new_collect_perch,
    new_crow,
    new_crow_nothing,
    new_draw_deck,
    new_draw_display,
    new_end_triggered,
    new_feeder_empty,
    new_game_over,
    new_keep,
    new_pass,
    new_pest_beside,
    new_pest_out,
    new_play,
    new_promote,
    new_refill_column,
    new_refill_display,
    new_reveal,
    new_skip,
    new_squirrel,
    new_take_blind,
    new_take_pest,
    new_take_seed,
    new_turn,
)
from .hands import NO_FACTS, Facts, asked, left_hand, moved_on
from .rules import PLAYER_COUNTS, Rules, check_players


class Phase(IntEnum):
    """What kind of decision the current player faces (the rule that asks it)."""

    PLAY = 0  # T1.1
    COLLECT = 1  # T2.2
    CROW_VICTIM = 2  # T2.1d
    DRAW = 3  # T3.1
    LAST_HAND = 4  # E3
    GAME_OVER = 5  # E2


PLAY, COLLECT, CROW_VICTIM, DRAW, LAST_HAND, GAME_OVER = Phase
#: The phases' names in documents and messages.
PHASE_NAMES: Final = ("play", "collect", "crow", "draw", "last hand", "game over")
PHASE_RULES: Final = ("T1.1", "T2.2", "T2.1d", "T3.1", "E3", "E2")

HAND_SIZE: Final = 4
COLUMN_SIZE: Final = 4
NO_CARD: Final = -1
#: The first player before S5 has chosen one.
NO_SEAT: Final = -1


def perches_for(players: int) -> int:
    """C5: 2 perches for 2–3 players, 3 for 4."""
    return 3 if players == 4 else 2


class Field(NamedTuple):
    """One field of :class:`State`: how a copy copies it and what a view shows of it."""

    name: str
    #: ``shared``: an immutable value (the copy shares it); ``list``: a list of ints (or of
    #: immutable values); ``lists``: a list of lists of ints, one per player or perch;
    #: ``maybe_lists``: like ``lists`` with ``None`` entries; ``events``: the log.
    copy: str
    #: ``public``: every view shows it as it is (a field of the same name); ``private``: a
    #: view shows the viewer's own entry and the others' sizes, or only a size (decks);
    #: ``derived``: follows from other fields; ``none``: not in a view (what a state paused for
    #: chance waits for: a view is taken between decisions).
    view: str


#: Every field of a state, once: ``__slots__``, :meth:`State.copy`, the sampler's template
#: (:class:`~piepmatz.core.view.Sampler`), the JSON reader and writer (:mod:`.serial`, in this
#: order) and the tests derive from this table.
FIELDS: Final = (
    Field("num_players", "shared", "public"),
    Field("num_perches", "shared", "derived"),
    Field("rules", "shared", "public"),
    Field("first_player", "shared", "public"),
    Field("turn", "shared", "public"),
    Field("turn_player", "shared", "public"),
    Field("current_player", "shared", "public"),
    Field("phase", "shared", "public"),
    Field("end_triggered", "shared", "public"),
    Field("chase_perch", "shared", "public"),
    Field("chased", "shared", "public"),
    Field("played_value", "shared", "public"),
    Field("draws_left", "shared", "public"),
    Field("asked", "shared", "none"),
    Field("rows", "lists", "public"),
    Field("column", "list", "public"),
    Field("column_pests", "list", "public"),
    Field("feeder_deck", "list", "private"),
    Field("bird_deck", "list", "private"),
    Field("display", "list", "public"),
    Field("hands", "lists", "private"),
    Field("shown", "lists", "public"),
    Field("collections", "lists", "public"),
    Field("seeds_seen", "lists", "public"),
    Field("seeds_blind", "lists", "private"),
    Field("pests", "lists", "public"),
    Field("gone_birds", "list", "public"),
    Field("gone_feeder", "list", "public"),
    Field("removed_birds", "list", "public"),
    Field("removed_feeder", "list", "public"),
    Field("kept", "maybe_lists", "private"),
    Field("discards", "lists", "private"),
    Field("hand_facts", "list", "public"),
    Field("rng", "shared", "private"),
    Field("events", "events", "private"),
)
#: Per-player lists that start empty (S1-S5 deal nothing into them).
EMPTY_PER_PLAYER: Final = (
    "collections",
    "seeds_seen",
    "seeds_blind",
    "pests",
    "discards",
    "shown",
)


def _copy_source() -> str:
    """The source of :meth:`State.copy`, one line per field: as fast as written by hand, and no
    field can be forgotten."""
    how = {
        "shared": "s.{0} = self.{0}",
        "list": "s.{0} = self.{0}[:]",
        "lists": "s.{0} = [x[:] for x in self.{0}]",
        "maybe_lists": "s.{0} = [None if x is None else x[:] for x in self.{0}]",
        "events": "s.{0} = self.{0}[:] if events and self.{0} is not None else None",
    }
    lines = ["def copy(self, events=True):", "    s = _new(type(self))"]
    lines += ["    " + how[f.copy].format(f.name) for f in FIELDS]
    lines.append("    return s")
    return "\n".join(lines)


def row_strength(row: Sequence[int]) -> tuple[int, int]:
    """``(P, G)``: a row's perch bird's value and its ground birds' total (T2); the row as the
    state and every view hold it, perch bird first."""
    ground = 0
    for bird in row[1:]:
        ground += BIRD_VALUE[bird]
    return BIRD_VALUE[row[0]], ground


def shown_row(
    row: Sequence[int], vacated: bool
) -> tuple[int | None, Sequence[int], int | None, int]:
    """A row as the table shows it: ``(perch bird, ground birds, P, G)``. While the row's chase
    waits for the crow's victim (``vacated``: the row at ``chase_perch``) its perch is empty:
    T2.1c sent the perch bird away, and T2.1e has not yet moved a ground bird up."""
    if vacated:
        return None, row, None, sum(BIRD_VALUE[bird] for bird in row)
    perch, ground = row_strength(row)
    return row[0], row[1:], perch, ground


def chases(perch_value: int, ground: int) -> bool:
    """T2.1: the ground birds chase the perch bird while their total (``G`` of
    :func:`row_strength`) is higher than its value (``P``)."""
    return ground > perch_value


class State:
    """A complete game state, hidden cards included. Build one with :meth:`new_game`."""

    #: Where the random events come from, the deal's among them (:mod:`.chance`); a subclass
    #: may supply its own.
    chance: Chance = DECKS

    __slots__ = tuple(f.name for f in FIELDS)

    rules: Rules
    num_players: int
    num_perches: int
    #: Each perch's row: index 0 is the bird at the perch, the rest are on the ground (T1.2);
    #: in the crow phase the row at ``chase_perch`` holds only ground birds (T2.1c done, T2.1e
    #: not yet).
    rows: list[list[int]]
    #: Seed column from position 1 (next to the feeder base) upward.
    column: list[int]
    #: The pest lying beside each seed of the column, or ``NO_CARD``.
    column_pests: list[int]
    #: Face-down decks; the top card is the *last* element.
    feeder_deck: list[int]
    bird_deck: list[int]
    #: Three display slots; ``NO_CARD`` for an empty slot.
    display: list[int]
    #: Hands are kept sorted by card id.
    hands: list[list[int]]
    collections: list[list[int]]
    #: Seeds taken from the column (values public) and drawn blind (values private).
    seeds_seen: list[list[int]]
    seeds_blind: list[list[int]]
    pests: list[list[int]]
    #: Cards that left the game face up: crow victims; squirrels' seeds and homeless pests.
    gone_birds: list[int]
    gone_feeder: list[int]
    #: Cards set aside at setup (S2).
    removed_birds: list[int]
    removed_feeder: list[int]
    #: E3: each player's chosen two birds (``None`` until chosen) and discarded rest.
    kept: list[list[int] | None]
    discards: list[list[int]]
    #: Hand birds each player drew face up from the display (T3.1) and still holds: everybody
    #: saw them taken, so they are public knowledge (a subset of ``hands``).
    shown: list[list[int]]
    #: What everybody knows of each hand from how its holder moved (T2.2, :mod:`.hands`);
    #: ``None`` when nothing is known.
    hand_facts: list[Facts | None]
    phase: Phase
    current_player: int
    turn_player: int
    first_player: int
    turn: int
    end_triggered: EndReason | None
    chase_perch: int
    chased: bool
    played_value: int
    draws_left: int
    #: What the engine waits for from chance (:data:`~piepmatz.core.chance.ASKED`), else ``None``.
    asked: Asked | None
    rng: int
    events: list[Event] | None

    # ------------------------------------------------------------------ construction

    @classmethod
    def new_game(
        cls,
        players: int = 2,
        rules: Rules | str = "standard",
        seed: int = 0,
        first_player: int | None = None,
        removed_species: str | None = None,
        events: bool = True,
    ) -> Self:
        """Set up a game (S1–S5). Same arguments → the same deal, card for card.

        The deal asks :attr:`chance` for every choice and card the options leave open; a
        chance that leaves them to the caller returns the state paused at the first
        (:attr:`asked`)."""
        if not isinstance(rules, Rules):
            rules = Rules.preset(rules)  # a name; anything else is refused there
        check_players(players)
        if type(seed) is not int:
            raise InvalidOptionsError(f"the seed must be an integer, not {seed!r}")
        if first_player is not None and (
            type(first_player) is not int or not 0 <= first_player < players
        ):
            raise InvalidOptionsError(
                f"first player must be a seat 0-{players - 1}, not {first_player!r}"
            )
        if removed_species is not None and players != 2:
            raise InvalidOptionsError("a species is removed only in two-player games (S2)")
        if removed_species is not None and removed_species not in SPECIES:
            raise InvalidOptionsError(
                f"unknown species {removed_species!r}: choose one of {', '.join(SPECIES)}"
            )
        s = cls.__new__(cls)
        s.rules = rules
        s.num_players = players
        s.num_perches = perches_for(players)
        s.rng = _rng.seed_state(seed)
        s.removed_birds = []
        s.removed_feeder = []
        if removed_species is not None:
            s._set_aside(SPECIES.index(removed_species))
        s.first_player = NO_SEAT if first_player is None else first_player
        s.rows = []
        s.column = []
        s.column_pests = [NO_CARD] * COLUMN_SIZE
        s.feeder_deck = []
        s.bird_deck = []
        s.display = []
        s.hands = [[] for _ in range(players)]
        for name in EMPTY_PER_PLAYER:
            setattr(s, name, [[] for _ in range(players)])
        s.gone_birds = []
        s.gone_feeder = []
        s.kept = [None] * players
        s.hand_facts = [None] * players
        s.turn = 0
        s.end_triggered = None
        s.chase_perch = -1
        s.chased = False
        s.played_value = 0
        s.draws_left = 0
        s.asked = None
        s.turn_player = NO_SEAT
        s.current_player = NO_SEAT
        s.phase = PLAY
        s.events = [] if events else None
        s._deal()
        return s

    def _set_aside(self, species: int) -> None:
        """S2: two players play without the 3+ cards and without one species."""
        self.removed_birds = species_birds(species)
        self.removed_feeder = sorted(THREE_PLUS)

    def _deal(self, taken: tuple[int, ...] = ()) -> None:
        """S2–S5, every choice and card asked of chance; then turn 1 begins. Pauses (returns)
        when chance is asked, and resumes there: what is dealt stays dealt, and each deck is
        built and shuffled once. ``taken``: the pests S3 set aside before chance was asked for the
        next card."""
        chance = self.chance
        # S2, unless the options named the species.
        if self.num_players == 2 and not self.removed_birds:
            species = chance.species(self)
            if species == ASK:
                self.asked = _ASK_SPECIES
                return
            self._set_aside(species)
        # S5 (unless named), before the decks: the seeded deal has always drawn in this order.
        if self.first_player < 0:
            first = chance.first_player(self)
            if first == ASK:
                self.asked = _ASK_FIRST_PLAYER
                return
            self.first_player = first
        # S3: four seeds in the column; pests turned up meanwhile go back, and the deck is
        # shuffled again.
        column = self.column
        feeder = self.feeder_deck
        if len(column) < COLUMN_SIZE:
            if not feeder:
                removed_f = set(self.removed_feeder)
                feeder.extend([f for f in range(NUM_FEEDER) if f not in removed_f])
                chance.shuffle(self, feeder)
            aside = list(taken)
            while len(column) < COLUMN_SIZE:
                card = chance.feeder(self)
                if card == ASK:
                    self.asked = (
                        Asked(Draw.DEAL_COLUMN, -1, tuple(aside)) if aside else _ASK_DEAL_COLUMN
                    )
                    return
                (aside if IS_PEST[card] else column).append(card)
            if aside:
                feeder.extend(aside)
                chance.shuffle(self, feeder)
        # S4
        birds = self.bird_deck
        if not birds:
            removed_b = set(self.removed_birds)
            birds.extend([b for b in range(NUM_BIRDS) if b not in removed_b])
            chance.shuffle(self, birds)
        rows = self.rows
        while len(rows) < self.num_perches:
            bird = chance.bird(self)
            if bird == ASK:
                self.asked = _ASK_PERCH[len(rows)]
                return
            rows.append([bird])
        for p, hand in enumerate(self.hands):
            if len(hand) == HAND_SIZE:
                continue
            while len(hand) < HAND_SIZE:
                bird = chance.bird(self)
                if bird == ASK:
                    self.asked = _ASK_HAND[p]
                    return
                hand.append(bird)
            hand.sort()
        display = self.display
        while len(display) < DISPLAY_SIZE:
            bird = chance.bird(self)
            if bird == ASK:
                self.asked = _ASK_DEAL_DISPLAY[len(display)]
                return
            display.append(bird)
        first = self.first_player
        self.turn = 1
        self.turn_player = first
        self.current_player = first
        if self.events is not None:
            self.events.append(new_turn(first, 1))

    def copy(self, events: bool = True) -> Self:
        """A cheap independent copy of the same type; ``events=False`` drops the event log (for
        search)."""
        copy: Self = _copy(self, events)  # generated from FIELDS, below the class
        return copy

    # ------------------------------------------------------------------ queries

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def is_over(self) -> bool:
        return self.phase == GAME_OVER

    @property
    def last_seat(self) -> int:
        """E2: the seat just before the first player ends the last round."""
        return (self.first_player - 1) % self.num_players

    def seed_pile(self, player: int) -> list[int]:
        return self.seeds_seen[player] + self.seeds_blind[player]

    def row_strengths(self, perch: int) -> tuple[int, int]:
        """``(P, G)`` of the row at ``perch`` (0-based): see :func:`row_strength`."""
        return row_strength(self.rows[perch])

    def crow_candidates(self, player: int) -> list[int]:
        """T2.1d: the birds of the player's most numerous species (all tied species)."""
        counts = [0] * len(SPECIES)
        collection = self.collections[player]
        for bird in collection:
            counts[BIRD_SPECIES[bird]] += 1
        top = max(counts)
        if top == 0:
            return []
        return sorted(b for b in collection if counts[BIRD_SPECIES[b]] == top)

    def draw_options(self) -> list[int]:
        """T3.1: the action ids of the draws open now."""
        options = [DRAW_DISPLAY_BASE + i for i, card in enumerate(self.display) if card >= 0]
        if self.bird_deck:
            options.append(DRAW_DECK_ID)
        return options

    def legal_action_ids(self) -> list[int]:
        """The ids of the current player's legal actions, ascending."""
        phase = self.phase
        if phase == PLAY:
            n = self.num_perches
            return [
                card * MAX_PERCHES + k for card in self.hands[self.current_player] for k in range(n)
            ]
        if phase == DRAW:
            return self.draw_options()
        if phase == COLLECT:
            limit = self.played_value
            ids = [
                COLLECT_BASE + c for c in self.hands[self.current_player] if BIRD_VALUE[c] <= limit
            ]
            ids.append(PASS_ID)
            return ids
        if phase == CROW_VICTIM:
            return [CROW_BASE + c for c in self.crow_candidates(self.current_player)]
        if phase == LAST_HAND:
            hand = self.hands[self.current_player]
            return [
                KEEP_BASE + PAIR_INDEX[(a, b)] for i, a in enumerate(hand) for b in hand[i + 1 :]
            ]
        return []

    def legal_actions(self) -> list[Action]:
        """The current player's legal actions as :class:`Action` values, sorted by id."""
        return [Action.from_id(i) for i in self.legal_action_ids()]

    def describe_position(self) -> str:
        """A short description of where the game stands, for error messages."""
        if self.phase == GAME_OVER:
            return f"the game is over after turn {self.turn}"
        if self.asked is not None:
            return f"turn {self.turn}, waiting for chance ({self.asked.draw.name.lower()})"
        return (
            f"turn {self.turn}, player {self.current_player} to {PHASE_NAMES[self.phase]} "
            f"({PHASE_RULES[self.phase]})"
        )

    # ------------------------------------------------------------------ checked path

    def parse_action(self, action: Action | str | int, player: int | None = None) -> Action:
        """Read an action (value, text or id) and check it is legal here, else raise.

        Raises :class:`InvalidActionError` for text or ids that are no action at all and
        :class:`IllegalActionError` (naming the rule and the position) for actions the rules
        forbid now.
        """
        if isinstance(action, str):
            action = Action.parse(action)
        elif isinstance(action, int) and not isinstance(action, bool):
            action = Action.from_id(action)
        elif not isinstance(action, Action):
            raise InvalidActionError(f"{action!r} is not an action")
        if self.phase == GAME_OVER:
            raise GameOverError(
                f"{action}: the game is over; no more actions (E2)",
                "game_over",
                action=str(action),
                rule="E2",
            )
        if self.asked is not None:
            raise IllegalActionError(
                f"{action}: the game waits for chance first ({self.asked.draw.name.lower()})",
                "chance_first",
                action=str(action),
            )
        if player is not None and (type(player) is not int or not 0 <= player < self.num_players):
            raise InvalidActionError(
                f"{action}: the player must be a seat 0-{self.num_players - 1}, not {player!r}"
            )
        if player is not None and player != self.current_player:
            raise IllegalActionError(
                f"{action}: it is not player {player}'s turn; {self.describe_position()}",
                "not_your_turn",
                action=str(action),
                player=player,
            )
        action_id = action.id
        if action_id not in self.legal_action_ids():
            why, reason, params = self._why_illegal(action)
            raise IllegalActionError(
                f"{action}: {why}; {self.describe_position()}", reason, action=str(action), **params
            )
        return action

    def apply(self, action: Action | str | int, player: int | None = None) -> None:
        """Check and play one action; on any error the state is unchanged."""
        self.apply_id(self.parse_action(action, player).id)

    def _why_illegal(self, action: Action) -> tuple[str, str, dict[str, object]]:
        """Why ``action`` is illegal: in English, and as a reason id with its values."""
        p = self.current_player
        kind = action.kind
        expected = {
            PLAY: "play",
            COLLECT: "collect",
            CROW_VICTIM: "crow",
            DRAW: "draw display",
            LAST_HAND: "keep",
        }[self.phase]
        phase_kinds = {
            PLAY: {"play"},
            COLLECT: {"collect", "pass"},
            CROW_VICTIM: {"crow"},
            DRAW: {"draw display", "draw deck"},
            LAST_HAND: {"keep"},
        }[self.phase]
        if kind not in phase_kinds:
            return (
                f"a '{kind}' is not possible now, the decision is a '{expected}'",
                "wrong_decision",
                {"kind": str(kind), "expected": expected},
            )
        if kind in ("play", "collect", "crow"):
            bird = BIRD_NAMES[action.cards[0]]
            rule = {"play": "T1.1", "collect": "T2.2", "crow": "T2.1d"}[kind]
            place = self.collections[p] if kind == "crow" else self.hands[p]
            if action.cards[0] not in place:
                where = "collection" if kind == "crow" else "hand"
                return (
                    f"{bird} is not in player {p}'s {where} ({rule})",
                    f"not_in_{where}",
                    {"bird": bird, "rule": rule},
                )
        if kind == "play":
            return (
                f"there is no perch {action.index} with {self.num_players} players (C5)",
                "no_perch",
                {"perch": action.index, "players": self.num_players, "rule": "C5"},
            )
        if kind == "collect":
            value = BIRD_VALUE[action.cards[0]]
            return (
                f"{bird} has value {value}, higher than the bird just "
                f"played ({self.played_value}) (T2.2)",
                "collect_too_high",
                {"bird": bird, "value": value, "played": self.played_value, "rule": "T2.2"},
            )
        if kind == "draw display":
            return (
                f"display slot {action.index} is empty (T3.1)",
                "display_empty",
                {"slot": action.index, "rule": "T3.1"},
            )
        if kind == "draw deck":
            return "the bird deck is empty (T3.1)", "bird_deck_empty", {"rule": "T3.1"}
        if kind == "crow":
            return (
                f"{bird} is not of a species of which player {p} holds the most birds (T2.1d)",
                "crow_not_most",
                {"bird": bird, "rule": "T2.1d"},
            )
        missing = [BIRD_NAMES[c] for c in action.cards if c not in self.hands[p]]
        names = " and ".join(missing)
        return (
            f"{names} not in player {p}'s hand (E3)",
            "keep_not_in_hand",
            {"birds": " ".join(missing), "rule": "E3"},
        )

    # ------------------------------------------------------------------ fast path

    def apply_id(self, action_id: int) -> None:
        """Play a legal action id without checking it (for search)."""
        phase = self.phase
        if phase == PLAY:
            self._play(action_id // MAX_PERCHES, action_id % MAX_PERCHES)
        elif phase == DRAW:
            self._draw(action_id)
        elif phase == COLLECT:
            p = self.current_player
            if action_id == PASS_ID:
                if self.events is not None:
                    self.events.append(new_pass(p))
            else:
                bird = action_id - COLLECT_BASE
                self._from_hand(p, bird)
                self.collections[p].append(bird)
                if self.events is not None:
                    self.events.append(new_collect(p, bird))
            self._start_draw()
        elif phase == CROW_VICTIM:
            self._crow_discard(self.current_player, action_id - CROW_BASE)
            perch = self.chase_perch
            self._promote(perch)
            self._chase(perch)
        elif phase == LAST_HAND:
            a, b = PAIRS[action_id - KEEP_BASE]
            self._keep(self.current_player, [a, b])
            self._next_last_hand()
        else:
            raise GameOverError("the game is over; no more actions (E2)", "game_over", rule="E2")

    # ------------------------------------------------------------------ T1 and T2

    def _from_hand(self, player: int, bird: int) -> None:
        """A bird leaves the hand face up; if it was drawn face up, nobody need remember it."""
        self.hands[player].remove(bird)
        shown = self.shown[player]
        if shown and bird in shown:
            shown.remove(bird)
        facts = self.hand_facts[player]
        if facts is not None:
            self.hand_facts[player] = left_hand(facts, BIRD_VALUE[bird])

    def _play(self, bird: int, perch: int) -> None:
        p = self.turn_player
        self._from_hand(p, bird)
        row = self.rows[perch]
        row.append(bird)  # T1.1: always at the end of the row
        value = BIRD_VALUE[bird]
        self.played_value = value
        self.chased = False
        if self.events is not None:
            self.events.append(new_play(p, bird, perch + 1))
        if chases(*row_strength(row)):
            self.chased = True
            self._chase(perch)
            return
        # T2.2: no chase — the player may collect a hand bird not higher than the one played.
        # Everybody sees whether the player is asked, and so learns a bound on the hand.
        if self.rules.no_chase_collect:
            hand = self.hands[p]
            facts = self.hand_facts[p] or NO_FACTS
            for card in hand:
                if BIRD_VALUE[card] <= value:
                    self.phase = COLLECT
                    self.hand_facts[p] = asked(facts, value)
                    return
            if hand:
                self.hand_facts[p] = moved_on(facts, len(hand), value)
        self._start_draw()

    def _chase(self, perch: int) -> None:
        """T2.1: chase while G > P; pauses (returns) when the crow's victim must be chosen or
        chance is asked."""
        p = self.turn_player
        row = self.rows[perch]
        events = self.events
        self.chase_perch = perch
        while True:
            perch_value, ground = row_strength(row)
            if not chases(perch_value, ground):
                break
            d = ground - perch_value
            column = self.column
            card = NO_CARD
            if d > len(column) and self.feeder_deck:
                # Asked before anything of this step happens: a resumed chase starts it again.
                card = self.chance.feeder(self)
                if card == ASK:
                    self.asked = _ASK_CHASE
                    return
            if events is not None:
                events.append(new_chase(p, perch + 1, d))
            # a. seed position
            pest = NO_CARD
            if d <= len(column):
                seed = column.pop(d - 1)
                pest = self.column_pests.pop(d - 1)
                self.column_pests.append(NO_CARD)
                self.seeds_seen[p].append(seed)
                if events is not None:
                    events.append(new_take_seed(p, seed, d))
                if pest >= 0:
                    self.pests[p].append(pest)
                    if events is not None:
                        events.append(new_take_pest(p, pest, d))
            elif card >= 0:
                if IS_PEST[card]:
                    pest = card
                    self.pests[p].append(pest)
                    if events is not None:
                        events.append(new_take_pest(p, pest, 0))
                else:
                    self.seeds_blind[p].append(card)
                    if events is not None:
                        events.append(new_take_blind(p, card))
            else:
                if events is not None:
                    events.append(new_feeder_empty(p))
                self._trigger_end(EndReason.FEEDER, p)
            # c. the perch bird joins the collection
            chased_bird = row.pop(0)
            self.collections[p].append(chased_bird)
            if events is not None:
                events.append(new_collect_perch(p, chased_bird))
            # d. pest effects
            if pest >= 0:
                kind = FEEDER_KIND[pest]
                if kind == CROW:
                    candidates = self.crow_candidates(p)
                    if len(candidates) > 1:
                        self.phase = CROW_VICTIM
                        self.current_player = p
                        return
                    if candidates:
                        self._crow_discard(p, candidates[0])
                    elif events is not None:
                        events.append(new_crow_nothing(p))
                elif kind == SQUIRREL and not self._squirrel(p):
                    return
            # e. promotion
            self._promote(perch)
        self._after_chase()

    def _promote(self, perch: int) -> None:
        """T2.1e: the highest ground bird moves to the perch; ties go to the earliest."""
        row = self.rows[perch]
        best = 0
        best_value = BIRD_VALUE[row[0]]
        for i in range(1, len(row)):
            v = BIRD_VALUE[row[i]]
            if v > best_value:
                best, best_value = i, v
        if best:
            row.insert(0, row.pop(best))
        if self.events is not None:
            self.events.append(new_promote(perch + 1, row[0]))

    def _crow_discard(self, player: int, bird: int) -> None:
        self.collections[player].remove(bird)
        self.gone_birds.append(bird)
        if self.events is not None:
            self.events.append(new_crow(player, bird))

    def _squirrel(self, player: int, taken: tuple[int, ...] = ()) -> bool:
        """T2.1d: two random seeds of the pile leave the game face up; ``taken`` are those it
        took before chance was asked for the next. ``False`` when it pauses for chance."""
        seen = self.seeds_seen[player]
        blind = self.seeds_blind[player]
        lost = list(taken)
        while len(lost) < 2:
            pile = seen + blind
            if not pile:
                break
            pick = self.chance.squirrel(self, player, pile)
            if pick == ASK:
                self.asked = Asked(Draw.SQUIRREL, taken=tuple(lost))
                return False
            lost.append(self._strike(seen, blind, pick))
        lost.sort()  # both leave at once: the order of the picks is nothing anybody sees
        self.gone_feeder.extend(lost)
        if self.events is not None:
            self.events.append(new_squirrel(player, tuple(lost)))
        return True

    def _strike(self, seen: list[int], blind: list[int], seed: int) -> int:
        """T2.1d: the squirrel picked ``seed``; the copy that leaves the pile is returned.

        Seeds of one value are alike. When the pick is a blind seed and a seen seed of the same
        value lies in the pile, the seen copy leaves: left on the public record, it would tell
        the others that the blind one went, and so the value of the blind seeds that stay.
        """
        if seed in seen:
            seen.remove(seed)
            return seed
        eggs = FEEDER_EGGS[seed]
        for i, twin in enumerate(seen):
            if FEEDER_EGGS[twin] == eggs:
                del seen[i]
                return twin
        blind.remove(seed)
        return seed

    def _after_chase(self) -> None:
        self.chase_perch = -1
        self._start_draw()

    # ------------------------------------------------------------------ T3

    def draws_due(self, held: int) -> int:
        """T3.1: the draws a hand of ``held`` cards takes: up to four, or one (``draw=one``)."""
        missing = HAND_SIZE - held
        return max(0, missing if self.rules.draw == "refill" else min(1, missing))

    def _start_draw(self) -> None:
        p = self.turn_player
        self.current_player = p
        self.draws_left = self.draws_due(len(self.hands[p]))
        self._continue_draw()

    def _continue_draw(self) -> None:
        while self.draws_left > 0:
            options = self.draw_options()
            if len(options) > 1:
                self.phase = DRAW
                return
            if not options:
                break  # T3.1: nothing left to draw; the hand stays short
            if not self._take_draw(options[0]):
                return
        self.draws_left = 0
        if self._refill_column():
            self._end_turn()

    def _draw(self, action_id: int) -> None:
        if self._take_draw(action_id):
            self._continue_draw()

    def _take_draw(self, action_id: int) -> bool:
        """T3.1: one draw; ``False`` when it pauses for chance, before anything of it happens."""
        p = self.turn_player
        events = self.events
        if action_id == DRAW_DECK_ID:
            bird = self.chance.bird(self)
            if bird == ASK:
                self.asked = _ASK_BIRD
                return False
            if events is not None:
                events.append(new_draw_deck(p, bird))
        else:
            slot = action_id - DRAW_DISPLAY_BASE
            bird = self.display[slot]
            refill = self.chance.bird(self) if self.bird_deck else NO_CARD
            if refill == ASK:
                self.asked = _ASK_DISPLAY[slot]
                return False
            self.display[slot] = refill
            self.shown[p].append(bird)
            if events is not None:
                events.append(new_draw_display(p, slot + 1, bird))
                if refill >= 0:
                    events.append(new_refill_display(slot + 1, refill))
        hand = self.hands[p]
        hand.append(bird)
        hand.sort()
        self.draws_left -= 1
        return True

    def _refill_column(self, aside: list[int] | None = None) -> bool:
        """T3.2: refill to four seeds; set-aside pests go beside the lowest free seeds.
        ``aside`` holds the pests set aside before chance was asked for the next card;
        ``False`` when it pauses for chance."""
        column = self.column
        if aside is None:
            if len(column) >= COLUMN_SIZE:
                return True
            aside = []
        deck = self.feeder_deck
        events = self.events
        while len(column) < COLUMN_SIZE:
            if not deck:
                self._trigger_end(EndReason.FEEDER, self.turn_player)
                break
            card = self.chance.feeder(self)
            if card == ASK:
                self.asked = Asked(Draw.COLUMN, -1, tuple(aside)) if aside else _ASK_COLUMN
                return False
            if IS_PEST[card]:
                aside.append(card)
            else:
                column.append(card)
                if events is not None:
                    events.append(new_refill_column(len(column), card))
        if aside:
            pests = self.column_pests
            for pest in aside:
                for i in range(len(column)):
                    if pests[i] < 0:
                        pests[i] = pest
                        if events is not None:
                            events.append(new_pest_beside(i + 1, pest))
                        break
                else:
                    self.gone_feeder.append(pest)  # [house rule] no free seed: leaves the game
                    if events is not None:
                        events.append(new_pest_out(pest))
        return True

    # ------------------------------------------------------------------ chance, when asked

    def chance_pool(self) -> list[int]:
        """What chance draws from for a paused state (:attr:`asked`, :data:`~.chance.POOLS`):
        the bird deck or the feeder deck itself (not to be changed), or a new list: the
        squirrel's pile in the state's order, the species' or the seats' indexes. Every item
        of it is equally likely. Empty when the state waits for a player."""
        asked = self.asked
        if asked is None:
            return []
        pool = POOLS[asked.draw]
        if pool == Pool.BIRD_DECK:
            return self.bird_deck
        if pool == Pool.FEEDER_DECK:
            return self.feeder_deck
        if pool == Pool.SEED_PILE:
            return self.seed_pile(self.turn_player)
        return list(range(len(SPECIES) if pool == Pool.SPECIES else self.num_players))

    def chance_outcomes(self) -> list[int]:
        """The outcomes chance may give a paused state (:attr:`asked`), ascending; each is
        equally likely. Empty when the state waits for a player."""
        return sorted(self.chance_pool())

    def apply_outcome(self, card: int) -> None:
        """Give a paused state the outcome chance drew (a card, the seed the squirrel took, the
        species or the first player of the deal) and play on to the next decision or pause. An
        outcome chance cannot give here raises :class:`IllegalActionError` and changes nothing.

        The engine pauses before anything of the draw happens, so it resumes by starting the
        draw again; this time chance answers ``card`` (:data:`~piepmatz.core.chance.ASKED`).
        """
        asked = self.asked
        if asked is None:
            raise IllegalActionError(
                f"{card!r}: no chance outcome is due; {self.describe_position()}", "no_chance"
            )
        self.asked = Asked(asked.draw, asked.slot, asked.taken, card)
        draw = asked.draw
        try:
            if draw == Draw.BIRD:
                if self._take_draw(DRAW_DECK_ID):
                    self._continue_draw()
            elif draw == Draw.DISPLAY:
                if self._take_draw(DRAW_DISPLAY_BASE + asked.slot):
                    self._continue_draw()
            elif draw == Draw.COLUMN:
                if self._refill_column(list(asked.taken)):
                    self._end_turn()
            elif draw == Draw.CHASE:
                self._chase(self.chase_perch)
            elif draw in DEAL_DRAWS:
                self._deal(asked.taken)
            elif self._squirrel(self.turn_player, asked.taken):
                perch = self.chase_perch
                self._promote(perch)
                self._chase(perch)
        except IllegalActionError:
            self.asked = asked  # refused before anything happened (see ASKED)
            raise

    # ------------------------------------------------------------------ E1–E3

    def _trigger_end(self, reason: EndReason, player: int) -> None:
        if self.end_triggered is None:
            self.end_triggered = reason
            if self.events is not None:
                self.events.append(new_end_triggered(player, reason))

    def _end_turn(self) -> None:
        if self.rules.end_trigger == "feeder_or_birds" and not self.bird_deck:
            self._trigger_end(EndReason.BIRDS, self.turn_player)
        n = self.num_players
        while True:
            if self.end_triggered is not None and self.turn_player == self.last_seat:
                self._start_last_hand()
                return
            self.turn_player = (self.turn_player + 1) % n
            self.turn += 1
            p = self.turn_player
            if self.events is not None:
                self.events.append(new_turn(p, self.turn))
            if self.hands[p]:
                self.current_player = p
                self.phase = PLAY
                return
            # T1.3 [house rule]: no hand (nothing left to draw) — skip, and trigger the end.
            if self.events is not None:
                self.events.append(new_skip(p))
            self._trigger_end(EndReason.SKIP, p)

    def _start_last_hand(self) -> None:
        if not self.rules.last_hand:
            self._game_over()
            return
        self.phase = LAST_HAND
        self._next_last_hand()

    def _next_last_hand(self) -> None:
        """E3: players choose in seat order from the first player; choices stay secret."""
        n = self.num_players
        for k in range(n):
            p = (self.first_player + k) % n
            if self.kept[p] is not None:
                continue
            hand = self.hands[p]
            if len(hand) > 2:
                self.current_player = p
                return
            self._keep(p, hand[:])  # [house rule] two cards or fewer: all of them
        # Everybody has chosen: reveal.
        for p in range(n):
            kept = self.kept[p]
            assert kept is not None
            self.collections[p].extend(kept)
            self.kept[p] = []
            self.shown[p].clear()
            if self.events is not None:
                self.events.append(new_reveal(p, tuple(kept)))
        self._game_over()

    def _keep(self, player: int, birds: list[int]) -> None:
        hand = self.hands[player]
        for bird in birds:
            hand.remove(bird)
        self.kept[player] = birds
        self.discards[player].extend(hand)
        hand.clear()
        self.hand_facts[player] = None
        # ``shown`` stays: everybody still knows those birds are among the kept and discarded.
        if self.events is not None:
            self.events.append(new_keep(player, tuple(birds)))

    def _game_over(self) -> None:
        self.phase = GAME_OVER
        self.current_player = -1
        if self.events is not None:
            self.events.append(new_game_over())

    # ------------------------------------------------------------------ bookkeeping

    def card_places(self) -> tuple[dict[int, str], dict[int, str]]:
        """Where each bird and feeder card lies, by place name (for checks and tests).

        Raises ``ValueError`` if a card lies in two places.
        """
        birds: dict[int, str] = {}
        feeder: dict[int, str] = {}

        def put(table: dict[int, str], cards: Iterable[int], place: str) -> None:
            names = BIRD_NAMES if table is birds else FEEDER_NAMES
            for card in cards:
                if card in table:
                    raise ValueError(f"{names[card]} lies both in {table[card]} and in {place}")
                table[card] = place

        for i, row in enumerate(self.rows):
            put(birds, row, f"row {i + 1}")
        put(birds, self.bird_deck, "bird deck")
        put(birds, (c for c in self.display if c >= 0), "display")
        for p in range(self.num_players):
            put(birds, self.hands[p], f"hand {p}")
            put(birds, self.collections[p], f"collection {p}")
            put(birds, self.kept[p] or (), f"kept {p}")
            put(birds, self.discards[p], f"discards {p}")
            put(feeder, self.seeds_seen[p], f"seeds {p}")
            put(feeder, self.seeds_blind[p], f"blind seeds {p}")
            put(feeder, self.pests[p], f"pests {p}")
        put(birds, self.gone_birds, "gone")
        put(birds, self.removed_birds, "removed")
        put(feeder, self.column, "column")
        put(feeder, (c for c in self.column_pests if c >= 0), "column pests")
        put(feeder, self.feeder_deck, "feeder deck")
        put(feeder, self.gone_feeder, "gone")
        put(feeder, self.removed_feeder, "removed")
        return birds, feeder

    def __repr__(self) -> str:
        return f"<State {self.num_players} players, {self.rules.name}: {self.describe_position()}>"


#: What the engine asks of chance at the sites that hold nothing meanwhile.
_ASK_BIRD: Final = Asked(Draw.BIRD)
_ASK_CHASE: Final = Asked(Draw.CHASE)
_ASK_COLUMN: Final = Asked(Draw.COLUMN)
_ASK_DISPLAY: Final = tuple(Asked(Draw.DISPLAY, slot) for slot in range(DISPLAY_SIZE))
_ASK_SPECIES: Final = Asked(Draw.SPECIES)
_ASK_FIRST_PLAYER: Final = Asked(Draw.FIRST_PLAYER)
_ASK_DEAL_COLUMN: Final = Asked(Draw.DEAL_COLUMN)
_ASK_PERCH: Final = tuple(Asked(Draw.DEAL_PERCH, perch) for perch in range(MAX_PERCHES))
_ASK_HAND: Final = tuple(Asked(Draw.DEAL_HAND, p) for p in range(max(PLAYER_COUNTS)))
_ASK_DEAL_DISPLAY: Final = tuple(Asked(Draw.DEAL_DISPLAY, slot) for slot in range(DISPLAY_SIZE))

_namespace: dict[str, Any] = {"_new": object.__new__}
exec(_copy_source(), _namespace)  # generated from FIELDS, as dataclasses generate __init__
_copy = _namespace["copy"]
