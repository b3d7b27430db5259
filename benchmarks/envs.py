"""Research environments' speed: PettingZoo turns per second, Gymnasium steps, OpenSpiel games.

PettingZoo's figure is ``pettingzoo.test.performance_benchmark`` (random legal moves, one
observation per turn, 5 seconds of wall-clock time), run on the bare ``raw_env()`` and on the
wrapped ``env()``. On a shared machine the wall-clock figure moves with the load, so the same
loop is also timed in CPU seconds of this process (``time.process_time``): that figure is what
the code costs. ``--parts`` breaks one turn down (view, encoding, mask, engine). The OpenSpiel
part plays ``--games`` random games through the binding and in the bare engine, and times
``clone()`` at chance nodes and at decisions.

    python benchmarks/envs.py [--seconds 5] [--players 2 3 4] [--skip-official] [--parts]
                              [--games 30] [--openspiel-only]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import time
from typing import Any

import numpy as np


def turns_per_second(env: Any, seconds: float) -> tuple[float, float]:
    """PettingZoo's performance_benchmark loop, timed in wall-clock and in CPU seconds."""
    rng = random.Random(0)
    env.reset(seed=0)
    turns = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall0 < seconds:
        for agent in env.agent_iter(env.num_agents):
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
            del agent
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return turns / wall, turns / cpu


def do_nothing_env(wrapped: bool) -> Any:
    """An AEC environment that does no work (same spaces and mask as piepmatz_v0), with or
    without the classic wrapper stack: what PettingZoo's loop and wrappers cost by themselves."""
    from gymnasium import spaces
    from pettingzoo import AECEnv

    from piepmatz.envs.pettingzoo import classic_wrappers, start_episode

    class Idle(AECEnv):  # type: ignore[misc]
        metadata = {"name": "idle_v0", "render_modes": []}  # noqa: RUF012

        def __init__(self) -> None:
            self.possible_agents = ["player_0", "player_1"]
            self._space = spaces.Discrete(2921)
            self._mask = np.zeros(2921, np.int8)
            self._mask[[289, 290, 292]] = 1
            self._obs = np.zeros(1173, np.int8)

        def action_space(self, agent: str) -> Any:
            return self._space

        def observation_space(self, agent: str) -> Any:
            return None

        def reset(self, seed: int | None = None, options: Any = None) -> None:
            start_episode(self)
            self.agent_selection = "player_0"
            self.turns = 0

        def observe(self, agent: str) -> Any:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

        def step(self, action: Any) -> None:
            if self.terminations[self.agent_selection]:
                self._was_dead_step(action)
                return
            self.turns += 1
            self.agent_selection = "player_1" if self.agent_selection == "player_0" else "player_0"
            if self.turns >= 70:
                self.terminations = dict.fromkeys(self.agents, True)

    return classic_wrappers(Idle()) if wrapped else Idle()


def official(env: Any) -> float:
    """PettingZoo's own ``performance_benchmark``: its printed turns per second."""
    from pettingzoo.test import performance_benchmark

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(env)
    match = re.search(r"([0-9.]+) turns per second", out.getvalue())
    assert match, out.getvalue()
    return float(match.group(1))


def gymnasium_steps(players: int, seconds: float) -> tuple[float, float]:
    """Learner steps per second (random legal actions, random opponents), wall and CPU."""
    from piepmatz.envs.gymnasium import PiepmatzEnv

    env = PiepmatzEnv(players=players, opponents="random")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall0 < seconds:
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if terminated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - wall0), steps / (time.process_time() - cpu0)


def openspiel_against_engine(players: int, games: int) -> tuple[float, float, float]:
    """Player decisions per CPU second over ``games`` random games: through python_piepmatz
    (its chance nodes played too, their cost counted) and in the bare engine (fast path, event
    log kept as the binding keeps it). Returns (binding, engine, chance nodes per decision)."""
    import pyspiel

    import piepmatz.envs.openspiel  # noqa: F401 — registers the game
    from piepmatz.core.state import State

    game = pyspiel.load_game("python_piepmatz", {"players": players})
    rng = random.Random(0)
    decisions = chance = 0
    cpu0 = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    binding = decisions / (time.process_time() - cpu0)
    engine_decisions = 0
    cpu0 = time.process_time()
    for seed in range(games):
        s = State.new_game(players, seed=seed)
        while not s.is_over():
            ids = s.legal_action_ids()
            s.apply_id(ids[rng.randrange(len(ids))])
            engine_decisions += 1
    engine = engine_decisions / (time.process_time() - cpu0)
    return binding, engine, chance / decisions


