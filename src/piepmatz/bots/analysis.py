"""Game review: every option of a decision valued by the search, from the player's view only.

For one decision, :func:`evaluate_options` runs the ISMCTS search (:class:`ISMCTSBot`) once per
legal option: each iteration samples the hidden cards from the view (the search's own sampler,
built on :func:`~piepmatz.core.view.determinise`), takes the option in that world, lets the tree
choose what every player does next, and measures the position where the rollout stops. An
option's estimate is the mean over its iterations of

- the **lead**: the reviewed player's estimated final score less the best other player's
  (:func:`~piepmatz.bots.evaluate.standings`, exact once the game is over), in points;
- the **win chance**: 1 (or 1/k on a shared win) or 0 where the rollout reached the end of the
  game, else the search's own reward, a sigmoid of the estimated lead
  (:func:`~piepmatz.bots.evaluate.sigmoid`), divided by the sum of every player's so that the
  players' chances add up to one;

with its spread (standard deviation) over the sampled worlds. Every option searches the same
sequence of worlds (the same seed), so differences between options are not blurred by luck.

:func:`review_decision` grades the move played by the points of lead it gave away against the
best option (:data:`GRADES`); :func:`summarise` adds them up per kind of decision.

Nothing here sees a hidden card: the functions take a :class:`PlayerView`, and
:func:`decisions` builds those views from a replayed game.

>>> from piepmatz.core import Game
>>> game = Game.new(players=2, seed=3)
>>> review = review_decision(game.view(game.state.current_player), game.state.legal_action_ids()[0],
...                          iterations=20, seed=1)
>>> review.phase, review.grade in GRADE_NAMES, review.loss >= 0
('play', True, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from piepmatz.core.actions import Action
from piepmatz.core.game import Game
from piepmatz.core.scoring import score_state
from piepmatz.core.state import GAME_OVER, PHASE_NAMES, State
from piepmatz.core.view import PlayerView, determinise, view_of

from . import make_bot
from .base import decide, derive_seed
from .evaluate import final_values, margins, sigmoid
from .ismcts import ISMCTSBot

#: Search iterations per option at the default budget. ``benchmarks/review.py --stability``
#: measures how often two seeds agree on the best option and on the grade at a budget.
DEFAULT_ITERATIONS = 1000
#: Grades by the points of lead lost against the best option: below each bound, that grade.
#: ``best`` is the option with the highest estimate itself; at and above the last bound, a
#: ``blunder``. A 1-egg seed is 1 point, a 3-egg seed 3, a mated pair 5.
GRADES: tuple[tuple[str, float], ...] = (("good", 1.0), ("inaccuracy", 2.0), ("mistake", 4.0))
GRADE_NAMES = ("best", *(name for name, _ in GRADES), "blunder")
#: The kinds of decision, as the summary groups them (the engine's phase names).
CATEGORIES = tuple(name for name in PHASE_NAMES if name != PHASE_NAMES[GAME_OVER])


def grade(loss: float, is_best: bool) -> str:
    """The grade of a move that lost ``loss`` points of lead against the best option."""
    if is_best:
        return "best"
    for name, bound in GRADES:
        if loss < bound:
            return name
    return "blunder"


@dataclass(frozen=True)
class Estimate:
    """What the search expects of one option, over ``worlds`` sampled worlds."""

    action: int
    #: Mean and spread of the reviewed player's lead over the best other player (points).
    lead: float
    lead_spread: float
    #: Mean and spread of the reviewed player's win chance (0–1).
    win: float
    win_spread: float
    #: The reviewed player's own expected final score.
    score: float
    #: Every player's win chance (the reviewed player's at their seat).
    wins: tuple[float, ...]
    worlds: int

    @property
    def text(self) -> str:
        return str(Action.from_id(self.action))

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.text,
            "lead": round(self.lead, 3),
            "lead_spread": round(self.lead_spread, 3),
            "win": round(self.win, 4),
            "win_spread": round(self.win_spread, 4),
            "score": round(self.score, 3),
            "wins": [round(w, 4) for w in self.wins],
            "worlds": self.worlds,
        }


@dataclass(frozen=True)
class DecisionReview:
    """One decision of the reviewed player: every option's estimate, best first."""

    player: int
    phase: str
    turn: int
    played: int
    options: tuple[Estimate, ...]
    #: The decision's place in the game record (0 = the first action).
    index: int = 0

    @property
    def best(self) -> Estimate:
        return self.options[0]

    @property
    def played_estimate(self) -> Estimate:
        return next(o for o in self.options if o.action == self.played)

    @property
    def loss(self) -> float:
        """Points of lead the move played gave away against the best option (0 or more)."""
        return max(0.0, self.best.lead - self.played_estimate.lead)

    @property
    def win_change(self) -> float:
        """The move played's win chance less the best option's."""
        return self.played_estimate.win - self.best.win

    @property
    def grade(self) -> str:
        return grade(self.loss, self.played == self.best.action)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "player": self.player,
            "turn": self.turn,
            "phase": self.phase,
            "played": str(Action.from_id(self.played)),
            "best": self.best.text,
            "grade": self.grade,
            "loss": round(self.loss, 3),
            "win_change": round(self.win_change, 4),
            "options": [o.to_json() for o in self.options],
        }


