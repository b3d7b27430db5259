"""Bots are built by name: the specs the tournaments and the game use stay stable."""

from __future__ import annotations

import pytest

from piepmatz.bots import (
    Bot,
    GreedyBot,
    HeuristicBot,
    ISMCTSBot,
    NoisyBot,
    RandomBot,
    bot_names,
    make_bot,
)


def test_names() -> None:
    assert {"random", "greedy", "heuristic", "ismcts", "easy", "medium", "hard"} <= set(bot_names())


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("random", RandomBot),
        ("greedy", GreedyBot),
        ("heuristic", HeuristicBot),
        ("ismcts", ISMCTSBot),
        ("easy", NoisyBot),
        ("medium", HeuristicBot),
        ("hard", ISMCTSBot),
    ],
)
def test_each_name_builds_its_bot(spec: str, kind: type) -> None:
    bot = make_bot(spec)
    assert isinstance(bot, kind)
    assert isinstance(bot, Bot)
    assert bot.name == spec


def test_ismcts_budgets() -> None:
    default = make_bot("ismcts")
    assert isinstance(default, ISMCTSBot)
    assert (default.iterations, default.time_limit) == (2000, None)
    custom = make_bot("ismcts:iterations=2000")
    assert isinstance(custom, ISMCTSBot)
    assert (custom.iterations, custom.time_limit) == (2000, None)
    timed = make_bot("ismcts:time=0.25,depth=5,c=1.2,stop=full")
    assert isinstance(timed, ISMCTSBot)
    assert (timed.iterations, timed.time_limit) == (None, 0.25)
    assert (timed.depth, timed.c, timed.stop) == (5, 1.2, "full")
    assert timed.search_mode == "auto"
    plays = make_bot("ismcts:iterations=10,search=plays")
    assert isinstance(plays, ISMCTSBot) and plays.search_mode == "plays"


@pytest.mark.parametrize(
    ("spec", "iterations", "time_limit"),
    [
        ("ismcts:fast", 200, None),
        ("ismcts:deep", 1000, None),
        ("ismcts:1s", None, 1.0),
        # the former names, which stored tables and records still hold
        ("ismcts:easy", 200, None),
        ("ismcts:medium", 1000, None),
        ("ismcts:hard", None, 1.0),
    ],
)
def test_ismcts_levels(spec: str, iterations: int | None, time_limit: float | None) -> None:
    bot = make_bot(spec)
    assert isinstance(bot, ISMCTSBot)
    assert (bot.iterations, bot.time_limit) == (iterations, time_limit)
    assert bot.name == spec


def test_levels_for_people() -> None:
    easy = make_bot("easy")
    assert isinstance(easy, NoisyBot) and isinstance(easy.bot, HeuristicBot)
    assert 0 < easy.noise < 1
    hard = make_bot("hard")
    assert isinstance(hard, ISMCTSBot) and hard.time_limit == 1.0


def test_heuristic_options() -> None:
    bot = make_bot("heuristic:exposure=0")
    assert isinstance(bot, HeuristicBot) and bot.exposure_weight == 0.0
    noisy = make_bot("heuristic:noise=0.2")
    assert isinstance(noisy, NoisyBot) and noisy.noise == 0.2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("alphazero", "unknown bot"),
        ("random:fast", "takes no options"),
        ("hard:now", "takes no options"),
        ("ismcts:wizard", "levels are"),
        ("ismcts:iterations=lots", "is not a whole number"),
        ("ismcts:speed=3", "unknown option 'speed'"),
        ("ismcts:iterations", "levels are"),
        ("ismcts:iterations=0", "at least 1"),
        ("ismcts:rollout=greedy", "unknown option 'rollout'"),
        ("heuristic:noise=2", "probability"),
        ("heuristic:noise", "key=value"),
        ("heuristic:noise=much", "noise='much' is not a number"),
    ],
)
def test_bad_specs_get_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec)


def test_names_are_read_without_regard_to_case() -> None:
    assert make_bot("Hard").time_limit == 1.0
    assert isinstance(make_bot("HEURISTIC"), HeuristicBot)
    assert make_bot("ISMCTS:iterations=7").iterations == 7


def test_spec_must_be_text() -> None:
    with pytest.raises(ValueError, match="text"):
        make_bot(3)  # type: ignore[arg-type]


def test_package_docstring_examples() -> None:
    import doctest

    import piepmatz.bots

    result = doctest.testmod(piepmatz.bots)
    assert result.attempted >= 4
    assert result.failed == 0
