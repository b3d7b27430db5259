"""An environment's episode as a game record, which ``piepmatz replay`` and ``review`` read and a
tournament's tools compare: the deal's seed and every action, the environment's own seats
(bots) included, in the record format (docs/state-format.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from piepmatz.core.game import Game, GameOptions
from piepmatz.core.rules import Rules


def episode_record(players: int, rules: Rules, seed: int, actions: Sequence[int]) -> dict[str, Any]:
    """The record of the game dealt from ``seed`` and played by ``actions`` (ids, in order);
    replayed through the checked path, so a record that would not replay is never written."""
    game = Game(GameOptions(players, rules, seed))
    for action in actions:
        game.apply(action)
    return game.record()
