"""``benchmarks/ceiling.py``: the search told the hidden cards, for a ceiling of fair play."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from benchfiles import load_benchmark
from piepmatz.bots import make_bot
from piepmatz.core.view import view_of
from scenarios import played


@pytest.fixture(scope="module")
def ceiling() -> ModuleType:
    return load_benchmark("ceiling")


def test_told_hands_the_worlds_hold_the_true_hands_and_reshuffled_decks(
    ceiling: ModuleType,
) -> None:
    truth = played(4, seed=12, steps=60)
    bot = make_bot("ismcts:iterations=10")
    ceiling.tell(bot, "hands", truth)
    rng = random.Random(1)
    sampler = bot.sampler(view_of(truth, truth.current_player), rng)
    worlds = [sampler.sample(rng) for _ in range(5)]
    for world in worlds:
        assert world.hands == truth.hands
        assert world.seeds_blind == truth.seeds_blind
        assert sorted(world.bird_deck) == sorted(truth.bird_deck)
        assert sorted(world.feeder_deck) == sorted(truth.feeder_deck)
    # The decks are dealt again: the worlds do not all keep the true order.
    assert any(w.bird_deck != truth.bird_deck for w in worlds)


def test_told_all_every_world_is_the_true_state(ceiling: ModuleType) -> None:
    truth = played(3, seed=4, steps=40)
    bot = make_bot("ismcts:iterations=10")
    ceiling.tell(bot, "all", truth)
    rng = random.Random(2)
    world = bot.sampler(view_of(truth, truth.current_player), rng).sample(rng)
    assert world is not truth
    assert (world.hands, world.bird_deck, world.feeder_deck, world.rng) == (
        truth.hands,
        truth.bird_deck,
        truth.feeder_deck,
        truth.rng,
    )


def test_a_run_saves_match_records_that_pool_like_bots_py(
    ceiling: ModuleType, tmp_path: Path
) -> None:
    out = tmp_path / "told.jsonl"
    rate = ceiling.run("hands", "ismcts:iterations=20", "heuristic", 4, 1, 1, 7, str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["deal"], r["seat"]) for r in records} == {(7, s) for s in range(4)}
    assert {r["first"] for r in records} == {"told-hands:ismcts:iterations=20"}
    assert {r["second"] for r in records} == {"heuristic"}
    assert sum(r["result"] for r in records) / 4 == pytest.approx(rate)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["hands", "heuristic"], "'heuristic' is not an ISMCTS bot"),
        (["decks", "ismcts"], "invalid choice: 'decks'"),
        (["hands", "ismcts", "--games", "0"], "--games must be at least 1"),
        (["all", "ismcts:iterations=5", "--save", "/nonexistent/x.jsonl"], "--save: cannot write"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(
    ceiling: ModuleType, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        ceiling.main(args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