class _OptionSearch(ISMCTSBot):
    """The ISMCTS search after one option: each sampled world takes ``option`` first."""

    def __init__(self, option: int, iterations: int) -> None:
        super().__init__(iterations=iterations, stop="full", name="review")
        self.option = option
        self.samples: list[tuple[list[float], list[float], list[float]]] = []

    def sampler(self, view: PlayerView, rng: random.Random) -> Any:
        return _AfterOption(super().sampler(view, rng), self.option)

    def evaluate(self, world: State) -> list[float]:
        values = final_values(world)
        leads = margins(values)
        rewards = [sigmoid(m) for m in leads]
        if world.phase == GAME_OVER:
            wins = _win_shares(world)
        else:
            # Each player's sigmoid of their own lead, shared out so that the chances add up
            # to one (with two players they already do).
            total = math.fsum(rewards)
            wins = [r / total for r in rewards]
        self.samples.append((values, leads, wins))
        return rewards


class _AfterOption:
    """A sampler whose worlds have taken one option already."""

    def __init__(self, sampler: Any, option: int) -> None:
        self._sampler = sampler
        self._option = option

    def sample(self, rng: random.Random) -> State:
        world: State = self._sampler.sample(rng)
        world.apply_id(self._option)
        return world


def _win_shares(world: State) -> list[float]:
    """At the end of the game: 1/k for each of k winners (E5), 0 for the others."""
    winners = score_state(world).winners
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(world.num_players)]


def _mean_spread(xs: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(xs) / len(xs)
    var = math.fsum((x - mean) ** 2 for x in xs) / max(1, len(xs) - 1)
    return mean, math.sqrt(var)


def legal_ids(view: PlayerView) -> list[int]:
    """The viewer's legal action ids, from the view (legality never depends on hidden cards)."""
    if not view.is_my_turn:
        return []
    return determinise(view, random.Random(0), events=False).legal_action_ids()


def estimate_option(view: PlayerView, option: int, iterations: int, seed: int) -> Estimate:
    """One option of the viewer's decision valued by ``iterations`` of the search."""
    me = view.player
    search = _OptionSearch(option, iterations)
    # The search never reads the log; without it a view is also cheap to send to a process.
    search.search(view._replace(events=None), random.Random(seed))
    samples = search.samples
    lead, lead_spread = _mean_spread([s[1][me] for s in samples])
    win, win_spread = _mean_spread([s[2][me] for s in samples])
    return Estimate(
        option,
        lead,
        lead_spread,
        win,
        win_spread,
        math.fsum(s[0][me] for s in samples) / len(samples),
        tuple(math.fsum(s[2][p] for s in samples) / len(samples) for p in range(view.num_players)),
        len(samples),
    )


def evaluate_options(
    view: PlayerView, iterations: int = DEFAULT_ITERATIONS, seed: int = 0
) -> list[Estimate]:
    """Every legal option of the viewer's decision, valued by the search; best (lead) first.

    Every option searches from the same seed, so their sampled worlds begin alike.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    legal = legal_ids(view)
    if not legal:
        raise ValueError(f"player {view.player} has no decision to take now")
    out = [estimate_option(view, option, iterations, seed) for option in legal]
    out.sort(key=lambda e: (-e.lead, -e.win, e.action))
    return out


#: The bot whose suggestion a hint shows: the strongest level offered to people.
HINT_BOT = "hard"
#: Iterations of the estimate shown with a hint (one option: a small share of the bot's time).
HINT_ITERATIONS = 2000


@dataclass(frozen=True)
class Hint:
    """A bot's suggestion for the viewer's decision, with the search's estimate of it."""

    bot: str
    estimate: Estimate

    @property
    def action(self) -> int:
        return self.estimate.action


def hint_seed(game_seed: int, move: int, seat: int) -> int:
    """The one seed of the hint for ``seat``'s decision at ``move`` of the game dealt from
    ``game_seed``: the terminal game and the server ask the same question, so the same position
    gets the same hint wherever it is asked."""
    return derive_seed(game_seed, "hint", move, seat)


def hint(
    view: PlayerView,
    seed: int,
    bot: str = HINT_BOT,
    iterations: int = HINT_ITERATIONS,
) -> Hint:
    """What ``bot`` would play in the viewer's place, and its estimate; from the view only."""
    legal = legal_ids(view)
    if not legal:
        raise ValueError(f"player {view.player} has no decision to take now")
    choice = decide(make_bot(bot), view, legal, random.Random(seed))
    return Hint(bot, estimate_option(view, choice, iterations, seed))


def review_decision(
    view: PlayerView,
    played: int,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    index: int = 0,
) -> DecisionReview:
    """Grade ``played`` among the options of the viewer's decision (see :func:`grade`)."""
    options = evaluate_options(view, iterations, seed)
    if all(o.action != played for o in options):
        raise ValueError(f"{Action.from_id(played)} is not a legal option here")
    return DecisionReview(
        view.player,
        PHASE_NAMES[view.phase],
        view.turn,
        played,
        tuple(options),
        index,
    )


@dataclass(frozen=True)
class Decision:
    """A decision to review: the view its player had, the move played, its place in the game."""

    index: int
    view: PlayerView
    played: int
    options: int


def decisions(game: Game, player: int) -> Iterator[Decision]:
    """``player``'s decisions in ``game``, replayed from its options (an unfinished game up to
    where it is); decisions with a single option are left out (nothing to choose)."""
    if type(player) is not int or not 0 <= player < game.options.players:
        raise ValueError(
            f"no player {player} in this {game.options.players}-player game "
            f"(players are 0-{game.options.players - 1})"
        )
    replay = Game(game.options, game.version)
    for index, action in enumerate(game.actions):
        state = replay.state
        if state.current_player == player:
            count = len(state.legal_action_ids())
            if count > 1:
                yield Decision(index, view_of(state, player), action.id, count)
        replay.apply(action.id)


def decision_seed(seed: int, index: int) -> int:
    """The seed of one decision's search: a game's review does not depend on the order or the
    process its decisions are searched in."""
    return (seed * 1_000_003 + index) & (2**63 - 1)


@dataclass(frozen=True)
class CategorySummary:
    decisions: int = 0
    loss: float = 0.0
    grades: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "loss": round(self.loss, 3), "grades": self.grades}


