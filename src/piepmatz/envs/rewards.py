"""The end-of-game rewards of every binding, from the core's score sheet (E4–E5).

The environments' ``reward`` option picks one kind (:class:`Reward`); each binding asks
:func:`final_rewards` for the players' rewards when a game ends, so the three bindings cannot
disagree:

- ``win`` (the default): a sole winner +1, the others share -1 (:func:`win_rewards`);
- ``margin``: the player's points minus the best of the other players' points (a winner's lead,
  a loser's deficit; players level on points get 0 even when the most birds decide the win);
- ``score``: the player's own points.

>>> from piepmatz.core.scoring import score_state
>>> from piepmatz.core.state import State
>>> state = State.new_game(players=3, seed=2)
>>> while not state.is_over():
...     state.apply_id(state.legal_action_ids()[0])
>>> sheet = score_state(state)
>>> [p.total for p in sheet.players], sheet.winners
([20, 15, 52], (2,))
>>> final_rewards(sheet, "margin"), final_rewards(sheet, "score")
([-32.0, -37.0, 32.0], [20.0, 15.0, 52.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from piepmatz.core.cards import BIRD_EGGS, FEEDER_EGGS
from piepmatz.core.scoring import PAIR_POINTS, ScoreSheet


class Reward(StrEnum):
    """What a player is rewarded with at the end of a game."""

    WIN = "win"
    MARGIN = "margin"
    SCORE = "score"


#: More points than any one player can score: every seed's eggs, and for each bird the most it
#: can add (its eggs, alone or in a species pair, or its half of a mated pair's points). A bound
#: for OpenSpiel's utilities, far above what games reach.
MAX_POINTS: Final = math.ceil(
    sum(FEEDER_EGGS) + sum(max(eggs, PAIR_POINTS / 2) for eggs in BIRD_EGGS)
)


def reward_kind(value: str) -> Reward:
    """The :class:`Reward` an environment's ``reward`` option names, or ``ValueError``."""
    try:
        return Reward(value)
    except ValueError:
        kinds = ", ".join(repr(k.value) for k in Reward)
        raise ValueError(f"reward must be one of {kinds}, not {value!r}") from None


def win_rewards(winners: Sequence[int], num_players: int) -> list[float]:
    """Zero-sum rewards from the winners (E5): a sole winner gets 1, the others share -1.

    Each player's share of the win (1/k for each of k tied winners, 0 for the rest), centred and
    scaled so that two players get +1/-1 and a shared win gives the winners equal parts.

    >>> win_rewards([0], 2), win_rewards([1], 3), win_rewards([0, 1], 2)
    ([1.0, -1.0], [-0.5, 1.0, -0.5], [0.0, 0.0])
    """
    n = num_players
    share = 1.0 / len(winners)
    scale = n / (n - 1)
    return [scale * ((share if p in winners else 0.0) - 1.0 / n) for p in range(n)]


def final_rewards(sheet: ScoreSheet, reward: str = Reward.WIN) -> list[float]:
    """Every player's reward for a finished game, by seat."""
    kind = reward_kind(reward)
    totals = [p.total for p in sheet.players]
    if kind == Reward.WIN:
        return win_rewards(sheet.winners, len(totals))
    if kind == Reward.SCORE:
        return [float(t) for t in totals]
    return [float(t - max(totals[:p] + totals[p + 1 :])) for p, t in enumerate(totals)]


def reward_range(reward: str, num_players: int) -> tuple[float, float]:
    """The lowest and the highest reward a game can give (``margin`` and ``score`` bounded by
    :data:`MAX_POINTS`)."""
    kind = reward_kind(reward)
    if kind == Reward.WIN:
        return -1.0 / (num_players - 1), 1.0
    if kind == Reward.SCORE:
        return 0.0, float(MAX_POINTS)
    return -float(MAX_POINTS), float(MAX_POINTS)


def zero_sum(reward: str, num_players: int) -> bool:
    """Whether the rewards of every game add up to 0 (a margin does with two players only)."""
    kind = reward_kind(reward)
    return kind == Reward.WIN or (kind == Reward.MARGIN and num_players == 2)


def illegal_reward(reward: str, num_players: int) -> float:
    """What an illegal action earns where it ends the game: -1, as in PettingZoo's classic games,
    or the lowest reward a game can give where that is lower (a margin), so that an illegal move
    never pays better than playing on."""
    return min(-1.0, reward_range(reward, num_players)[0])


def illegal_share(reward: str, num_players: int) -> float:
    """What each other player gets where an illegal action ends the game: under ``win`` an
    equal share of the offender's loss, so that such a game is zero-sum as every other game is
    (+1 for the other of two players, 0.5 each for two others, as in the JAX environment);
    under ``margin`` and ``score`` 0, as nobody scored any points."""
    if reward_kind(reward) != Reward.WIN:
        return 0.0
    return -illegal_reward(reward, num_players) / (num_players - 1)
