"""A trained policy as a bot: the checkpoint format, legal moves only, the player's view only."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from leaks import assert_view_only
from piepmatz.bots import make_bot
from piepmatz.bots.base import decide
from piepmatz.cli import main
from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.state import State
from piepmatz.core.view import determinise, view_of
from piepmatz.envs.encoding import encode
from piepmatz.rl.policy import (
    CHECKPOINT_VERSION,
    CheckpointError,
    init_params,
    load_checkpoint,
    logits,
    save_checkpoint,
)
from piepmatz.sim import MatchConfig, play_batch

HIDDEN = [32, 16]


def _params() -> dict[str, np.ndarray]:
    """An untrained policy whose choices still depend on the position (random weights)."""
    params = init_params(HIDDEN, seed=3)
    params["pi_w"] *= 100.0  # far from uniform, so that two positions rarely pick alike
    return params


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    save_checkpoint(path, _params(), {"hidden": HIDDEN, "steps": 0})
    return path


def _positions(players: int, games: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = State.new_game(players, "standard", seed * 100 + g)
        while not state.is_over():
            out.append(state.copy())
            state.apply_id(rng.choice(state.legal_action_ids()))
    return out


def test_a_checkpoint_round_trips_and_chooses_the_same_actions(
    checkpoint: Path, tmp_path: Path
) -> None:
    loaded, params = load_checkpoint(checkpoint), _params()
    assert loaded.meta["version"] == CHECKPOINT_VERSION and loaded.hidden == HIDDEN
    assert loaded.params.keys() == params.keys()
    assert all(np.array_equal(loaded.params[k], params[k]) for k in params)
    again = tmp_path / "again.npz"
    save_checkpoint(again, loaded.params, loaded.meta)
    bot, copy = make_bot(f"ppo:{checkpoint}"), make_bot(f"ppo:{again}")
    chosen = []
    for state in _positions(2, games=2, seed=4):
        p = state.current_player
        view, legal = view_of(state, p), state.legal_action_ids()
        a = decide(bot, view, legal, random.Random(0))
        assert decide(copy, view, legal, random.Random(1)) == a
        chosen.append(a)
        # The bot plays the most likely legal action of the network it was saved from.
        mask = np.zeros((1, NUM_ACTIONS), np.int8)
        mask[0, legal] = 1
        scores = logits(params, encode(view)[None, :], mask)
        assert a == int(np.argmax(scores))
    assert len(set(chosen)) > 10  # it plays the position, not a fixed answer


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_policy_plays_whole_games_of_legal_moves(checkpoint: Path, players: int) -> None:
    # Every move goes through decide(), which refuses an action that is not legal.
    config = MatchConfig(players=players, bots=(f"ppo:{checkpoint}", "random"), games=4, seed=9)
    results = play_batch(config, 0, config.total_games)
    assert len(results) == config.total_games
    assert all(r.turns > 0 and r.winners for r in results)


def test_the_policy_sees_only_the_players_view(checkpoint: Path) -> None:
    bot = make_bot(f"ppo:{checkpoint}")
    rng = random.Random(5)
    for state in _positions(3, games=1, seed=5)[::3]:
        p = state.current_player
        view = view_of(state, p)
        assert_view_only(encode(view), state, p, rng)
        world = determinise(view, rng)
        legal = state.legal_action_ids()
        assert world.legal_action_ids() == legal
        # Worlds the player cannot tell apart get the same move.
        assert decide(bot, view_of(world, p), legal, rng) == decide(bot, view, legal, rng)


def _corrupt(tmp_path: Path, name: str, good: Path) -> Path:
    path = tmp_path / name
    arrays = dict(np.load(good))
    meta = json.loads(arrays["meta"].tobytes())
    if name == "garbage.npz":
        path.write_bytes(b"this is not a checkpoint")
        return path
    if name == "truncated.npz":
        path.write_bytes(good.read_bytes()[:5000])
        return path
    if name == "array.npz":  # a single array, as np.save writes
        with path.open("wb") as out:
            np.save(out, arrays["pi_b"])
        return path
    if name == "objects.npz":  # an archive of pickled objects, never to be loaded
        with path.open("wb") as out:
            np.savez(out, meta=np.array([meta], dtype=object))
        return path
    if name == "no-meta.npz":
        del arrays["meta"]
    elif name == "version.npz":
        meta["version"] = CHECKPOINT_VERSION + 1
    elif name == "format.npz":
        meta["format"] = "something-else"
    elif name == "shape.npz":
        arrays["w1"] = arrays["w1"][:, :3]
    elif name == "nan.npz":
        arrays["pi_b"] = arrays["pi_b"].copy()
        arrays["pi_b"][7] = np.nan
    elif name == "missing.npz":
        del arrays["v_w"]
    if name != "no-meta.npz":
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    with path.open("wb") as out:
        np.savez(out, **arrays)
    return path


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("garbage.npz", "not a Piepmatz policy checkpoint"),
        ("truncated.npz", "not a Piepmatz policy checkpoint"),
        ("array.npz", "not a Piepmatz policy checkpoint: not a NumPy .npz archive"),
        ("objects.npz", "not a Piepmatz policy checkpoint: not a NumPy .npz archive"),
        ("no-meta.npz", "no 'meta' entry"),
        ("version.npz", f"checkpoint version {CHECKPOINT_VERSION + 1}; this Piepmatz reads"),
        ("format.npz", "format is not 'piepmatz-ppo-policy'"),
        ("shape.npz", "array 'w1' is float32\\[32, 3\\], expected float32\\[32, 16\\]"),
        ("nan.npz", "array 'pi_b' holds values that are not finite"),
        ("missing.npz", "the arrays v_w are missing"),
    ],
)
def test_a_broken_checkpoint_is_refused_clearly(
    tmp_path: Path, checkpoint: Path, name: str, message: str
) -> None:
    path = _corrupt(tmp_path, name, checkpoint)
    with pytest.raises(CheckpointError, match=message) as caught:
        load_checkpoint(path)
    assert str(caught.value).startswith(str(path))
    assert "pickle" not in str(caught.value)  # NumPy's advice to load it unsafely is not ours
    with pytest.raises(ValueError, match=f"bot 'ppo:{path}'"):
        make_bot(f"ppo:{path}")


def test_a_missing_or_unnamed_checkpoint_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no such checkpoint file"):
        load_checkpoint(tmp_path / "none.npz")
    with pytest.raises(ValueError, match="needs a checkpoint: write ppo:path"):
        make_bot("ppo")
    with pytest.raises(ValueError, match="cannot read the checkpoint"):
        make_bot(f"ppo:{tmp_path / 'none.npz'}")


def test_the_tournament_command_plays_a_checkpoint(
    checkpoint: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--players", "2", "--games", "4", "--seed", "1", "--backend", "inline"]
    assert main([*args, "--bots", f"ppo:{checkpoint}", "random", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 4
    assert main([*args, "--bots", f"ppo:{tmp_path / 'none.npz'}", "random"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the checkpoint" in err and "Traceback" not in err


def test_the_terminal_game_seats_a_checkpoint_but_does_not_offer_ppo_bare(
    checkpoint: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from piepmatz.tui import session as session_module

    seats = session_module.parse_seats(f"human,ppo:{checkpoint}")
    game = session_module.Session.new(seats, seed=2)
    while not game.state_over:
        if game.is_human(game.to_act):
            game.apply(game.game.state.legal_action_ids()[0])
        else:
            game.bot_move()  # through decide(), from the bot's own view
    assert game.game.score().winners
    # The new-game menu offers bots by bare name; 'ppo' needs a path, so it is left out.
    monkeypatch.setattr(session_module, "bot_names", lambda: ["medium", "ppo", "random"])
    assert session_module.available_bots() == ["medium", "random"]
