"""Player views and determinisation (PRODUCT.md principle 3).

A :class:`PlayerView` holds everything one player may know at a moment and nothing else. It is
built from the state by :func:`view_of`; bots, clients and environments see only views.

:func:`determinise` samples a complete :class:`State` consistent with a view: the cards this
player cannot see are dealt at random among the hidden places. The sampled state gives the same
view back (a property test checks it).

>>> from piepmatz.core.state import State
>>> import random
>>> state = State.new_game(players=3, seed=1)
>>> view = view_of(state, 0)
>>> world = determinise(view, random.Random(5))
>>> view_of(world, 0) == view
True
"""

from __future__ import annotations

import math
import random
from typing import Any, Final, NamedTuple

from .cards import BIRD_VALUE, IS_PEST, NUM_BIRDS, NUM_FEEDER
from .errors import InvalidOptionsError
from .events import SECRET_EVENTS, Event, hide_secret
from .hands import NO_FACTS, Facts, allows, asked
from .rules import Rules
from .state import COLLECT, FIELDS, Phase, State


def filter_event(event: Event, player: int | None) -> Event:
    """The event as ``player`` saw it: another player's secret fields become ``None``.

    ``player=None`` is someone at no seat (a spectator): every secret field is hidden.
    """
    return hide_secret(event, player) if event.kind in SECRET_EVENTS else event


class PlayerView(NamedTuple):
    """What ``player`` knows. Lists of cards are card ids (see :mod:`piepmatz.core.cards`).

    An immutable value (a named tuple: cheap to build, which environments stepping tens of
    thousands of times a second notice); compare views with ``==``, derive one with
    ``view._replace(...)``. ``help(PlayerView)`` says what each field holds.
    """

    player: int
    rules: Rules
    num_players: int
    phase: Phase
    current_player: int
    turn_player: int
    first_player: int
    turn: int
    end_triggered: str | None
    chase_perch: int
    chased: bool
    played_value: int
    draws_left: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    shown: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[int, ...], ...]
    column: tuple[int, ...]
    column_pests: tuple[int, ...]
    display: tuple[int, ...]
    bird_deck_size: int
    feeder_deck_size: int
    collections: tuple[tuple[int, ...], ...]
    pests: tuple[tuple[int, ...], ...]
    seeds_seen: tuple[tuple[int, ...], ...]
    blind_counts: tuple[int, ...]
    own_blind: tuple[int, ...]
    gone_birds: tuple[int, ...]
    gone_feeder: tuple[int, ...]
    removed_birds: tuple[int, ...]
    removed_feeder: tuple[int, ...]
    chosen: tuple[bool, ...]
    own_kept: tuple[int, ...]
    own_discards: tuple[int, ...]
    kept_sizes: tuple[int, ...]
    discard_sizes: tuple[int, ...]
    events: tuple[Event, ...] | None
    hand_facts: tuple[Facts | None, ...] = ()

    @property
    def is_my_turn(self) -> bool:
        return self.current_player == self.player

    def to_json(self) -> dict[str, Any]:
        """The view as a JSON-ready dict, cards in notation (see ``docs/state-format.md``)."""
        from .viewjson import view_to_json

        return view_to_json(self)


