"""Information Set Monte Carlo Tree Search (Cowling, Powley & Whitehouse 2012).

This is **single-observer ISMCTS** (SO-ISMCTS, the paper's Algorithm 2) with one tree per
decision, seen from the searching player's information set:

- every iteration deals the hidden cards anew from the searching player's view
  (:class:`~piepmatz.core.view.Sampler`, the engine's one determinisation), so the tree only
  ever branches on what that player can observe;
- a node's children are actions; the actions legal in the current world are the "available"
  ones, and UCB1 uses each child's availability count instead of the parent's visits (the
  subset-armed bandit of the paper);
- each node is owned by the player who acts there and its edges carry *that* player's reward, so
  opponents choose what is good for them (the tree is built per acting player);
- every action of Piepmatz is public except the secret choice of the last hand (E3). The tree
  stops before another player's last-hand choice and leaves it to the rollout, which is exactly
  where single- and multiple-observer ISMCTS would differ: the tree never holds anything the
  searching player could not have seen;
- the rollout plays uniformly random moves for at most ``depth`` decisions and then scores the
  world with :func:`~piepmatz.bots.evaluate.rewards`: a sigmoid of each player's estimated final
  score margin, in [0, 1], which keeps a signal in lost or won positions and fits truncated
  rollouts;
- with more than two players the search decides the plays and the last hand (``search=auto``):
  draws, collects and crow victims take the heuristic's one-step evaluation, because their
  worth shows only several opponents' turns later, beyond the rollout, while the last hand's
  shows at once in the final scoring. ``search=all`` and ``search=plays`` force one way.

Why the defaults are what they are, with the figures and the commands that measure them:
``docs/bots.md``.

The budget is a number of iterations, a time per move (``time.perf_counter``), or both (whichever
ends first). With an iteration budget and no time limit the search uses no clock at all, so a
seeded generator gives the same action every run.

A decision stops early (``stop="early"``, the default) once the rest of the budget cannot change
it: the move is the most visited child, so when its lead over the runner-up exceeds the
iterations left, further iterations cannot overtake it. With an iteration budget this is exact —
the same move as the full budget, for the same seed. With a time budget the iterations left are
estimated from the rate so far. ``stop="full"`` always spends the budget.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from piepmatz.core.state import GAME_OVER, LAST_HAND, PLAY, State
from piepmatz.core.view import PlayerView, Sampler

from .evaluate import rewards
from .heuristic import HeuristicBot


def random_action(world: State, legal: Sequence[int], rng: random.Random) -> int:
    """The rollout policy: uniform over the legal actions."""
    return legal[int(rng.random() * len(legal))] if len(legal) > 1 else legal[0]


#: Which decisions the tree searches: ``all``, only the ``plays`` (T1; the others take the
#: heuristic's one-step evaluation), or ``auto``: all in games of up to :data:`SEARCH_ALL_UP_TO`
#: players, :data:`SEARCHED_IN_LARGER_GAMES` in larger ones.
SEARCH_MODES = ("auto", "all", "plays")
STOP_MODES = ("early", "full")
#: With several opponents between two of one's turns, what a drawn bird or a collect is worth
#: lies beyond the rollout's horizon; the heuristic's direct valuation does as well, faster.
SEARCH_ALL_UP_TO = 2
#: The last hand (E3) is searched too: its worth shows at once in the final scoring.
SEARCHED_IN_LARGER_GAMES = frozenset((PLAY, LAST_HAND))
#: Short random rollouts scored by the evaluation beat longer ones and no rollout at all.
DEFAULT_DEPTH = 8
#: The UCB exploration constant in two-player games.
DEFAULT_C = 0.7
#: With more players the rewards of two moves differ by a few hundredths: 0.7 over-explores.
DEFAULT_C_MANY = 0.3


class Node:
    """An edge and the node it leads to: statistics of one action from its parent."""

    __slots__ = ("avail", "children", "mover", "visits", "wins")

    def __init__(self, mover: int) -> None:
        #: The player who took the action leading here; ``wins`` are in their reward.
        self.mover = mover
        self.visits = 0
        self.wins = 0.0
        self.avail = 1
        self.children: dict[int, Node] = {}


class ISMCTSBot:
    """SO-ISMCTS with a time and/or iteration budget per decision.

    Subclasses may replace :meth:`evaluate` (the rewards of a position where a rollout stops)
    and :meth:`sampler` (the worlds it searches), to measure a variant with ``benchmarks/bots.py
    match --plugin``.
    """

    #: Rewards in [0, 1] for every player of a world where a rollout stops.
    evaluate = staticmethod(rewards)
    reads_log = False  # worlds are sampled from the view's facts, not its log

    def __init__(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        depth: int = DEFAULT_DEPTH,
        c: float | None = None,
        search: str = "auto",
        name: str = "ismcts",
        stop: str = "early",
    ) -> None:
        if iterations is None and time_limit is None:
            raise ValueError("ISMCTS needs a budget: iterations, a time limit, or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"the time limit must be a positive number of seconds: {time_limit}")
        if depth < 0:
            raise ValueError(f"the rollout depth must be 0 or more, not {depth}")
        if c is not None and not c >= 0:
            raise ValueError(f"the exploration constant must be 0 or more, not {c}")
        if search not in SEARCH_MODES:
            raise ValueError(
                f"unknown search mode {search!r}: choose one of {', '.join(SEARCH_MODES)}"
            )
        if stop not in STOP_MODES:
            raise ValueError(f"unknown stop {stop!r}: choose one of {', '.join(STOP_MODES)}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.depth = depth
        self.c = c
        self.search_mode = search
        self.stop = stop
        self.name = name
        #: Takes the decisions the tree does not search (``search=plays``).
        self._heuristic = HeuristicBot()
        #: Iterations run by the last decision (for benchmarks and tests).
        self.last_iterations = 0

    def __repr__(self) -> str:
        return (
            f"ISMCTSBot(iterations={self.iterations}, time_limit={self.time_limit}, "
            f"depth={self.depth}, c={'auto' if self.c is None else self.c!r}, "
            f"search={self.search_mode!r}, stop={self.stop!r})"
        )

    def exploration(self, players: int) -> float:
        """The UCB constant: ``c`` if given, else by the number of players (``c=auto``)."""
        if self.c is not None:
            return self.c
        return DEFAULT_C if players <= SEARCH_ALL_UP_TO else DEFAULT_C_MANY

    def sampler(self, view: PlayerView, rng: random.Random) -> Sampler:
        """Deals the worlds of one decision: every hidden card at random, as the view allows."""
        return Sampler(view)

    def searches(self, view: PlayerView) -> bool:
        """Whether this decision is searched (or left to the heuristic), by ``search``."""
        mode = self.search_mode
        if mode == "auto":
            if view.num_players <= SEARCH_ALL_UP_TO:
                return True
            return view.phase in SEARCHED_IN_LARGER_GAMES
        return mode == "all" or view.phase == PLAY

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) == 1 or not self.searches(view):
            self.last_iterations = 0
            return self._heuristic.choose(view, legal, rng)  # which takes a lone option at once
        root = self.search(view, rng, stop_early=self.stop == "early")
        best = -1
        choice = legal[0]
        for a in legal:
            child = root.children.get(a)
            if child is not None and child.visits > best:
                best, choice = child.visits, a
        return choice

    def search(self, view: PlayerView, rng: random.Random, stop_early: bool = False) -> Node:
        """Run the search from ``view``; returns the root whose children hold the statistics.

        ``stop_early``: end once the most visited child can no longer be overtaken.
        """
        me = view.player
        root = Node(-1)
        sampler = self.sampler(view, rng)
        evaluate = self.evaluate
        max_depth = self.depth
        c = self.exploration(view.num_players)
        limit = self.iterations
        start = time.perf_counter() if self.time_limit is not None else 0.0
        deadline = None if self.time_limit is None else start + self.time_limit
        log, sqrt = math.log, math.sqrt
        done = 0
        now = start
        while limit is None or done < limit:
            # The clock is read every 8 iterations: cheap, and at most 8 iterations over.
            if not done & 7:
                if deadline is not None:
                    now = time.perf_counter()
                    if now >= deadline:
                        break
                if stop_early and done and not done & 63:
                    left = math.inf if limit is None else limit - done
                    if deadline is not None and now > start:
                        left = min(left, done / (now - start) * (deadline - now))
                    if _lead(root) > left:
                        break
            world = sampler.sample(rng)
            node = root
            path = []
            # Selection and expansion, over the actions available in this world.
            while world.phase != GAME_OVER:
                if world.phase == LAST_HAND and world.current_player != me:
                    break  # another player's secret choice: left to the rollout
                legal = world.legal_action_ids()
                children = node.children
                untried = []
                for a in legal:
                    child = children.get(a)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
                if untried:
                    a = untried[int(rng.random() * len(untried))]
                    node = Node(world.current_player)
                    children[a] = node
                    world.apply_id(a)
                    path.append(node)
                    break
                best_value = -1.0
                best_action = legal[0]
                best_child = node
                for a in legal:
                    child = children[a]
                    v = child.wins / child.visits + c * sqrt(log(child.avail) / child.visits)
                    if v > best_value:
                        best_value, best_action, best_child = v, a, child
                world.apply_id(best_action)
                node = best_child
                path.append(node)
            # Random rollout, cut off after ``max_depth`` decisions.
            steps = 0
            while steps < max_depth and world.phase != GAME_OVER:
                legal = world.legal_action_ids()
                world.apply_id(random_action(world, legal, rng))
                steps += 1
            reward = evaluate(world)
            for node in path:
                node.visits += 1
                node.wins += reward[node.mover]
            done += 1
        self.last_iterations = done
        return root


def _lead(root: Node) -> int:
    """Visits of the most visited child less those of the runner-up."""
    first = second = 0
    for child in root.children.values():
        v = child.visits
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second


__all__ = [
    "SEARCHED_IN_LARGER_GAMES",
    "SEARCH_MODES",
    "STOP_MODES",
    "ISMCTSBot",
    "Node",
]
