"""The field table of State: every field copied, every public one in the view."""

from __future__ import annotations

import json
from typing import Any

import pytest

from piepmatz.core import PlayerView, State, state_to_json, view_of
from piepmatz.core.state import FIELDS
from scenarios import played


def mutate(state: State, name: str) -> None:
    """Change the field in place where it is mutable (a list, and the lists in it); else give
    it another value. Judged by the value itself, not by the table under test."""
    value = getattr(state, name)
    if isinstance(value, list):
        for entry in value:
            if isinstance(entry, list):
                entry.append(0)
        value.append(0)
    else:
        setattr(state, name, object())


def test_slots_are_the_field_table() -> None:
    assert State.__slots__ == tuple(f.name for f in FIELDS)
    assert len(set(State.__slots__)) == len(FIELDS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mutating_every_field_of_a_copy_leaves_the_original_unchanged(players: int) -> None:
    state = played(players, seed=players, steps=70)
    state.kept = [None, [], *([None] * (players - 2))]  # a maybe_lists entry of each sort
    before = json.dumps(state_to_json(state))
    rules, facts = state.rules, state.hand_facts[:]
    for field in FIELDS:
        copy = state.copy()
        mutate(copy, field.name)
        assert json.dumps(state_to_json(state)) == before, field.name
        assert state.rules is rules and state.hand_facts == facts, field.name


def test_every_public_field_is_a_field_of_the_view() -> None:
    state = played(3, seed=5, steps=40)
    view = view_of(state, 1)
    for field in FIELDS:
        if field.view == "public":
            expected: Any = getattr(state, field.name)
            shown = getattr(view, field.name)
            if field.copy == "lists":
                shown = [list(x) for x in shown]
            elif field.copy == "list" or isinstance(shown, tuple):
                shown = list(shown)
            assert shown == expected, field.name
    assert {f.name for f in FIELDS if f.view == "public"} <= set(PlayerView._fields)


def test_copies_of_a_subclass_stay_that_class() -> None:
    class Marked(State):
        __slots__ = ()

    state = State.new_game(2, seed=1)
    marked = Marked.__new__(Marked)
    for name in State.__slots__:
        setattr(marked, name, getattr(state, name))
    assert type(marked.copy()) is Marked


def test_a_field_without_a_json_codec_fails_loudly() -> None:
    from piepmatz.core.serial import _check_codecs
    from piepmatz.core.state import Field
    from piepmatz.core.viewjson import _check_views

    _check_codecs(FIELDS)
    _check_views(FIELDS)
    with pytest.raises(TypeError, match="'nest' has no JSON codec"):
        _check_codecs((*FIELDS, Field("nest", "list", "public")))
    with pytest.raises(TypeError, match="'nest' has no view entry"):
        _check_views((*FIELDS, Field("nest", "list", "public")))