#: Each field of a view, as ``help(PlayerView)`` shows it (``docs/state-format.md`` has the
#: state's fields these follow). Cards are ids (:mod:`.cards`), seats count from 0.
_FIELDS = {
    "player": "the seat this view is of",
    "rules": "the rules in play (their flags)",
    "num_players": "2, 3 or 4",
    "phase": "the decision asked now: play, collect, crow, draw, last hand or game over",
    "current_player": "who decides now (-1 once the game is over)",
    "turn_player": "whose turn it is",
    "first_player": "the seat with the first-player card (C6)",
    "turn": "the turn's number, from 1",
    "end_triggered": "why the end was triggered (feeder, birds, skip), else None",
    "chase_perch": "in the crow phase: the perch whose chase is paused",
    "chased": "whether this turn's play chased (T2.2 applies only without)",
    "played_value": "the value of the bird played this turn (the T2.2 limit)",
    "draws_left": "in the draw phase: cards still to draw this turn",
    "hand": "this player's own hand, sorted",
    "hand_sizes": "every player's number of cards in hand",
    "shown": "every player's hand birds that all saw them draw from the display (T3.1)",
    "rows": "each perch's row: the bird at the perch first, then the ground (T1.2)",
    "column": "the seed column from position 1 (next to the feeder base) upward",
    "column_pests": "the pest beside each seed of the column, or NO_CARD",
    "display": "the three display slots (NO_CARD: empty)",
    "bird_deck_size": "birds left face down",
    "feeder_deck_size": "feeder cards left face down",
    "collections": "every player's collection",
    "pests": "the crows and squirrels each player took",
    "seeds_seen": "the seeds each player took from the column (their values are public)",
    "blind_counts": "how many seeds each player drew blind from the feeder deck",
    "own_blind": "this player's own blind seeds",
    "gone_birds": "birds that left the game face up (a crow's victims)",
    "gone_feeder": "feeder cards that left the game face up (a squirrel's seeds, pests)",
    "removed_birds": "birds set aside at setup (S2)",
    "removed_feeder": "feeder cards set aside at setup (S2)",
    "chosen": "last hand (E3): who has chosen",
    "own_kept": "last hand: this player's own two birds chosen",
    "own_discards": "last hand: this player's own discarded birds",
    "kept_sizes": "last hand: how many birds each player set aside to keep, until revealed",
    "discard_sizes": "last hand: how many birds each player discards",
    "events": "the game's log as this player saw it (None where no log is kept)",
    "hand_facts": "what all know of each hand from how its holder moved (T2.2, .hands)",
}
for _name, _said in _FIELDS.items():
    getattr(PlayerView, _name).__doc__ = _said


def view_of(state: State, player: int, log: bool = True) -> PlayerView:
    """Build ``player``'s view of ``state``; ``log=False`` leaves the event log out (``events``
    is ``None``) for a caller that sends only the entries since its last view."""
    if type(player) is not int or not 0 <= player < state.num_players:
        raise InvalidOptionsError(f"no player {player!r} in a {state.num_players}-player game")
    view = seat_view(public_view(state, log=False), state, player)
    if log and state.events is not None:
        view = view._replace(events=tuple(filter_event(e, player) for e in state.events))
    return view


def seat_view(public: PlayerView, state: State, player: int) -> PlayerView:
    """``player``'s view, from the public view of the same ``state`` (without its log): what
    only that seat sees is added. One public view serves every seat of a position."""
    return public._replace(
        player=player,
        hand=tuple(state.hands[player]),
        own_blind=tuple(state.seeds_blind[player]),
        own_kept=tuple(state.kept[player] or ()),
        own_discards=tuple(state.discards[player]),
    )


def public_view(state: State, log: bool = True) -> PlayerView:
    """What someone at no seat (a spectator) knows: a seat's view without anything of its own.

    Its ``player`` is 0 only as a placeholder; nothing in it belongs to seat 0 alone.
    """
    events = state.events if log else None
    return PlayerView(
        player=0,
        rules=state.rules,
        num_players=state.num_players,
        phase=state.phase,
        current_player=state.current_player,
        turn_player=state.turn_player,
        first_player=state.first_player,
        turn=state.turn,
        end_triggered=state.end_triggered,
        chase_perch=state.chase_perch,
        chased=state.chased,
        played_value=state.played_value,
        draws_left=state.draws_left,
        hand=(),
        hand_sizes=tuple(len(h) for h in state.hands),
        shown=tuple(tuple(x) for x in state.shown),
        rows=tuple(tuple(r) for r in state.rows),
        column=tuple(state.column),
        column_pests=tuple(state.column_pests),
        display=tuple(state.display),
        bird_deck_size=len(state.bird_deck),
        feeder_deck_size=len(state.feeder_deck),
        collections=tuple(tuple(c) for c in state.collections),
        pests=tuple(tuple(x) for x in state.pests),
        seeds_seen=tuple(tuple(x) for x in state.seeds_seen),
        blind_counts=tuple(len(x) for x in state.seeds_blind),
        own_blind=(),
        gone_birds=tuple(state.gone_birds),
        gone_feeder=tuple(state.gone_feeder),
        removed_birds=tuple(state.removed_birds),
        removed_feeder=tuple(state.removed_feeder),
        chosen=tuple(k is not None for k in state.kept),
        own_kept=(),
        own_discards=(),
        kept_sizes=tuple(len(k or ()) for k in state.kept),
        discard_sizes=tuple(len(d) for d in state.discards),
        events=None if events is None else tuple(filter_event(e, None) for e in events),
        hand_facts=tuple(state.hand_facts),
    )


