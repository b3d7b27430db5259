"""Playing the games of a tournament: one game from its index, or a batch of indices.

Bots see only ``view_of(state, seat)``, the legal ids and their own random generator
(:func:`~piepmatz.bots.base.bot_rngs` of the tournament seed and the game index). A fresh bot is
built for every seat of every game, so a bot that keeps state between calls cannot make a game
depend on which games ran before it in a batch.
"""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from piepmatz.bots import PluginError, load_plugins, make_bot
from piepmatz.bots.base import BotMoveError, MoveTimeExceeded, bot_rngs, decide, reads_log
from piepmatz.bots.plugins import canonical
from piepmatz.core.game import Game, GameOptions
from piepmatz.core.rules import Rules, check_players
from piepmatz.core.scoring import ScoreSheet, score_state
from piepmatz.core.state import State
from piepmatz.core.view import view_of

from .schedule import deal_seed, lineups


class BotFailure(RuntimeError):
    """A bot raised or returned an action that is not legal; names the game and the seat.

    ``index`` and ``seed`` say which game of which tournament, so that it can be replayed alone.
    """

    def __init__(self, message: str, index: int | None = None, seed: int | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.seed = seed
        #: The games that had finished when the backend stopped (set by ``run_games``).
        self.finished: list[GameResult] = []

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process and Ray boundaries whole
        return (type(self), (str(self), self.index, self.seed))


@dataclass(frozen=True)
class MatchConfig:
    """What a tournament plays: everything a game depends on besides its index.

    ``games`` is rounded up to whole deals: ``deals * len(lineups)`` games are played.
    ``plugins`` are files or modules that register more bots (:mod:`piepmatz.bots.plugins`);
    building a config only checks its values, and :meth:`load_bots` (which ``run_games`` calls)
    loads the plugins, here and in every worker before it builds a bot.
    """

    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    rules: Rules = field(default_factory=Rules)
    seating: str = "cyclic"
    plugins: tuple[str, ...] = ()
    #: Seconds a bot may think per move before the game fails (None: no limit).
    move_limit: float | None = None

    def __post_init__(self) -> None:
        # Canonical references (absolute paths), so workers elsewhere load the same files.
        object.__setattr__(self, "plugins", tuple(canonical(ref) for ref in self.plugins))
        check_players(self.players)
        if not self.bots:
            raise ValueError("a tournament needs at least one bot")
        if type(self.games) is not int or self.games < 1:
            raise ValueError(f"the number of games must be at least 1, not {self.games!r}")
        if self.move_limit is not None and not (
            isinstance(self.move_limit, int | float) and 0 < self.move_limit < math.inf
        ):
            raise ValueError(f"the move limit is a number of seconds, not {self.move_limit!r}")
        lineups(len(self.bots), self.players, self.seating)

    def load_bots(self) -> None:
        """Load the plugins in this process and build each bot once, so that a bad spec fails
        before any game (:class:`~piepmatz.bots.plugins.PluginError`, or ``ValueError`` naming the
        known bots)."""
        load_plugins(self.plugins)
        for spec in self.bots:
            make_bot(spec)

    @property
    def lineups(self) -> tuple[tuple[int, ...], ...]:
        return lineups(len(self.bots), self.players, self.seating)

    @property
    def deals(self) -> int:
        return math.ceil(self.games / len(self.lineups))

    @property
    def total_games(self) -> int:
        return self.deals * len(self.lineups)

    @property
    def labels(self) -> tuple[str, ...]:
        """One name per bot entry; a spec listed twice gets ``#2``, ``#3``, ..."""
        seen: dict[str, int] = {}
        out = []
        for spec in self.bots:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
        return tuple(out)

    def options(self, index: int) -> GameOptions:
        """The game options (deal) of game ``index``."""
        deal = index // len(self.lineups)
        return GameOptions(self.players, self.rules, deal_seed(self.seed, deal))

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_json(),
            "preset": self.rules.name,
            "seating": self.seating,
            "plugins": list(self.plugins),
            "move_limit": self.move_limit,
            "deals": self.deals,
            "total_games": self.total_games,
        }


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: who sat where, the actions (ids) and the final score sheet."""

    index: int
    deal: int
    #: Bot entry index per seat.
    lineup: tuple[int, ...]
    first_player: int
    actions: tuple[int, ...]
    #: Turns played (E2: every player has the same number).
    turns: int
    sheet: ScoreSheet

    @property
    def decisions(self) -> int:
        return len(self.actions)

    @property
    def totals(self) -> list[int]:
        return [p.total for p in self.sheet.players]

    @property
    def winners(self) -> list[int]:
        return list(self.sheet.winners)

    def position(self, seat: int) -> int:
        """0 for the first player, 1 for the next in turn order, ..."""
        return (seat - self.first_player) % len(self.lineup)

    def game(self, config: MatchConfig) -> Game:
        """The game replayed from its options and actions, with its record and score sheet."""
        game = Game(config.options(self.index))
        for action in self.actions:
            game.apply(action)
        return game

    def record(self, config: MatchConfig) -> dict[str, Any]:
        """The game record (:meth:`piepmatz.core.Game.record`), replayable."""
        return self.game(config).record()


@contextmanager
def move_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt a bot that thinks longer than ``seconds`` (:class:`MoveTimeExceeded`).

    A real-time signal, so it works where games are played: the main thread of this process, of
    a worker process or of a Ray worker. Elsewhere (a thread, a system without ``setitimer``)
    there is no limit.
    """
    if (
        seconds is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise MoveTimeExceeded(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def play_game(config: MatchConfig, index: int) -> GameResult:
    """Play game ``index`` of the tournament ``config``; the same inputs give the same game."""
    table = config.lineups
    deal, which = divmod(index, len(table))
    lineup = table[which]
    options = config.options(index)
    try:
        load_plugins(config.plugins)  # a fresh worker process has not loaded them yet
    except PluginError as exc:
        raise BotFailure(f"game {index}: in a worker process, {exc}", index, config.seed) from exc
    try:
        bots = [make_bot(config.bots[entry]) for entry in lineup]
    except ValueError as exc:
        hint = (
            " (in a worker process, after loading the plugins)"
            if config.plugins
            else ". A bot registered while a program runs reaches worker processes only from a "
            "plugin (MatchConfig(plugins=...), --plugin FILE)"
        )
        raise BotFailure(f"game {index}: {exc}{hint}", index=index, seed=config.seed) from exc
    # The game's log only for a bot that may read it (the view it sees is then the one it sees
    # in every interface); records are built from the actions.
    logged = any(reads_log(bot) for bot in bots)
    state = State.new_game(options.players, options.rules, options.seed, events=logged)
    rngs = bot_rngs(config.players, config.seed, index)
    actions: list[int] = []
    limit = config.move_limit
    while not state.is_over():
        seat = state.current_player
        view, legal = view_of(state, seat), state.legal_action_ids()
        try:
            if limit is None:  # the common case pays nothing for the limit
                choice = decide(bots[seat], view, legal, rngs[seat])
            else:
                with move_limit(limit):
                    choice = decide(bots[seat], view, legal, rngs[seat])
        except (BotMoveError, MoveTimeExceeded) as exc:  # the latter: expired just after it
            raise BotFailure(
                f"game {index} of tournament seed {config.seed}: bot "
                f"{config.bots[lineup[seat]]!r} in seat {seat} {exc} "
                f"({state.describe_position()})",
                index=index,
                seed=config.seed,
            ) from exc
        state.apply_id(choice)
        actions.append(choice)
    return GameResult(
        index, deal, lineup, state.first_player, tuple(actions), state.turn, score_state(state)
    )


def play_batch(config: MatchConfig, start: int, stop: int) -> list[GameResult]:
    """Games ``start`` to ``stop - 1``: the unit of work sent to a process or a Ray task."""
    return [play_game(config, i) for i in range(start, stop)]
