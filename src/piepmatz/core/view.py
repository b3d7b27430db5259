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

import random
from typing import Any, NamedTuple

from .actions import Action
from .cards import NUM_BIRDS, NUM_FEEDER
from .rules import Rules
from .state import SECRET_EVENTS, Event, State


def filter_event(event: Event, player: int | None) -> Event:
    """The event as ``player`` saw it: another player's secret fields become ``None``.

    ``player=None`` is someone at no seat (a spectator): every secret field is hidden.
    """
    if event[0] in SECRET_EVENTS and event[1] != player:
        return (event[0], event[1], *([None] * (len(event) - 2)))
    return event


class PlayerView(NamedTuple):
    """What ``player`` knows. Lists of cards are card ids (see :mod:`piepmatz.core.cards`).

    An immutable value (a named tuple: cheap to build, which environments stepping tens of
    thousands of times a second notice); compare views with ``==``, derive one with
    ``view._replace(...)``.
    """

    player: int
    rules: Rules
    num_players: int
    phase: int
    current_player: int
    turn_player: int
    first_player: int
    turn: int
    end_triggered: str | None
    chase_perch: int
    chased: bool
    played_value: int
    draws_left: int
    #: Own hand (sorted) and every player's hand size.
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    #: Every player's hand birds that everybody saw them draw from the display (T3.1).
    shown: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[int, ...], ...]
    column: tuple[int, ...]
    column_pests: tuple[int, ...]
    display: tuple[int, ...]
    bird_deck_size: int
    feeder_deck_size: int
    collections: tuple[tuple[int, ...], ...]
    pests: tuple[tuple[int, ...], ...]
    #: Seeds each player took from the column (public) and how many they drew blind.
    seeds_seen: tuple[tuple[int, ...], ...]
    blind_counts: tuple[int, ...]
    #: This player's own blind seeds.
    own_blind: tuple[int, ...]
    gone_birds: tuple[int, ...]
    gone_feeder: tuple[int, ...]
    removed_birds: tuple[int, ...]
    removed_feeder: tuple[int, ...]
    #: E3: who has chosen, this player's own kept cards and discards, others' discard counts.
    chosen: tuple[bool, ...]
    own_kept: tuple[int, ...]
    own_discards: tuple[int, ...]
    kept_sizes: tuple[int, ...]
    discard_sizes: tuple[int, ...]
    #: The event log as this player saw it (``None`` when the state keeps no log).
    events: tuple[Event, ...] | None

    @property
    def is_my_turn(self) -> bool:
        return self.current_player == self.player

    def seed_count(self, player: int) -> int:
        return len(self.seeds_seen[player]) + self.blind_counts[player]

    def to_json(self) -> dict[str, Any]:
        """The view as a JSON-ready dict, cards in notation (see ``docs/state-format.md``)."""
        from .serial import view_to_json

        return view_to_json(self)


def view_of(state: State, player: int) -> PlayerView:
    """Build ``player``'s view of ``state``."""
    if type(player) is not int or not 0 <= player < state.num_players:
        raise ValueError(f"no player {player!r} in a {state.num_players}-player game")
    n = state.num_players
    events = state.events
    return PlayerView(
        player=player,
        rules=state.rules,
        num_players=n,
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
        hand=tuple(state.hands[player]),
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
        own_blind=tuple(state.seeds_blind[player]),
        gone_birds=tuple(state.gone_birds),
        gone_feeder=tuple(state.gone_feeder),
        removed_birds=tuple(state.removed_birds),
        removed_feeder=tuple(state.removed_feeder),
        chosen=tuple(k is not None for k in state.kept),
        own_kept=tuple(state.kept[player] or ()),
        own_discards=tuple(state.discards[player]),
        kept_sizes=tuple(len(k or ()) for k in state.kept),
        discard_sizes=tuple(len(d) for d in state.discards),
        events=None if events is None else tuple(filter_event(e, player) for e in events),
    )


def public_view(state: State) -> PlayerView:
    """What someone at no seat (a spectator) knows: a seat's view without anything of its own.

    Its ``player`` is 0 only as a placeholder; nothing in it belongs to seat 0 alone.
    """
    events = state.events
    return view_of(state, 0)._replace(
        hand=(),
        own_blind=(),
        own_kept=(),
        own_discards=(),
        events=None if events is None else tuple(filter_event(e, None) for e in events),
    )