def openspiel_floor(players: int, games: int) -> float:
    """Decisions per CPU second of a Python OpenSpiel game that does no work: it answers the
    nodes of ``games`` recorded python_piepmatz games (who moves, the outcomes, the legal
    actions, all prepared) and ignores the actions. What pyspiel's loop, its ``apply_action``
    and the calls into Python cost for the same nodes, whatever the game does."""
    import pyspiel

    import piepmatz.envs.openspiel as binding

    game = pyspiel.load_game("python_piepmatz", {"players": players})
    rng = random.Random(0)
    scripts: list[list[tuple[int, list[Any]]]] = []
    for _ in range(games):
        state = game.new_initial_state()
        script: list[tuple[int, list[Any]]] = []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                script.append((int(pyspiel.PlayerId.CHANCE), outcomes))
                state.apply_action(rng.choice(outcomes)[0])
            else:
                legal = state.legal_actions()
                script.append((state.current_player(), legal))
                state.apply_action(rng.choice(legal))
        scripts.append(script)
    chance, terminal = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)
    game_type = binding._GAME_TYPE

    class EchoState(pyspiel.State):  # type: ignore[misc]
        def __init__(self, echo: Any, script: list[tuple[int, list[Any]]]) -> None:
            super().__init__(echo)
            self.script = script
            self.at = 0

        def current_player(self) -> int:
            return self.script[self.at][0] if self.at < len(self.script) else terminal

        def is_terminal(self) -> bool:
            return self.at >= len(self.script)

        def is_chance_node(self) -> bool:
            return self.at < len(self.script) and self.script[self.at][0] == chance

        def chance_outcomes(self) -> list[Any]:
            return self.script[self.at][1]

        def legal_actions(self, player: int | None = None) -> list[Any]:
            return self.script[self.at][1]

        def _apply_action(self, action: int) -> None:
            self.at += 1

    class Echo(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: Any = None) -> None:
            super().__init__(game_type, binding.game_info(players), {})

    echo = Echo()
    states = [EchoState(echo, script) for script in scripts]
    decisions = sum(1 for script in scripts for player, _ in script if player >= 0)
    rng = random.Random(0)
    cpu0 = time.process_time()
    for state in states:
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return decisions / (time.process_time() - cpu0)


def openspiel_clones(players: int, games: int) -> tuple[float, float]:
    """Microseconds of CPU per ``clone()`` of the states of ``games`` random games, at chance
    nodes during play and at decisions (best of 5): what tree search pays per node copied."""
    import pyspiel

    import piepmatz.envs.openspiel  # noqa: F401 — registers the game

    game = pyspiel.load_game("python_piepmatz", {"players": players})
    rng = random.Random(0)
    paused: list[Any] = []
    decided: list[Any] = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                if not state.position.dealing:
                    paused.append(state.clone())
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                decided.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    figures = []
    for states in (paused, decided):
        best = float("inf")
        for _ in range(5):
            cpu0 = time.process_time()
            for state in states:
                state.clone()
            best = min(best, time.process_time() - cpu0)
        figures.append(best / len(states) * 1e6)
    return figures[0], figures[1]


