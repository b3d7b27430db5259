"""Chance asked of the caller: the engine pauses at every draw and squirrel's pick
(:data:`~piepmatz.core.chance.ASKED`) and goes on when given the outcome."""

from __future__ import annotations

import random
from typing import Any

import pytest

from piepmatz.core import State, state_to_json
from piepmatz.core import rng as _rng
from piepmatz.core.chance import ASKED, Draw
from piepmatz.core.errors import IllegalActionError, InvalidStateError


class Asking(State):
    """The engine asking every outcome of its caller."""

    __slots__ = ()

    chance = ASKED


def seeded_outcome(state: State) -> int:
    """The outcome the seeded decks and generator (DECKS) give where ``state`` paused."""
    asked = state.asked
    assert asked is not None
    if asked.draw <= Draw.DISPLAY:
        return state.bird_deck[-1]
    if asked.draw == Draw.SQUIRREL:
        pile = state.seed_pile(state.turn_player)
        state.rng, i = _rng.below(state.rng, len(pile))
        return pile[i]
    return state.feeder_deck[-1]


def fields(state: State) -> list[Any]:
    return [getattr(state, name) for name in State.__slots__]


def test_a_game_given_the_seeded_outcomes_is_the_seeded_game() -> None:
    """Over hundreds of random games, 2–4 players and both presets, the engine that pauses at
    each draw and is given the card the seeded deck holds on top plays the very game of the
    engine that draws itself: the same state, event log included, at every decision. Every
    kind of pause occurs, squirrels paused before either pick among them."""
    seen: set[tuple[Draw, int]] = set()
    decisions = 0
    for seed in range(240):
        players, preset = 2 + seed % 3, ("standard", "overview")[seed // 3 % 2]
        drawn = State.new_game(players, preset, seed)
        asking = Asking.new_game(players, preset, seed)
        rng = random.Random(seed)
        while not drawn.is_over():
            ids = drawn.legal_action_ids()
            action = ids[rng.randrange(len(ids))]
            drawn.apply_id(action)
            asking.apply_id(action)
            while asking.asked is not None:
                seen.add((asking.asked.draw, len(asking.asked.taken)))
                assert asking.chance_outcomes() == sorted(asking.chance_pool())
                asking.apply_outcome(seeded_outcome(asking))
            decisions += 1
            if decisions % 7 == 0 or drawn.is_over():
                assert state_to_json(asking) == state_to_json(drawn)
    assert decisions > 15_000
    kinds = {draw for draw, _ in seen}
    assert kinds == set(Draw)
    assert (Draw.SQUIRREL, 1) in seen and (Draw.COLUMN, 1) in seen


def paused_at(draw: Draw, taken: int = 0) -> Asking:
    """A random game, paused at a draw of kind ``draw`` having taken ``taken`` cards."""
    for seed in range(500):
        state = Asking.new_game(3, "standard", seed)
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
