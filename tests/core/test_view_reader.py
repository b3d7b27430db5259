"""A seat's view read back from its document (what a client of the game server draws from)."""

from __future__ import annotations

import random

import pytest

from piepmatz.core import InvalidStateError, State, view_of
from piepmatz.core.view import public_view
from piepmatz.core.viewjson import (
    events_from_json,
    view_from_json,
    view_to_json,
    views_to_json,
)

#: What the document leaves out, and the view read back has empty (``view_from_json``).
LEFT_OUT = ("chased", "own_discards", "kept_sizes", "discard_sizes", "hand_facts")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_reads_its_view_back_at_every_move(players: int) -> None:
    rng = random.Random(players)
    state = State.new_game(players=players, seed=players * 11)
    while True:
        for p in range(players):
            view = view_of(state, p)
            doc = view_to_json(view)
            log = events_from_json(doc["events"])
            back = view_from_json(doc, log)
            assert view_to_json(back) == doc
            assert back._replace(**{f: getattr(view, f) for f in LEFT_OUT}) == view
        if state.is_over():
            break
        state.apply_id(rng.choice(state.legal_action_ids()))


def test_a_spectators_view_reads_back_as_nobodys() -> None:
    """The server's spectator document (``player`` null, no hand, no seeds of its own) reads
    back as the public view with no seat: nothing in it is drawn as a seat's own."""
    rng = random.Random(5)
    state = State.new_game(players=3, seed=5)
    for _ in range(20):
        state.apply_id(rng.choice(state.legal_action_ids()))
    doc = views_to_json(state, [None])[None] | {"events": []}
    back = view_from_json(doc)
    public = public_view(state, log=False)
    assert back.player == -1 and back.hand == () and back.own_blind == ()
    assert back.hand_sizes == public.hand_sizes and back.rows == public.rows
    assert back.seeds_seen == public.seeds_seen and back.blind_counts == public.blind_counts


def test_two_players_read_back_the_species_and_the_cards_set_aside() -> None:
    view = view_of(State.new_game(players=2, seed=3), 0)
    back = view_from_json(view_to_json(view))
    assert back.removed_birds == view.removed_birds and len(back.removed_birds) == 12
    assert back.removed_feeder == view.removed_feeder


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "piepmatz-state"}, "format: must be 'piepmatz-view'"),
        ({"player": 3}, "player: must be an integer 0-2"),
        ({"hand": ["XX9z"]}, "hand[0]"),
        ({"hand_sizes": [4, 4]}, "hand_sizes: must be a list of 3 counts"),
        ({"chosen": [0, 0, 0]}, "chosen: must be a list of 3 true or false"),
        ({"removed_species": ["ZZ"]}, "removed_species: must be a list of species codes"),
    ],
)
def test_a_broken_view_is_refused_naming_the_field(change: dict[str, object], message: str) -> None:
    doc = view_to_json(view_of(State.new_game(players=3, seed=1), 0)) | change
    with pytest.raises(InvalidStateError, match=message.replace("[", r"\[")):
        view_from_json(doc)


def test_a_broken_log_entry_is_refused() -> None:
    with pytest.raises(InvalidStateError, match="events: not an event"):
        events_from_json([{"kind": "turn", "player": 0, "turn": 1}, {"kind": "nonsense"}])


def test_help_says_what_each_field_of_a_view_holds() -> None:
    """A bot's author reads the view with ``help()``: no field is a bare 'Alias for field'."""
    from piepmatz.core.view import PlayerView

    for name in PlayerView._fields:
        said = getattr(PlayerView, name).__doc__
        assert said and not said.startswith("Alias for field"), name
