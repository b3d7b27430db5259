"""The leak check of every observation: it is the player's view encoded, and nothing else.

Worlds that differ from the real one only in what the player cannot see (sampled with
``determinise``) must encode exactly as the real one does.
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt

from piepmatz.core.state import State
from piepmatz.core.view import determinise, view_of
from piepmatz.envs.encoding import encode


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
