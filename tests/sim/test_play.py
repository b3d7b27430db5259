"""Playing tournament games: reproducible from (seed, index), records replay, bots see views."""

from __future__ import annotations

import pickle
import random
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest

import piepmatz.bots
from botfiles import plugin_file
from piepmatz.bots import RandomBot
from piepmatz.bots.base import derive_seed
from piepmatz.core import Game, PlayerView, Rules
from piepmatz.sim import BotFailure, MatchConfig, play_batch, play_game
from piepmatz.sim.backends import run_games
from piepmatz.sim.schedule import deal_seed


def test_a_game_is_fixed_by_seed_and_index() -> None:
    config = MatchConfig(3, ("random", "random"), 12, seed=5)
    again = MatchConfig(3, ("random", "random"), 40, seed=5)  # more games: same game 7
    assert play_game(config, 7) == play_game(again, 7)
    assert play_game(config, 7) != play_game(MatchConfig(3, ("random", "random"), 12, seed=6), 7)
    assert play_batch(config, 3, 9) == [play_game(config, i) for i in range(3, 9)]


def test_lineups_of_one_deal_share_the_cards() -> None:
    config = MatchConfig(3, ("random",) * 3, 6, seed=1)
    games = play_batch(config, 0, 6)
    assert [g.deal for g in games] == [0, 0, 0, 1, 1, 1]
    assert [config.options(g.index).seed for g in games[:3]] == [deal_seed(1, 0)] * 3
    assert [g.lineup for g in games[:3]] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len({g.first_player for g in games[:3]}) == 1  # the deal names the first player


@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_replay_to_the_reported_scores(players: int) -> None:
    config = MatchConfig(players, ("random",), 4, seed=11, rules=Rules.preset("overview"))
    for result in play_batch(config, 0, 4):
        record = result.record(config)
        game = Game.from_record(record)  # raises if the result differs from the replay
        assert game.state.is_over()
        assert game.score() == result.sheet
        assert [p.total for p in result.sheet.players] == result.totals
        assert len(record["actions"]) == result.decisions
        assert game.state.turn == result.turns


class SpyBot:
    """Random play that remembers what it was given."""

    name = "spy"
    calls: ClassVar[list[tuple[object, list[int], float]]] = []

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        SpyBot.calls.append((view, list(legal), rng.random()))
        return RandomBot().choose(view, legal, rng)


