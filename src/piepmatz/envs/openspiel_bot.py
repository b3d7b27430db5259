"""Piepmatz bots as OpenSpiel bots, for ``python_piepmatz`` (registered on import).

:class:`PiepmatzBot` wraps any Piepmatz bot — a spec for :func:`piepmatz.bots.make_bot` or a
bot object — as a ``pyspiel.Bot``: at every decision it gives the bot the acting player's view
(:meth:`~piepmatz.envs.openspiel.PiepmatzState.view`), never the state, so it plays beside
OpenSpiel's own bots, in ``evaluate_bots`` too.

>>> import numpy as np
>>> import pyspiel
>>> from open_spiel.python.algorithms import evaluate_bots
>>> game = pyspiel.load_game("python_piepmatz", {"players": 2})
>>> bots = [PiepmatzBot("heuristic"), PiepmatzBot("random", seed=1)]
>>> returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(2))
>>> sorted(returns)
[-1.0, 1.0]
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from piepmatz.bots import Bot
from piepmatz.bots.base import BotMoveError, decide

from .openspiel import GAME_NAME, PiepmatzState
from .opponents import as_bot


class PiepmatzBot(pyspiel.Bot):  # type: ignore[misc]
    """``PiepmatzBot(bot, seed=None)``: ``bot`` is a bot spec (``"hard"``, ``"ismcts:time=0.5"``,
    ``"ppo:run/final.npz"``) or an object with ``name`` and ``choose(view, legal, rng)``.

    It decides for whichever player is to move, from that player's view, with its own generator
    (seeded by ``seed``). It keeps nothing between moves, so ``restart_at`` and
    ``inform_action`` do nothing, and it has no policy to give (``provides_policy`` is false).
    """

    def __init__(self, bot: str | Bot, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.bot: Bot = as_bot(bot)
        self.rng = random.Random(seed)

    def step(self, state: Any) -> int:
        if not isinstance(state, PiepmatzState):
            raise ValueError(f"a PiepmatzBot plays {GAME_NAME} only, not {state.get_game()}")
        player = state.current_player()
        if player < 0:
            raise ValueError(f"no player is to move: {state.current_player()} is not a seat")
        try:
            return decide(self.bot, state.view(player), state.legal_actions(), self.rng)
        except BotMoveError as exc:
            raise RuntimeError(f"the bot {self.bot.name!r} in seat {player} {exc}") from exc

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def __repr__(self) -> str:
        return f"PiepmatzBot({self.bot.name!r})"
