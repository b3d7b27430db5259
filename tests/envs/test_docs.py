"""Every Python example in docs/research.md runs, and the documented layout is the code's."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import piepmatz.bots
from piepmatz.envs.encoding import describe_fields

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)


@pytest.fixture(scope="module", autouse=True)
def jax_compilation_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The JAX example compiles the game's step, which takes seconds: the two tests that run it
    share one compilation through JAX's cache on disk (shared by the run's workers too)."""
    import jax

    cache = tmp_path_factory.getbasetemp().parent / "jax-cache"
    jax.config.update("jax_compilation_cache_dir", str(cache))


def run_example(index: int) -> str:
    """Run example ``index`` with the built-in bots only (it may register more), and return
    what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"{DOC.name} example {index + 1}", "exec"), {})
    return out.getvalue()


def test_the_examples_use_each_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page shows a random agent in PettingZoo, a Gymnasium loop, an OpenSpiel algorithm
    on the game and your own bot in a tournament: run, its examples do each of these."""
    from open_spiel.python.algorithms import ismcts

    import piepmatz.sim
    from piepmatz.envs import gymnasium as piepmatz_gymnasium
    from piepmatz.envs import pettingzoo

    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    built_in = set(piepmatz.bots.bot_names())
    done: set[str] = set()

    def spy(owner: object, name: str, did: Callable[..., str | None]) -> None:
        method = getattr(owner, name)

        def spied(*args: Any, **kwargs: Any) -> Any:
            if (what := did(*args, **kwargs)) is not None:
                done.add(what)
            return method(*args, **kwargs)

        monkeypatch.setattr(owner, name, spied)

    spy(pettingzoo.raw_env, "step", lambda env, action: "PettingZoo")
    spy(
        piepmatz_gymnasium.PiepmatzEnv,
        "step",
        # Made from the registry: gymnasium.make gives the env its spec.
        lambda env, action: (
            "Gymnasium" if env.spec and env.spec.id == piepmatz_gymnasium.ENV_ID else None
        ),
    )
    spy(
        ismcts.ISMCTSBot,
        "step",
        lambda bot, state: (
            "OpenSpiel" if state.get_game().get_type().short_name == "python_piepmatz" else None
        ),
    )
    spy(
        piepmatz.sim,
        "run_games",
        lambda config, **kw: "own bot" if set(config.bots) - built_in else None,
    )
    for index in range(len(BLOCKS)):
        run_example(index)
    assert done == {"PettingZoo", "Gymnasium", "OpenSpiel", "own bot"}


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Examples may register bots: each runs with the built-in bots only, and leaves them so.
    monkeypatch.setattr(piepmatz.bots, "_FACTORIES", dict(piepmatz.bots._FACTORIES))
    assert run_example(index).strip()  # every example shows something


def test_the_field_table_matches_the_encoding() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) \| (.*) \|$", TEXT, re.MULTILINE)
    documented = [(name, int(o), int(n), int(top), text) for name, o, n, top, text in rows]
    assert documented == describe_fields()


def test_the_size_table_gives_the_encoders_sizes() -> None:
    import pyspiel

    from piepmatz.core.actions import NUM_ACTIONS
    from piepmatz.envs.encoding import OBSERVATION_SIZE
    from piepmatz.envs.openspiel_observer import INFO_STATE_SIZE, PRIVATE_SIZE

    game = pyspiel.load_game("python_piepmatz", {"players": 3})
    actual = {
        "`observation`": OBSERVATION_SIZE,
        "`action_mask`": NUM_ACTIONS,
        "`observation_tensor`": game.observation_tensor_size(),
        "`information_state_tensor`": game.information_state_tensor_size(),
    }
    assert game.information_state_tensor_size() == INFO_STATE_SIZE
    assert game.num_distinct_actions() == NUM_ACTIONS
    rows = {name: int(n) for name, n in re.findall(r"^\| ([^|]+?) \| (\d+) \|$", TEXT, re.M)}
    # Each array the code names, by its name; the private observation's, in words, the rest.
    assert {name: n for name, n in rows.items() if name.startswith("`")} == actual
    assert [n for name, n in rows.items() if not name.startswith("`")] == [PRIVATE_SIZE]


def test_the_information_state_table_is_the_observers() -> None:
    from piepmatz.envs.openspiel_observer import describe_history

    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (4 × \d+) \| (.*) \|$", TEXT, re.MULTILINE)
    assert [(name, int(o), shape, text) for name, o, shape, text in rows] == describe_history()


def test_the_information_state_history_means_what_the_table_says() -> None:
    """Three players; seat 0 plays a bird. In seat 1's tensor that play is in ``played`` at
    relative seat 2 (seat 0 is two seats on from seat 1), as the table's offset says, and
    nowhere else in the history."""
    import numpy as np
    import pyspiel

    from piepmatz.core.cards import parse_bird
    from piepmatz.envs.openspiel import PiepmatzState
    from piepmatz.envs.openspiel_observer import describe_history

    game = pyspiel.load_game("python_piepmatz", {"players": 3})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert isinstance(state, PiepmatzState)
    mover = state.current_player()
    play = next(
        a for a in state.legal_actions() if state.action_to_string(mover, a).startswith("play")
    )
    bird = parse_bird(state.action_to_string(mover, play).split()[1])
    state.apply_action(play)
    observer = (mover + 1) % 3
    tensor = np.array(state.information_state_tensor(observer))
    offsets = {name: offset for name, offset, _, _ in describe_history()}
    relative = (mover - observer) % 3
    assert tensor[offsets["played"] + relative * 72 + bird] == 1
    history = tensor[offsets["played"] :]
    assert history.sum() == 1, "the one play, and nothing else, is in the history"