def unknown_cards(view: PlayerView) -> tuple[list[int], list[int]]:
    """The birds and feeder cards whose place this player does not know, sorted."""
    p = view.player
    known_birds: set[int] = set(view.hand)
    for row in view.rows:
        known_birds.update(row)
    known_birds.update(c for c in view.display if c >= 0)
    for c in view.collections:
        known_birds.update(c)
    known_birds.update(view.gone_birds)
    known_birds.update(view.removed_birds)
    known_birds.update(view.own_kept)
    known_birds.update(view.own_discards)
    for x in view.shown:
        known_birds.update(x)
    known_feeder: set[int] = set(view.column)
    known_feeder.update(c for c in view.column_pests if c >= 0)
    for seeds in view.seeds_seen:
        known_feeder.update(seeds)
    for pests in view.pests:
        known_feeder.update(pests)
    known_feeder.update(view.own_blind)
    known_feeder.update(view.gone_feeder)
    known_feeder.update(view.removed_feeder)
    del p
    birds = [b for b in range(NUM_BIRDS) if b not in known_birds]
    feeder = [f for f in range(NUM_FEEDER) if f not in known_feeder]
    return birds, feeder


class Sampler:
    """Deals the hidden cards of one view again and again: the one determinisation of the engine.

    Building it does the work that depends on the view only (the public table, the unknown
    cards, the sizes of the hidden places, what the view shows of each hand); each
    :meth:`sample` deals a fresh world from it. The deal is uniform over the hidden places,
    except that a hand the view bounds (:mod:`.hands`: the collect phase, T2.2 moves) is drawn
    uniformly among the hands that agree with the bounds, bounded hands first.
    """

    __slots__ = ("_birds", "_bound", "_deck_size", "_feeder", "_places", "_template", "player")

    def __init__(self, view: PlayerView) -> None:
        birds, feeder = unknown_cards(view)
        p = view.player
        self.player = p
        n = view.num_players
        s = State.__new__(State)
        for field in FIELDS:
            if field.view == "public":
                setattr(s, field.name, _state_value(field.copy, getattr(view, field.name)))
        s.num_perches = len(view.rows)
        s.seeds_blind = [list(view.own_blind) if q == p else [] for q in range(n)]
        # Birds everybody saw a player draw face up are in that hand for sure (until the E3
        # choice, after which they are among the kept and discarded ones).
        s.hands = [
            list(view.hand) if q == p else [] if view.chosen[q] else list(view.shown[q])
            for q in range(n)
        ]
        s.kept = [
            (list(view.own_kept) if q == p else []) if view.chosen[q] else None for q in range(n)
        ]
        s.discards = [list(view.own_discards) if q == p else [] for q in range(n)]
        s.bird_deck = []
        s.feeder_deck = []
        if not view.hand_facts:  # a view built by hand, without them
            s.hand_facts = [None] * n
        s.asked = None
        s.rng = 0
        s.events = list(view.events) if view.events is not None else None
        self._template = s
        # Hidden bird places of the others: (seat, hidden hand birds, kept, discarded).
        places = []
        bound: dict[int, Facts] = {}
        for q in range(n):
            if q == p:
                continue
            if view.chosen[q]:
                # E3: the birds shown are among the kept and discarded ones, which is hidden.
                places.append((q, view.hand_sizes[q], view.kept_sizes[q], view.discard_sizes[q]))
                continue
            places.append((q, view.hand_sizes[q] - len(view.shown[q]), -1, 0))
            facts = s.hand_facts[q]
            if view.phase == COLLECT and q == view.current_player:
                facts = asked(facts or NO_FACTS, view.played_value)  # T2.2: being asked
            if facts is not None:
                bound[q] = facts
        hidden = sum(h + d + (k - len(view.shown[q]) if k >= 0 else 0) for q, h, k, d in places)
        if hidden + view.bird_deck_size != len(birds):
            raise ValueError(
                f"inconsistent view: {len(birds)} unknown birds for "
                f"{hidden + view.bird_deck_size} hidden places"
            )
        blind = sum(view.blind_counts[q] for q in range(n) if q != p)
        if len(feeder) - blind != view.feeder_deck_size:
            raise ValueError(
                f"inconsistent view: {len(feeder) - blind} unknown feeder cards for a deck of "
                f"{view.feeder_deck_size}"
            )
        self._birds = birds
        self._feeder = (
            [f for f in feeder if not IS_PEST[f]],
            [f for f in feeder if IS_PEST[f]],
            [(q, view.blind_counts[q]) for q in range(n) if q != p and view.blind_counts[q]],
        )
        # Bounded hands are dealt first, while every unknown bird is still to be had.
        self._places = sorted(places, key=lambda place: place[0] not in bound)
        self._bound = bound
        self._deck_size = view.bird_deck_size

    def sample(self, rng: random.Random, events: bool = False) -> State:
        """A fresh world; ``rng`` supplies all the randomness (the world's own generator too)."""
        s = self._template.copy(events)
        # Bounded hands are dealt one after another, so the birds an earlier hand took may leave
        # none that agree for a later one: then the whole deal starts again (rejection keeps the
        # deals that agree, and only those).
        for _ in range(_DEALS):
            dealt = self._deal_birds(s.hands, s.shown, rng)
            if dealt is not None:
                break
        else:
            raise ValueError(
                "inconsistent view: no deal agrees with what the players' moves showed"
            )
        pool, places = dealt
        for q, hand, kept, discards in places:
            s.hands[q] = hand
            if kept is not None:
                s.kept[q] = kept
            if discards is not None:
                s.discards[q] = discards
        s.bird_deck = pool
        seeds, pests, blind = self._feeder
        if blind:
            # Others' blind seeds and the feeder deck share the unknown feeder cards; a blind
            # seed is never a pest.
            seeds = _shuffled(seeds, rng)
            for q, count in blind:
                s.seeds_blind[q] = _take(seeds, count)
            s.feeder_deck = _shuffled(seeds + pests, rng)
        else:
            s.feeder_deck = _shuffled(seeds + pests, rng)
        s.rng = rng.getrandbits(64)
        return s

    def _deal_birds(
        self, base: list[list[int]], shown: list[list[int]], rng: random.Random
    ) -> tuple[list[int], list[tuple[int, list[int], list[int] | None, list[int] | None]]] | None:
        """The others' hidden birds (hand, kept, discards per seat) and the rest, the bird deck;
        ``None`` when a bounded hand finds no birds that agree."""
        pool = _shuffled(self._birds, rng)
        bound = self._bound
        places: list[tuple[int, list[int], list[int] | None, list[int] | None]] = []
        for q, h, k, d in self._places:
            kept: list[int] | None = None
            discards: list[int] | None = None
            if k >= 0:
                pile = pool[-(k + d - len(shown[q])) :] if k + d > len(shown[q]) else []
                del pool[len(pool) - len(pile) :]
                pile = _shuffled(shown[q] + pile, rng) if shown[q] else pile
                kept = pile[:k]
                discards = pile[k:]
                hand = _take(pool, h)
            elif q in bound:
                found = _bounded_hand(pool, h, shown[q], bound[q], rng)
                if found is None:
                    return None
                hand = found
            else:
                hand = _take(pool, h)
            if k < 0 and d:
                discards = _take(pool, d)
            places.append((q, sorted(base[q] + hand) if base[q] else sorted(hand), kept, discards))
        return pool, places


