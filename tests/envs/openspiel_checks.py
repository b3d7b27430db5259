"""OpenSpiel's own checks of ``python_piepmatz``, run in a child process by test_openspiel.py.

A failing OpenSpiel check (``SPIEL_CHECK_*``) aborts the interpreter, so the tests start this
script in a subprocess and read its exit status:

    python tests/envs/openspiel_checks.py random-sim PLAYERS PRESET SIMS [REWARD]
    python tests/envs/openspiel_checks.py api
    python tests/envs/openspiel_checks.py playthrough   # rewrites the checked-in playthrough

Exit status 0 and a last line starting with ``passed`` mean every check passed.
"""

from __future__ import annotations

import sys
import unittest


def random_sim(players: int, preset: str, sims: int, reward: str = "win") -> None:
    import pyspiel

    import piepmatz.envs.openspiel  # noqa: F401 — registers python_piepmatz

    params = {"players": players, "preset": preset, "reward": reward}
    game = pyspiel.load_game("python_piepmatz", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    print(f"passed random_sim_test {game} x{sims}")


def api() -> None:
    """OpenSpiel's integration_tests/api_test.py, as OpenSpiel runs it and on whole games."""
    import pyspiel
    from open_spiel.integration_tests import api_test

    import piepmatz.envs.openspiel  # noqa: F401 — registers python_piepmatz

    # 1. Exactly as OpenSpiel runs it for every registered game (default parameters).
    api_test.FLAGS(["api_test", "--test_only_games=python_piepmatz$"])
    suites = [api_test.load_tests(unittest.TestLoader(), None, None)]
    # 2. The same checks for every player count and preset. OpenSpiel samples its 400 states
    #    near the root, all inside our deal; the second class samples states along whole
    #    random games instead, so the checks also see play, chance during play and the end.
    loader = unittest.TestLoader()
    whole_games = _whole_games_base()
    for players in (2, 3, 4):
        for preset in ("standard", "overview"):
            game = pyspiel.load_game("python_piepmatz", {"players": players, "preset": preset})
            for base, label in (
                (api_test.EnforceAPIOnPartialTreeBase, "root"),
                (whole_games, "games"),
            ):
                case = type(f"Piepmatz{players}{preset}{label}", (base,), {})
                case.game_name = "python_piepmatz"
                case.game = game
                suites.append(loader.loadTestsFromTestCase(case))
    suite = unittest.TestSuite(suites)
    count = suite.countTestCases()
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    if not result.wasSuccessful() or count != 65:  # 5 checks x (1 + 12 classes)
        sys.exit(1)
    print(f"passed api_test ({count} checks)")


PLAYTHROUGH_GAME = "python_piepmatz(players=2,preset=standard)"
PLAYTHROUGH_SEED = 7


def write_playthrough(path: str) -> None:
    """Generate the playthrough that test_openspiel.py replays (after a deliberate change)."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    import piepmatz.envs.openspiel  # noqa: F401 — registers python_piepmatz

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    text = generate_playthrough.playthrough(PLAYTHROUGH_GAME, None, seed=PLAYTHROUGH_SEED)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"passed: wrote {path}")


def _whole_games_base() -> type:
    import random

    from open_spiel.integration_tests import api_test

    class WholeGames(api_test.EnforceAPIOnPartialTreeBase):
        @classmethod
        def setUpClass(cls) -> None:
            rng = random.Random(5)
            states = []
            for _ in range(3):
                state = cls.game.new_initial_state()
                while not state.is_terminal():
                    states.append(state.clone())
                    if state.is_chance_node():
                        outcomes = [o for o, _ in state.chance_outcomes()]
                        state.apply_action(rng.choice(outcomes))
                    else:
                        state.apply_action(rng.choice(state.legal_actions()))
                states.append(state)
            # Every terminal state and an even spread of the rest, 400 as OpenSpiel takes.
            step = max(1, len(states) // 400)
            cls.some_states = states[::step] + [s for s in states if s.is_terminal()]
            cls.game_type = cls.game.get_type()

    return WholeGames


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "random-sim":
        random_sim(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
    elif command == "api":
        import piepmatz.envs.openspiel  # noqa: F401 — registered before api_test lists games

        api()
    elif command == "playthrough":
        from pathlib import Path

        write_playthrough(str(Path(__file__).with_name("playthroughs") / "python_piepmatz.txt"))
    else:
        sys.exit(f"unknown command {command!r}: random-sim, api or playthrough")
