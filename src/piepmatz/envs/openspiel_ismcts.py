"""OpenSpiel's own ISMCTS as a Piepmatz bot, ``openspiel``: a plugin module.

``--plugin piepmatz.envs.openspiel_ismcts`` (or importing this module) registers the bot
``openspiel:time=SECONDS`` or ``openspiel:sims=N``: OpenSpiel's ``ISMCTSBot`` (random-rollout
evaluator, UCT with c = 2, the final move by visit count) searching through the
``python_piepmatz`` binding, for a fixed number of simulations or until a deadline
(:class:`TimedISMCTSBot`). It plays wherever Piepmatz bots play: tournaments,
``piepmatz baselines``, the terminal game.

Like every Piepmatz bot it decides from the acting player's view. The search starts from one
world consistent with that view (:func:`~piepmatz.core.view.determinise`), and OpenSpiel's bot
resamples the unseen cards from the player's information state at every simulation
(``resample_from_infostate``), so the world it starts from tells it nothing the view does not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from piepmatz.bots import register
from piepmatz.core.rules import Rules
from piepmatz.core.view import PlayerView

from .openspiel import PiepmatzGame, sampled_state

#: The exploration constant of OpenSpiel's ISMCTS examples.
UCT_C = 2.0


def seeded_worlds(bot: Any, seed: int) -> None:
    """Draw ``bot``'s worlds from a generator of its own. OpenSpiel's ISMCTSBot otherwise
    makes a new, unseeded sampler at every simulation, so no game could be replayed."""
    draw = np.random.RandomState(seed).uniform
    bot._resampler_cb = lambda state, player: state.resample_from_infostate(player, draw)


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot searching until a deadline instead of for a number of
    simulations (``run_search`` with the count replaced by the clock); ``simulations`` records
    each search's count."""

    def __init__(self, game: Any, time_limit: float, seed: int) -> None:
        evaluator = mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=np.random.RandomState(seed)
        )
        super().__init__(
            game,
            evaluator,
            uct_c=UCT_C,
            max_simulations=1,
            random_state=np.random.RandomState(seed + 1),
        )
        self.time_limit = time_limit
        self.simulations: list[int] = []
        seeded_worlds(self, seed + 2)

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = time.perf_counter() + self.time_limit
        count = 0
        while True:
            self.run_simulation(self.sample_root_state(state))
            count += 1
            if time.perf_counter() >= deadline:
                break
        self.simulations.append(count)
        policy: list[tuple[int, float]] = self.get_final_policy(state, self._root_node)
        return policy


def preset_of(rules: Rules) -> str:
    """The binding's ``preset`` parameter for ``rules``: a preset, or flags over ``standard``."""
    if rules.name != "custom":
        return rules.name
    flags = ",".join(
        f"{name}={str(value).lower() if isinstance(value, bool) else value}"
        for name, value in rules.to_json().items()
    )
    return f"standard:{flags}"


class OpenSpielISMCTS:
    """``openspiel:sims=N`` or ``openspiel:time=SECONDS``: OpenSpiel's ISMCTSBot."""

    def __init__(self, name: str, simulations: int | None, time_limit: float | None) -> None:
        self.name = name
        self.simulations = simulations
        self.time_limit = time_limit
        self._games: dict[tuple[int, Rules], PiepmatzGame] = {}

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) == 1:
            return legal[0]
        key = (view.num_players, view.rules)
        game = self._games.get(key)
        if game is None:
            params = {"players": view.num_players, "preset": preset_of(view.rules)}
            game = self._games[key] = pyspiel.load_game("python_piepmatz", params)
        seed = rng.randrange(2**31 - 1)
        bot: ismcts.ISMCTSBot
        if self.time_limit is not None:
            bot = TimedISMCTSBot(game, self.time_limit, seed)
        else:
            bot = ismcts.ISMCTSBot(
                game,
                mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                uct_c=UCT_C,
                max_simulations=self.simulations,
                random_state=np.random.RandomState(seed + 1),
            )
            seeded_worlds(bot, seed + 2)
        # The search's root: one world the view allows; ISMCTS resamples from it.
        return int(bot.step(sampled_state(game, view, rng)))


def build(arg: str) -> OpenSpielISMCTS:
    spec = f"openspiel:{arg}" if arg else "openspiel"
    key, _, value = arg.partition("=")
    try:
        if key == "time" and float(value) > 0:
            return OpenSpielISMCTS(spec, None, float(value))
        if key == "sims" and int(value) > 0:
            return OpenSpielISMCTS(spec, int(value), None)
    except ValueError:
        pass
    raise ValueError(
        f"bad bot spec {spec!r}: give openspiel:time=SECONDS or openspiel:sims=N "
        "(a positive number)"
    )


register("openspiel", build)
