"""Tournaments between bots, and rule-preset comparisons, on one core, all cores or a Ray cluster.

>>> from piepmatz.sim import MatchConfig, run_games, summarise
>>> config = MatchConfig(players=3, bots=("random",), games=6, seed=7)
>>> report = summarise(config, run_games(config, backend="inline"))
>>> report.games, round(sum(r.rate for r in report.positions), 6)  # one winner per game
(6, 1.0)

A game is fixed by the tournament seed and its index (:func:`play_game`); see
:mod:`piepmatz.sim.schedule` for the duplicate format and :mod:`piepmatz.sim.tournament` for the
statistical conventions. Heavy dependencies (OpenSkill, matplotlib, Ray, tqdm) are imported only
where they are used.
"""

from .backends import BACKENDS, BackendError, run_games
from .play import BotFailure, GameResult, MatchConfig, play_batch, play_game
from .tournament import TournamentReport, summarise

__all__ = [
    "BACKENDS",
    "BackendError",
    "BotFailure",
    "GameResult",
    "MatchConfig",
    "TournamentReport",
    "play_batch",
    "play_game",
    "run_games",
    "summarise",
]
