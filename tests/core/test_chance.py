"""Chance asked of the caller: the engine pauses at every choice and card of the deal, every
draw and every squirrel's pick (:data:`~piepmatz.core.chance.ASKED`) and goes on when given the
outcome."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from piepmatz.core import State, state_to_json
from piepmatz.core.cards import IS_PEST, SPECIES
from piepmatz.core.chance import ASKED, DEAL_DRAWS, POOLS, Chance, Draw, Pool
from piepmatz.core.errors import IllegalActionError, InvalidStateError


class Asking(State):
    """The engine asking every outcome of its caller."""

    __slots__ = ()

    chance = ASKED


class Noting(Chance):
    """The seeded deal and draws (as :data:`~piepmatz.core.chance.DECKS`), each outcome noted."""

    __slots__ = ("outcomes",)

    def __init__(self) -> None:
        self.outcomes: list[int] = []

    def _note(self, outcome: int) -> int:
        self.outcomes.append(outcome)
        return outcome

    def species(self, state: State) -> int:
        return self._note(super().species(state))

    def first_player(self, state: State) -> int:
        return self._note(super().first_player(state))

    def bird(self, state: State) -> int:
        return self._note(super().bird(state))

    def feeder(self, state: State) -> int:
        return self._note(super().feeder(state))

    def squirrel(self, state: State, player: int, pile: list[int]) -> int:
        return self._note(super().squirrel(state, player, pile))


def noted_game(*options: Any) -> tuple[State, list[int]]:
    """``State.new_game(*options)``, and the outcomes its chance gives, noted as they come."""
    noting = Noting()
    noted = type("Noted", (State,), {"__slots__": (), "chance": noting})
    state: State = noted.new_game(*options)
    return state, noting.outcomes


def comparable(state: State) -> dict[str, Any]:
    """A state's document but for what only the seeded chance holds: the decks' order and the
    generator (an asking engine's decks hold the unseen cards in no order)."""
    doc = state_to_json(state)
    doc.pop("rng")
    doc["bird_deck"].sort()
    doc["feeder_deck"].sort()
    return doc


def fields(state: State) -> list[Any]:
    return [getattr(state, name) for name in State.__slots__]


def test_the_seeded_deal_is_the_deal_of_before_it_asked_chance() -> None:
    """S2–S5 through the chance interface deal as the engine dealt before (records and
    golden games replay): a digest of the seeded deals for 300 options, taken then."""
    digest = hashlib.sha256()
    for seed in range(100):
        for players in (2, 3, 4):
            first = None if seed % 3 else seed % players
            species = SPECIES[seed % 6] if players == 2 and seed % 4 == 0 else None
            doc = state_to_json(State.new_game(players, "standard", seed, first, species))
            digest.update(json.dumps(doc, sort_keys=True).encode())
    assert digest.hexdigest() == (
        "8616a559d2bc52e20999c9d2f68edfc86d5dd69ce7a57f454fe34036d0a64019"
    )


def give(state: State, outcomes: Iterator[int], seen: set[tuple[Draw, int]]) -> None:
    """Give a paused ``state`` the next outcomes until it waits for a player; note the pauses."""
    while state.asked is not None:
        seen.add((state.asked.draw, len(state.asked.taken)))
        assert state.chance_outcomes() == sorted(state.chance_pool())
        state.apply_outcome(next(outcomes))


def test_a_game_given_the_seeded_outcomes_is_the_seeded_game() -> None:
    """Over hundreds of random games, 2–4 players and both presets, the engine that pauses at
    each choice of the deal, each draw and each pick, and is given the outcome the seeded engine
    had, plays the very game of the engine that draws itself: the same state, event log
    included, after the deal and at every decision. Every kind of pause occurs, squirrels
    paused before either pick and columns after a pest among them."""
    seen: set[tuple[Draw, int]] = set()
    decisions = 0
    for seed in range(240):
        players, preset = 2 + seed % 3, ("standard", "overview")[seed // 3 % 2]
        drawn, outcomes = noted_game(players, preset, seed)
        given = iter(outcomes)
        asking = Asking.new_game(players, preset, seed)
        rng = random.Random(seed)
        give(asking, given, seen)
        assert comparable(asking) == comparable(drawn)
        while not drawn.is_over():
            ids = drawn.legal_action_ids()
            action = ids[rng.randrange(len(ids))]
            drawn.apply_id(action)
            asking.apply_id(action)
            give(asking, given, seen)
            decisions += 1
            if decisions % 7 == 0 or drawn.is_over():
                assert comparable(asking) == comparable(drawn)
        assert next(given, None) is None
    assert decisions > 15_000
    kinds = {draw for draw, _ in seen}
    assert kinds == set(Draw)
    assert (Draw.SQUIRREL, 1) in seen and (Draw.COLUMN, 1) in seen
    assert (Draw.DEAL_COLUMN, 1) in seen


def test_S2_S5_the_deal_asks_every_choice_and_card_in_order() -> None:
    """The deal pauses for the species (two players), the first player, each feeder card
    turned up for the column (a pest is set aside, S3), each perch bird, each hand's cards
    and each display bird; every outcome still possible is equally likely."""
    for seed in range(40):
        players = 2 + seed % 3
        state = Asking.new_game(players, "standard", seed)
        rng = random.Random(seed)
        pauses: list[tuple[Draw, int]] = []
        turned_up: list[int] = []
        while state.asked is not None:
            asked = state.asked
            assert asked.draw in DEAL_DRAWS and state.turn == 0
            pauses.append((asked.draw, asked.slot))
            pool = state.chance_pool()
            if POOLS[asked.draw] in (Pool.BIRD_DECK, Pool.FEEDER_DECK):
                assert pool == sorted(pool)  # the unseen cards, in no order
            outcome = rng.choice(state.chance_outcomes())
            if asked.draw == Draw.DEAL_COLUMN:
                turned_up.append(outcome)
                assert list(asked.taken) == [c for c in turned_up[:-1] if IS_PEST[c]]
            state.apply_outcome(outcome)
        perches = 3 if players == 4 else 2
        column = [(Draw.DEAL_COLUMN, -1)] * len(turned_up)
        expected = [(Draw.SPECIES, -1)] if players == 2 else []
        expected += [(Draw.FIRST_PLAYER, -1), *column]
        expected += [(Draw.DEAL_PERCH, k) for k in range(perches)]
        expected += [(Draw.DEAL_HAND, p) for p in range(players) for _ in range(4)]
        expected += [(Draw.DEAL_DISPLAY, k) for k in range(3)]
        assert pauses == expected
        assert state.column == [c for c in turned_up if not IS_PEST[c]]
        # S3: the pests turned up went back into the deck.
        assert set(turned_up) - set(state.column) <= set(state.feeder_deck)
        assert state.feeder_deck == sorted(state.feeder_deck)
        assert state.turn == 1 and state.current_player == state.first_player
        state.card_places()


def test_S2_S5_what_the_options_name_is_not_asked() -> None:
    state = Asking.new_game(2, "standard", 0, 1, "GR")
    assert state.asked is not None and state.asked.draw == Draw.DEAL_COLUMN
    assert state.first_player == 1
    assert state.removed_birds == list(range(36, 48))


def paused_at(draw: Draw, taken: int = 0) -> Asking:
    """A random game, paused at a draw of kind ``draw`` having taken ``taken`` cards."""
    for seed in range(500):
        state = Asking.new_game(2 + seed % 2, "standard", seed)
        rng = random.Random(seed)
        while not state.is_over():
            if state.asked is not None:
                if state.asked.draw == draw and len(state.asked.taken) == taken:
                    return state
                outcomes = state.chance_outcomes()
                state.apply_outcome(outcomes[rng.randrange(len(outcomes))])
            else:
                ids = state.legal_action_ids()
                state.apply_id(ids[rng.randrange(len(ids))])
    raise AssertionError(f"no pause at {draw!r}")


@pytest.mark.parametrize("draw", list(Draw))
def test_an_outcome_chance_cannot_give_is_refused_and_changes_nothing(draw: Draw) -> None:
    state = paused_at(draw)
    before = repr(fields(state))
    possible = set(state.chance_outcomes())
    impossible = [*[c for c in range(-1, 72) if c not in possible][:5], "BL5m", None]
    for card in impossible:
        with pytest.raises(IllegalActionError, match="no outcome of this"):
            state.apply_outcome(card)  # type: ignore[arg-type]
        assert repr(fields(state)) == before
    state.apply_outcome(min(possible))
    assert state.asked is None or repr(fields(state)) != before


def test_a_paused_state_takes_no_action_and_has_no_document() -> None:
    state = paused_at(Draw.COLUMN)
    before = repr(fields(state))
    with pytest.raises(IllegalActionError, match="waits for chance first"):
        state.apply("draw deck")
    with pytest.raises(InvalidStateError, match="waiting for chance"):
        state_to_json(state)
    assert repr(fields(state)) == before


def test_a_state_waiting_for_a_player_takes_no_outcome() -> None:
    state = Asking.new_game(2, "standard", 1)
    while state.asked is not None:
        state.apply_outcome(state.chance_outcomes()[0])
    assert state.asked is None and state.chance_outcomes() == []
    with pytest.raises(IllegalActionError, match="no chance outcome is due"):
        state.apply_outcome(state.bird_deck[0])


def test_a_squirrel_paused_between_its_picks_takes_the_second_from_what_is_left() -> None:
    """T2.1d through pauses: the first pick has left the pile when chance is asked for the
    second, and both leave the game together, in one event."""
    state = paused_at(Draw.SQUIRREL, taken=1)
    assert state.asked is not None
    first = state.asked.taken[0]
    p = state.turn_player
    pile = state.seed_pile(p)
    assert state.chance_outcomes() == sorted(pile)
    events = state.events
    assert events is not None
    count = len(events)
    state.apply_outcome(pile[0])
    squirrel = next(e for e in events[count:] if e.kind == "squirrel")
    # pile[0] is a seen seed if the pile holds one (seen seeds come first): it leaves itself.
    assert squirrel.seeds == tuple(sorted((first, pile[0])))
    assert set(squirrel.seeds) <= set(state.gone_feeder)
    assert pile[0] not in state.seed_pile(p)