def parts(players: int) -> None:
    """Microseconds per call of each part of one PettingZoo turn, on positions of real games."""
    import timeit

    from piepmatz.core.state import State
    from piepmatz.core.view import view_of
    from piepmatz.envs.encoding import Encoder, action_mask

    rng = random.Random(1)
    states = []
    for seed in range(20):
        state = State.new_game(players, seed=seed, events=False)
        while not state.is_over():
            states.append(state.copy(events=False))
            state.apply_id(rng.choice(state.legal_action_ids()))
    encoder = Encoder(players, states[0].rules)
    views = [view_of(s, s.current_player) for s in states]
    legal = [s.legal_action_ids() for s in states]

    def per_call(fn: Any) -> float:
        best = min(timeit.repeat(fn, number=1, repeat=5))
        return best / len(states) * 1e6

    def step_all() -> None:
        for s in states:
            c = s.copy(events=False)
            c.apply_id(c.legal_action_ids()[0])

    print(f"  {players} players, microseconds per turn (best of 5, {len(states)} positions):")
    views_us = per_call(lambda: [view_of(s, s.current_player) for s in states])
    print(f"    view_of          {views_us:6.1f}")
    print(f"    encode           {per_call(lambda: [encoder.encode(v) for v in views]):6.1f}")
    print(f"    action mask      {per_call(lambda: [action_mask(ids) for ids in legal]):6.1f}")
    print(f"    copy+legal+apply {per_call(step_all):6.1f}  (the engine; copy only for the test)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per configuration")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument(
        "--skip-official",
        action="store_true",
        help="do not run PettingZoo's performance_benchmark itself",
    )
    parser.add_argument("--parts", action="store_true", help="time the parts of a turn")
    parser.add_argument(
        "--games", type=int, default=30, help="games per player count for the OpenSpiel figure"
    )
    parser.add_argument("--openspiel-only", action="store_true", help="only the OpenSpiel figure")
    args = parser.parse_args()

    from piepmatz.envs import piepmatz_v0

    if args.openspiel_only:
        openspiel(args)
        return
    print("PettingZoo piepmatz_v0 — turns per second (target: 20,000)")
    print(f"{'players':>7} {'env':>9} {'official':>9} {'wall':>9} {'CPU':>9}")
    for n in args.players:
        for label, make in (("raw_env", piepmatz_v0.raw_env), ("env", piepmatz_v0.env)):
            figure = "-" if args.skip_official else f"{official(make(players=n)):9.0f}"
            wall, cpu = turns_per_second(make(players=n), args.seconds)
            print(f"{n:>7} {label:>9} {figure:>9} {wall:9.0f} {cpu:9.0f}")
    for label, wrapped in (("idle raw", False), ("idle env", True)):
        wall, cpu = turns_per_second(do_nothing_env(wrapped), args.seconds)
        print(f"{'-':>7} {label:>9} {'-':>9} {wall:9.0f} {cpu:9.0f}")
    print("(idle: a do-nothing environment — the ceiling PettingZoo's loop and wrappers allow)")
    print("\nGymnasium Piepmatz-v0 — learner steps per second (random opponents)")
    for n in args.players:
        wall, cpu = gymnasium_steps(n, args.seconds)
        print(f"{n:>7} players: {wall:8.0f} wall, {cpu:8.0f} CPU")
    openspiel(args)
    if args.parts:
        print()
        for n in args.players:
            parts(n)


def openspiel(args: argparse.Namespace) -> None:
    print(f"\nOpenSpiel python_piepmatz against the engine — {args.games} random games each,")
    print("player decisions per CPU second (target: the binding within 2x of the engine)")
    engines = {}
    for n in args.players:
        binding, engine, chance = openspiel_against_engine(n, args.games)
        engines[n] = engine
        print(
            f"{n:>7} players: binding {binding:8.0f}, engine {engine:8.0f}, "
            f"ratio {engine / binding:4.2f}x ({chance:.2f} chance nodes per decision)"
        )
    print("a Python game that does no work, for the same nodes: decisions per CPU second, and")
    print("the ratio a binding whose own work cost nothing would reach (engine + that game)")
    for n in args.players:
        floor = openspiel_floor(n, args.games)
        print(f"{n:>7} players: {floor:8.0f}, at best {1 + engines[n] / floor:4.2f}x")
    print("clone() in microseconds of CPU (best of 5 over every state of the games)")
    for n in args.players:
        at_chance, at_decision = openspiel_clones(n, min(args.games, 20))
        print(
            f"{n:>7} players: at a chance node {at_chance:6.1f}, at a decision {at_decision:6.1f}"
        )


if __name__ == "__main__":
    main()