def test_a_bot_sees_the_games_log_as_everywhere_unless_it_reads_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot of one's own is shown the log in its view, as in the terminal game and on a
    server; a game of bots that say they never read it keeps none (the shipped ones)."""
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "spy", lambda arg: SpyBot())
    SpyBot.calls = []
    play_game(MatchConfig(2, ("spy", "random"), 2, seed=3), 0)
    logs = [view.events for view, _legal, _draw in SpyBot.calls]
    assert all(log is not None for log in logs) and len(logs[-1]) > len(logs[0])
    assert not piepmatz.bots.base.reads_log(RandomBot())
    assert piepmatz.bots.base.reads_log(SpyBot())


def test_bots_get_their_view_legal_ids_and_a_seeded_rng(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "spy", lambda arg: SpyBot())
    SpyBot.calls = []
    config = MatchConfig(2, ("spy",), 2, seed=3)
    result = play_game(config, 1)
    assert len(SpyBot.calls) == result.decisions
    first_seen: dict[int, float] = {}
    for view, legal, draw in SpyBot.calls:
        assert isinstance(view, PlayerView)
        assert view.player == view.current_player
        assert legal == sorted(legal) and legal
        first_seen.setdefault(view.player, draw)
    # Each seat's generator is seeded from (tournament seed, game index, seat) alone.
    for seat, draw in first_seen.items():
        assert draw == random.Random(derive_seed(3, "bot", 1, seat)).random()


class CheatBot:
    name = "cheat"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        return max(legal) + 1


class CrashBot:
    name = "crash"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        raise RuntimeError("out of feathers")


def test_a_bot_that_breaks_the_rules_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "cheat", lambda arg: CheatBot())
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "crash", lambda arg: CrashBot())
    with pytest.raises(
        BotFailure,
        match=r"game 0 of tournament seed 1: bot 'cheat' in seat \d chose \d+, which is not legal",
    ):
        play_game(MatchConfig(2, ("cheat",), 1, seed=1), 0)
    with pytest.raises(BotFailure, match="raised RuntimeError\\('out of feathers'\\)") as caught:
        play_game(MatchConfig(2, ("crash",), 1, seed=7), 0)
    assert (caught.value.index, caught.value.seed) == (0, 7)
    again = pickle.loads(pickle.dumps(caught.value))  # as it crosses from a worker
    assert (str(again), again.index, again.seed) == (str(caught.value), 0, 7)


class RareCrashBot:
    """Crashes on one decision in a few hundred: some games finish before one fails."""

    name = "rare"

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if rng.random() < 0.004:
            raise RuntimeError("rare crash")
        return legal[rng.randrange(len(legal))]


def test_a_failure_keeps_the_games_finished_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "rare", lambda arg: RareCrashBot())
    config = MatchConfig(2, ("rare", "random"), 40, seed=3)
    with pytest.raises(BotFailure) as caught:
        run_games(config, backend="inline", batch_size=1)
    failed = caught.value.index
    assert failed is not None and failed > 0
    finished = caught.value.finished
    assert [r.index for r in finished] == list(range(failed))
    assert finished == [play_game(config, i) for i in range(failed)]


def test_games_round_up_to_whole_deals_and_labels_are_unique() -> None:
    config = MatchConfig(3, ("random", "random", "random"), 10, seed=0)
    assert (config.deals, config.total_games) == (4, 12)
    assert config.labels == ("random", "random#2", "random#3")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "2, 3 or 4 players"),
        ({"bots": ()}, "at least one bot"),
        ({"games": 0}, "at least 1"),
        ({"seating": "shuffle"}, "unknown seating"),
    ],
)
def test_bad_configs_are_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"players": 3, "bots": ("random",), "games": 3, "seed": 1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        MatchConfig(**args)  # type: ignore[arg-type]


def test_a_config_checks_its_bots_when_they_are_loaded_not_when_it_is_built(
    tmp_path: Path,
) -> None:
    unknown = MatchConfig(2, ("nosuch",), 2, seed=1)  # a value: nothing is loaded yet
    with pytest.raises(ValueError, match="unknown bot 'nosuch'"):
        run_games(unknown, backend="inline")
    plugin = plugin_file(tmp_path / "late.py", "late")
    config = MatchConfig(2, ("late", "random"), 2, seed=1, plugins=(str(plugin),))
    assert config.plugins == (str(plugin.resolve()),)
    assert "late" not in piepmatz.bots.bot_names()  # building the config imported nothing
    try:
        assert len(run_games(config, backend="inline")) == 2  # run_games loads the plugin
    finally:
        piepmatz.bots._FACTORIES.pop("late", None)


class SlowBot:
    """From turn 2 on it thinks until the move limit's alarm interrupts it; without an alarm
    it does not wait at all."""

    name = "slow"

    def __init__(self) -> None:
        #: The alarm's seconds left as each of its decisions began.
        self.alarms: list[float] = []

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        self.alarms.append(left)
        if view.turn >= 2 and left > 0:
            time.sleep(60)  # the alarm ends this; all of it only if the limit is broken
            raise RuntimeError("the alarm rang and thinking went on")
        return legal[0]


def test_a_bot_past_the_move_limit_fails_its_game(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = SlowBot()
    monkeypatch.setitem(piepmatz.bots._FACTORIES, "slow", lambda arg: bot)
    config = MatchConfig(2, ("slow", "random"), 1, seed=1, move_limit=0.2)
    with pytest.raises(BotFailure, match=r"bot 'slow' in seat \d took more than 0\.2 s to move"):
        play_game(config, 0)
    # The bot's decisions began with the limit's alarm set, never for longer than the limit.
    assert 0 < max(bot.alarms) <= 0.2, bot.alarms
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no alarm left behind
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    # Within the limit nothing changes: the same game as without one.
    assert play_game(MatchConfig(2, ("random",), 1, seed=4, move_limit=5), 0) == play_game(
        MatchConfig(2, ("random",), 1, seed=4), 0
    )
    for bad in (0, -1.0, float("nan"), "1"):
        with pytest.raises(ValueError, match="the move limit is a number of seconds"):
            MatchConfig(2, ("random",), 1, seed=1, move_limit=bad)  # type: ignore[arg-type]
