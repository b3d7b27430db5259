"""Leak checks shared by the tests: what a player (or someone at no seat) cannot know must not
reach them.

``assert_view_only``: an observation is the player's view encoded, and nothing else — worlds that
differ from the real one only in what the player cannot see (sampled with ``determinise``) must
encode exactly as the real one does. ``hidden_names`` and ``assert_names_none``: the cards a
viewer cannot see now, and that a document (a view, a server message) names none of them.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import numpy.typing as npt

from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES
from piepmatz.core.state import State
from piepmatz.core.view import determinise, view_of
from piepmatz.envs.encoding import encode
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.text.words import bird_words


def assert_view_only(
    observation: npt.NDArray[np.int8],
    state: State,
    player: int,
    rng: random.Random,
    worlds: int = 2,
) -> None:
    view = view_of(state, player)
    assert np.array_equal(observation, encode(view)), "the observation is not the view encoded"
    for _ in range(worlds):
        world = determinise(view, rng)
        assert np.array_equal(encode(view_of(world, player)), observation), (
            "a world that differs only in hidden cards encodes differently"
        )


def hidden_names(state: State, viewer: int | None) -> list[str]:
    """Notation of every card ``viewer`` cannot see now (``None``: someone at no seat)."""
    hidden = [BIRD_NAMES[b] for b in state.bird_deck]
    hidden += [FEEDER_NAMES[f] for f in state.feeder_deck]
    for q in range(state.num_players):
        if q != viewer:
            # Birds seen drawn face up from the display are public (T3.1).
            hidden += [BIRD_NAMES[b] for b in state.hands[q] if b not in state.shown[q]]
            if not state.is_over():  # at the end every pile is shown (the record names them)
                hidden += [FEEDER_NAMES[f] for f in state.seeds_blind[q]]
            # A shown bird stays public after the last-hand choice (E3), as "kept or discarded";
            # which of the two is what stays hidden (checked by determinisation).
            if not state.is_over():
                hidden += [BIRD_NAMES[b] for b in state.kept[q] or () if b not in state.shown[q]]
            hidden += [BIRD_NAMES[b] for b in state.discards[q] if b not in state.shown[q]]
    return hidden


#: Each bird's words as sentences write it, in every language, by its code.
_IN_WORDS: dict[str, list[str]] = {code: [] for code in BIRD_NAMES}
for _lang in LANGUAGES:
    with use_language(_lang):
        for _bird, _code in enumerate(BIRD_NAMES):
            _IN_WORDS[_code].append(bird_words(_bird))


def assert_names_none(document: Any, hidden: list[str], who: str) -> None:
    """No card of ``hidden`` is named in ``document`` (JSON-ready, or JSON text)."""
    text = document if isinstance(document, str) else json.dumps(document)
    plain = json.dumps(json.loads(text), ensure_ascii=False)
    for name in hidden:
        assert f'"{name}"' not in text, f"{who} is shown hidden {name}"
        # A bird is told in words in sentences (``text.words.bird_words``), in any language.
        for said in _IN_WORDS.get(name, ()):
            assert said not in plain, f"{who} is told hidden {name} ({said})"