def _state_value(kind: str, value: Any) -> Any:
    """A view's field (tuples) as the state keeps it (lists), by the field's copy kind."""
    if kind == "list":
        return list(value)
    if kind == "lists":
        return [list(x) for x in value]
    return list(value) if isinstance(value, tuple) else value


def _shuffled(items: list[int], rng: random.Random) -> list[int]:
    """A uniformly shuffled copy (sorting by random keys: faster than ``rng.shuffle`` here)."""
    r = rng.random
    return [x for _, x in sorted([(r(), x) for x in items])]


def _take(pool: list[int], count: int) -> list[int]:
    """The last ``count`` cards of a shuffled pool, removed from it."""
    if count <= 0:
        return []
    cards = pool[-count:]
    del pool[-count:]
    return cards


#: Whole deals tried before a view is called inconsistent (see :meth:`Sampler.sample`).
_DEALS: Final = 100
#: Random draws tried before a bounded hand is drawn by counting the hands that agree.
_TRIES: Final = 12


def _bounded_hand(
    pool: list[int], count: int, shown: list[int], facts: Facts, rng: random.Random
) -> list[int] | None:
    """``count`` birds from the shuffled ``pool`` (removed from it) that, with the birds
    ``shown``, agree with ``facts``: uniform over the hands that do; ``None`` if none does."""
    known = [BIRD_VALUE[b] for b in shown]
    for _ in range(_TRIES):
        picks = rng.sample(range(len(pool)), count)
        if allows(facts, known + [BIRD_VALUE[pool[i]] for i in picks]):
            break
    else:
        found = _count_hands(pool, count, known, facts, rng)
        if found is None:
            return None
        picks = found
    hand = [pool[i] for i in picks]
    for i in sorted(picks, reverse=True):
        del pool[i]
    return hand