def legal_actions(view: PlayerView) -> list[Action]:
    """The viewer's legal actions (empty when it is not their turn); computed from the view."""
    if not view.is_my_turn:
        return []
    return determinise(view, random.Random(0), events=False).legal_actions()


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


def determinise(view: PlayerView, rng: random.Random, events: bool = True) -> State:
    """Sample a full state consistent with ``view``; ``rng`` supplies all the randomness.

    Unknown birds are dealt uniformly among the other players' hands (beside the birds they were
    seen drawing from the display), kept and discarded cards and the bird deck; unknown feeder
    cards among the other players' blind seeds (seeds only — a pest is never drawn blind into a
    seed pile) and the feeder deck. The generator state of the sampled game (future squirrel
    picks) is fresh from ``rng``.
    """
    birds, feeder = unknown_cards(view)
    rng.shuffle(birds)
    p = view.player
    n = view.num_players
    s = State.__new__(State)
    s.rules = view.rules
    s.num_players = n
    s.num_perches = len(view.rows)
    s.rows = [list(r) for r in view.rows]
    s.column = list(view.column)
    s.column_pests = list(view.column_pests)
    s.display = list(view.display)
    s.collections = [list(c) for c in view.collections]
    s.pests = [list(x) for x in view.pests]
    s.seeds_seen = [list(x) for x in view.seeds_seen]
    s.gone_birds = list(view.gone_birds)
    s.gone_feeder = list(view.gone_feeder)
    s.removed_birds = list(view.removed_birds)
    s.removed_feeder = list(view.removed_feeder)
    # Birds: deal the hidden places in a fixed order from the shuffled pool.
    pos = 0

    def deal(count: int) -> list[int]:
        nonlocal pos
        cards = birds[pos : pos + count]
        pos += count
        return cards

    s.hands = []
    s.kept = []
    s.discards = []
    for q in range(n):
        if q == p:
            s.hands.append(list(view.hand))
            s.kept.append(list(view.own_kept) if view.chosen[q] else None)
            s.discards.append(list(view.own_discards))
        elif view.chosen[q]:
            # E3: birds everybody saw this player draw face up are kept or discarded, which not.
            shown = list(view.shown[q])
            k = view.kept_sizes[q]
            pile = shown + deal(k + view.discard_sizes[q] - len(shown))
            if shown:
                rng.shuffle(pile)
            s.hands.append(sorted(deal(view.hand_sizes[q])))
            s.kept.append(pile[:k])
            s.discards.append(pile[k:])
        else:
            # Birds everybody saw this player draw face up are in their hand for sure.
            shown = list(view.shown[q])
            s.hands.append(sorted(shown + deal(view.hand_sizes[q] - len(shown))))
            s.kept.append(None)
            s.discards.append(deal(view.discard_sizes[q]))
    s.bird_deck = deal(view.bird_deck_size)
    if pos != len(birds):
        raise ValueError(f"inconsistent view: {len(birds)} unknown birds for {pos} hidden places")
    # Feeder: other players' blind seeds come from the unknown seeds; the rest is the deck.
    seeds = [f for f in feeder if f < 30]
    rng.shuffle(seeds)
    s.seeds_blind = []
    taken: set[int] = set()
    for q in range(n):
        if q == p:
            s.seeds_blind.append(list(view.own_blind))
        else:
            blind = seeds[: view.blind_counts[q]]
            seeds = seeds[view.blind_counts[q] :]
            taken.update(blind)
            s.seeds_blind.append(blind)
    deck = [f for f in feeder if f not in taken]
    rng.shuffle(deck)
    if len(deck) != view.feeder_deck_size:
        raise ValueError(
            f"inconsistent view: {len(deck)} unknown feeder cards for a deck of "
            f"{view.feeder_deck_size}"
        )
    s.feeder_deck = deck
    s.phase = view.phase
    s.current_player = view.current_player
    s.turn_player = view.turn_player
    s.first_player = view.first_player
    s.turn = view.turn
    s.end_triggered = view.end_triggered
    s.chase_perch = view.chase_perch
    s.chased = view.chased
    s.played_value = view.played_value
    s.draws_left = view.draws_left
    s.shown = [list(x) for x in view.shown]
    s.rng = rng.getrandbits(64)
    s.events = list(view.events) if events and view.events is not None else None
    return s