@dataclass(frozen=True)
class Summary:
    """A game's review added up: accuracy and points lost by kind of decision."""

    decisions: int
    #: The share of decisions graded ``best`` or ``good`` (0–1; 1 with nothing to review).
    accuracy: float
    loss: float
    grades: dict[str, int]
    categories: dict[str, CategorySummary]

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "accuracy": round(self.accuracy, 4),
            "loss": round(self.loss, 3),
            "grades": self.grades,
            "categories": {k: v.to_json() for k, v in self.categories.items()},
        }


def summarise(reviews: Sequence[DecisionReview]) -> Summary:
    grades = dict.fromkeys(GRADE_NAMES, 0)
    per: dict[str, tuple[int, float, dict[str, int]]] = {
        c: (0, 0.0, dict.fromkeys(GRADE_NAMES, 0)) for c in CATEGORIES
    }
    for r in reviews:
        g = r.grade
        grades[g] += 1
        count, loss, cat_grades = per[r.phase]
        cat_grades[g] += 1
        per[r.phase] = (count + 1, loss + r.loss, cat_grades)
    accurate = grades["best"] + grades["good"]
    return Summary(
        len(reviews),
        accurate / len(reviews) if reviews else 1.0,
        math.fsum(r.loss for r in reviews),
        grades,
        {c: CategorySummary(*v) for c, v in per.items()},
    )


def _review(task: tuple[Decision, int, int]) -> DecisionReview:
    d, iterations, seed = task
    return review_decision(d.view, d.played, iterations, decision_seed(seed, d.index), d.index)


def _pool_context() -> Any:
    import multiprocessing

    # Not fork: the caller may hold threads (a terminal UI, a progress bar) that a forked child
    # would inherit half-locked.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def iter_reviews(
    game: Game,
    player: int,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    processes: int = 1,
) -> Iterator[DecisionReview]:
    """Review every decision of ``player`` in ``game``, yielded in the game's order.

    With ``processes`` > 1 the decisions are searched in a process pool; the results are the
    same as in one process (each decision's seed comes from ``seed`` and its place).
    """
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    if processes < 1:
        raise ValueError(f"processes must be at least 1, not {processes}")
    tasks = [(d, iterations, seed) for d in decisions(game, player)]
    if processes == 1 or len(tasks) < 2:
        yield from map(_review, tasks)
        return
    from concurrent.futures import ProcessPoolExecutor  # only when a pool is asked for

    pool = ProcessPoolExecutor(max_workers=processes, mp_context=_pool_context())
    try:
        yield from pool.map(_review, tasks)
    finally:
        # A caller that stops early (a closed review screen) leaves no search running.
        pool.shutdown(wait=True, cancel_futures=True)


def review_game(
    game: Game,
    player: int,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    processes: int = 1,
) -> list[DecisionReview]:
    """:func:`iter_reviews` as a list."""
    return list(iter_reviews(game, player, iterations, seed, processes))


__all__ = [
    "CATEGORIES",
    "DEFAULT_ITERATIONS",
    "GRADES",
    "GRADE_NAMES",
    "HINT_BOT",
    "HINT_ITERATIONS",
    "Decision",
    "DecisionReview",
    "Estimate",
    "Hint",
    "Summary",
    "decision_seed",
    "decisions",
    "estimate_option",
    "evaluate_options",
    "grade",
    "hint",
    "iter_reviews",
    "legal_ids",
    "review_decision",
    "review_game",
    "summarise",
]