def _count_hands(
    pool: list[int], count: int, known: list[int], facts: Facts, rng: random.Random
) -> list[int] | None:
    """Indices into ``pool`` of a hand drawn uniformly among those that agree with ``facts``:
    choose how many birds of each value by the number of hands with those counts, then which."""
    by_value: list[list[int]] = [[] for _ in range(7)]
    for i, bird in enumerate(pool):
        by_value[BIRD_VALUE[bird]].append(i)
    choices: list[tuple[int, tuple[int, ...]]] = []
    for counts in _splits(count, 6):
        values = known + [v for v, c in enumerate(counts, 1) for _ in range(c)]
        if allows(facts, values):
            ways = 1
            for v, c in enumerate(counts, 1):
                ways *= math.comb(len(by_value[v]), c)
            if ways:
                choices.append((ways, counts))
    if not choices:
        return None
    chosen = rng.choices([c for _, c in choices], weights=[w for w, _ in choices])[0]
    picks: list[int] = []
    for v, c in enumerate(chosen, 1):
        picks += rng.sample(by_value[v], c)
    return picks


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` counts (zeros allowed)."""
    if parts == 1:
        return [(total,)]
    return [(c, *rest) for c in range(total + 1) for rest in _splits(total - c, parts - 1)]


def determinise(view: PlayerView, rng: random.Random, events: bool = True) -> State:
    """Sample a full state consistent with ``view``; ``rng`` supplies all the randomness.

    Unknown birds are dealt among the other players' hands (beside the birds they were seen
    drawing from the display, and agreeing with what their moves showed, T2.2), kept and
    discarded cards and the bird deck; unknown feeder cards among the other players' blind seeds
    (seeds only — a pest is never drawn blind into a seed pile) and the feeder deck. The
    generator state of the sampled game (future squirrel picks) is fresh from ``rng``. For many
    worlds of one view, build a :class:`Sampler` once.
    """
    return Sampler(view).sample(rng, events)
