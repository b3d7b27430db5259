"""Information Set Monte Carlo Tree Search (Cowling, Powley & Whitehouse 2012).

This is **single-observer ISMCTS** (SO-ISMCTS, the paper's Algorithm 2) with one tree per
decision, seen from the searching player's information set:

- every iteration deals the hidden cards anew from the searching player's view
  (:class:`~piepmatz.bots.evaluate.Resampler`, the same distribution as
  :func:`~piepmatz.core.view.determinise`), so the tree only ever branches on what that player
  can observe;
- a node's children are actions; the actions legal in the current world are the "available"
  ones, and UCB1 uses each child's availability count instead of the parent's visits (the
  subset-armed bandit of the paper);
- each node is owned by the player who acts there and its edges carry *that* player's reward, so
  opponents choose what is good for them (the tree is built per acting player);
- every action of Piepmatz is public except the secret choice of the last hand (E3). The tree
  stops before another player's last-hand choice and leaves it to the rollout, which is exactly
  where single- and multiple-observer ISMCTS would differ: the tree never holds anything the
  searching player could not have seen;
- the rollout plays a cheap policy (``random`` by default, or the ``greedy`` rule of thumb or
  the full ``heuristic``) for at most ``depth`` decisions and then scores the world with
  :func:`~piepmatz.bots.evaluate.rewards`: a sigmoid of each player's estimated final score
  margin, in [0, 1]. A margin reward keeps a signal in lost or won positions and fits truncated
  rollouts, where "who wins" is only an estimate anyway. ``reward=win`` scores a rollout that
  reaches the end 1 / 0 (shared wins split) instead; with rollouts cut at a few decisions it only
  matters near the end of the game, and it was not measured to play better;
- with more than two players the search decides the plays and the last hand (``search=auto``):
  draws, collects and crow victims take the heuristic's one-step evaluation, because their
  worth shows only several opponents' turns later, beyond the rollout (figures at
  :data:`SEARCH_ALL_UP_TO`), while the last hand's shows at once in the final scoring
  (:data:`SEARCHED_IN_LARGER_GAMES`). ``search=all`` and ``search=plays`` force one way;
- the tree holds a node for every decision below the root (``tree=all``). ``tree=plays`` keeps
  only the plays: the other decisions of the sampled world follow the greedy rule (whose draws
  are the heuristic's) and take no node, and an opponent's play is one of the ``widen`` whose
  first chase step gains most, so the iterations reach the whole round rather than the
  searching player's own draws. It plays better at a quarter of a second per move and not at
  one second (figures at :data:`DEFAULT_TREE`).

Measured choices (``benchmarks/bots.py``, 0.1 s per move against the heuristic, 60 two-player
games each): random rollouts cut at 6 decisions won 88 %, at 12 82 %, at 3 79 %, at 25 62 %,
with no rollout (evaluation at the leaf) 43 %; greedy rollouts at 6 decisions 72 %. The default
cut is 8, between the two best.

The budget is a number of iterations, a time per move (``time.perf_counter``), or both (whichever
ends first). With an iteration budget and no time limit the search uses no clock at all, so a
seeded generator gives the same action every run.

A decision stops early (``stop="early"``, the default) once the rest of the budget cannot change
it: the move is the most visited child, so when its lead over the runner-up exceeds the
iterations left, further iterations cannot overtake it. With an iteration budget this is exact —
the same move as the full budget, for the same seed — and at 14,400 iterations it saved 8–21 %
of them over the positions measured (``benchmarks/bots.py speed --ismcts
ismcts:iterations=14400`` prints the share used). With a time budget the iterations left are
estimated from the rate so far. ``stop="full"`` always spends the budget.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from piepmatz.core.actions import MAX_PERCHES
from piepmatz.core.cards import BIRD_VALUE
from piepmatz.core.scoring import score
from piepmatz.core.state import GAME_OVER, LAST_HAND, PLAY, State
from piepmatz.core.view import PlayerView

from .evaluate import EXPOSURE_WEIGHT, Resampler, chase_gain, rewards
from .heuristic import HeuristicBot, best_by_evaluation, greedy_action

Policy = Callable[[State, Sequence[int], random.Random], int]


def random_action(world: State, legal: Sequence[int], rng: random.Random) -> int:
    return legal[int(rng.random() * len(legal))] if len(legal) > 1 else legal[0]


def heuristic_action(world: State, legal: Sequence[int], rng: random.Random) -> int:
    if len(legal) == 1:
        return legal[0]
    return best_by_evaluation(world, legal, rng, EXPOSURE_WEIGHT)


ROLLOUT_POLICIES: dict[str, Policy] = {
    "greedy": greedy_action,
    "random": random_action,
    "heuristic": heuristic_action,
}
REWARDS = ("margin", "win")
#: Which decisions the tree searches: ``all`` of them, only the ``plays`` (T1; the other
#: decisions take the heuristic's one-step evaluation), or ``auto``: all of them in games of up
#: to :data:`SEARCH_ALL_UP_TO` players, the plays and the last hand in larger ones
#: (:data:`SEARCHED_IN_LARGER_GAMES`).
SEARCH_MODES = ("auto", "all", "plays")
#: What the tree holds below the root: a node for ``all`` decisions, or only for the ``plays``
#: (T1), the other decisions of the tree's worlds then following the greedy rule (the same draw
#: rule as the heuristic's). Measured at :data:`DEFAULT_TREE`.
TREE_MODES = ("all", "plays")
STOP_MODES = ("early", "full")
#: Measured (benchmarks/bots.py, 1,000 iterations, seats rotated over the same deals, against
#: heuristic bots): in two-player games searching every decision won 83.8 % of 200 games against
#: 76.0 % when only plays are searched; in three-player games 48.8 % against 50.2 % (300 games:
#: equal, and searching only plays takes half the time); in four-player games 34.2 % against
#: 40.1 % (400 games). With several opponents between two of one's turns, what a drawn bird or a
#: collect is worth lies beyond the rollout's horizon and the search's estimate of it is mostly
#: noise; the heuristic's direct valuation does as well or better.
SEARCH_ALL_UP_TO = 2
#: What ``search=auto`` searches in larger games: the plays, and the last hand (E3), whose worth
#: shows at once in the final scoring, so the rollout reaches it. Measured (benchmarks/bots.py
#: pool --paired, four players, 1,440 iterations, deals 6000-6199 x 4 seats, against three
#: heuristic bots): 41.0 % against 39.4 % with the heuristic's last hand, +1.6 points
#: [+0.6, +2.7] over 800 paired games (identical until the last hand). The heuristic with a
#: searched last hand against heuristics gained +0.8 [+0.3, +1.3] (four players, 4,000 games) and
#: +1.0 [+0.4, +1.6] (three, 3,000). At 14,400 iterations (deals 11000-11099 and 12000-12099)
#: it made no difference that shows: 40.2 % against 40.0 %, +0.2 [-0.9, +1.3] over 800 paired
#: games.
SEARCHED_IN_LARGER_GAMES = frozenset((PLAY, LAST_HAND))
#: Defaults chosen by measurement against the heuristic at equal time (benchmarks/bots.py):
#: short random rollouts scored by the evaluation beat longer ones, greedy rollouts and no
#: rollout at all.
DEFAULT_ROLLOUT = "random"
DEFAULT_DEPTH = 8
DEFAULT_C = 0.7
#: The exploration constant for games of more than :data:`SEARCH_ALL_UP_TO` players. Measured
#: (benchmarks/bots.py pool --paired, four players, 1,440 iterations, against three heuristic
#: bots, deals 6000-6199 and 8000-8099): c = 0.3 won 39.4 % of 1,200 games against 35.3 % for
#: 0.7, a paired difference of +4.1 points [+0.4, +7.8]. Rewards are sigmoids of score margins
#: and differ between moves by a few hundredths, so 0.7 spends most iterations exploring. With
#: three players (250 paired games, deals 9000-9099): +2.8 points [-5.5, +11.1], the same way.
#: Around it (four players, deals 6000-6199, paired against 0.3): c = 0.15 -1.9 points
#: [-6.6, +2.7], c = 0.45 -3.9 [-8.4, +0.6]; 0.3 is the best value measured.
DEFAULT_C_MANY = 0.3
#: Measured (benchmarks/bots.py pool --paired, four players, against three heuristic bots). In
#: a four-player round each play is followed by a draw or two and three opponents' turns; with
#: draws as nodes the iterations spread over the searching player's own draws and resolve only
#: the next player's reply (a tournament gave the heuristic seated after the search 13 %, the two
#: beyond 27-28 %). A tree of plays (``widen=4``) reaches the players two and three seats away:
#: at 0.25 s per move (deals 20000-20099 x 4 seats, both arms at once) it won 41.2 % of 400
#: games against 33.8 %, +7.5 points [+0.8, +14.1]. At one second it did not (deals
#: 11000-11099, 11,000 iterations against 14,400, the idle machine's rate of each): 39.9 %
#: against 42.8 %, -2.9 points [-9.7, +3.9]; with widen=0 (13,000 iterations) -3.8 [-10.4, +2.9].
#: It reaches about 40 % within a quarter of a second (2,750 iterations: 40.8 % on the same
#: deals) and no further. With three players (1,440 iterations, deals 9000-9099): 48.7 % against
#: 50.5 %, -1.8 [-9.5, +5.8]. The tree of every decision stays the default.
DEFAULT_TREE = "all"
#: In a tree of plays, an opponent's play below the root is chosen among only this many: the
#: plays whose first chase step gains most (:func:`~piepmatz.bots.evaluate.chase_gain`, ties in
#: random order), a cheap model of what a player looks at first. ``widen=0`` keeps them all.
#: Measured at 0.25 s per move as at :data:`DEFAULT_TREE`, paired against ``widen=0``: +3.2
#: points [-3.5, +10.0] on deals 20000-20099, +0.1 [-6.5, +6.7] on 20100-20199 (43.1 % and
#: 43.0 %).
DEFAULT_WIDEN = 4


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

    Subclasses may replace :meth:`evaluate` (the rewards of a position where a rollout stops),
    :meth:`rollout_policy` and :meth:`sampler` (the worlds it searches);
    ``benchmarks/variants.py`` measures variants that way, ``benchmarks/ceiling.py`` what the
    search would win if it were told the hidden cards.
    """

    #: Rewards in [0, 1] for every player of a world where a rollout stops (``reward=margin``).
    evaluate = staticmethod(rewards)

    def __init__(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        rollout: str = DEFAULT_ROLLOUT,
        depth: int = DEFAULT_DEPTH,
        c: float | None = None,
        reward: str = "margin",
        search: str = "auto",
        name: str = "ismcts",
        stop: str = "early",
        tree: str = DEFAULT_TREE,
        widen: int = DEFAULT_WIDEN,
    ) -> None:
        if iterations is None and time_limit is None:
            raise ValueError("ISMCTS needs a budget: iterations, a time limit, or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"the time limit must be a positive number of seconds: {time_limit}")
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(
                f"unknown rollout policy {rollout!r}: choose one of {', '.join(ROLLOUT_POLICIES)}"
            )
        if depth < 0:
            raise ValueError(f"the rollout depth must be 0 or more, not {depth}")
        if c is not None and not c >= 0:
            raise ValueError(f"the exploration constant must be 0 or more, not {c}")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}: choose one of {', '.join(REWARDS)}")
        if search not in SEARCH_MODES:
            raise ValueError(
                f"unknown search mode {search!r}: choose one of {', '.join(SEARCH_MODES)}"
            )
        if tree not in TREE_MODES:
            raise ValueError(f"unknown tree {tree!r}: choose one of {', '.join(TREE_MODES)}")
        if widen < 0:
            raise ValueError(f"widen must be 0 (every play) or more, not {widen}")
        if stop not in STOP_MODES:
            raise ValueError(f"unknown stop {stop!r}: choose one of {', '.join(STOP_MODES)}")
        self.iterations = iterations
        self.time_limit = time_limit
        self.rollout = rollout
        self.depth = depth
        self.c = c
        self.reward = reward
        self.search_mode = search
        self.tree = tree
        self.widen = widen
        self.stop = stop
        self.name = name
        #: Takes the decisions the tree does not search (``search=plays``).
        self._heuristic = HeuristicBot()
        #: Iterations run by the last decision (for benchmarks and tests).
        self.last_iterations = 0

    def __repr__(self) -> str:
        return (
            f"ISMCTSBot(iterations={self.iterations}, time_limit={self.time_limit}, "
            f"rollout={self.rollout!r}, depth={self.depth}, "
            f"c={'auto' if self.c is None else self.c!r}, reward={self.reward!r}, "
            f"search={self.search_mode!r}, tree={self.tree!r}, widen={self.widen}, "
            f"stop={self.stop!r})"
        )

    def exploration(self, players: int) -> float:
        """The UCB constant: ``c`` if given, else by the number of players (``c=auto``)."""
        if self.c is not None:
            return self.c
        return DEFAULT_C if players <= SEARCH_ALL_UP_TO else DEFAULT_C_MANY

    def rollout_policy(self) -> Policy:
        """The policy that plays the rollouts (``rollout=…``)."""
        return ROLLOUT_POLICIES[self.rollout]

    def sampler(self, view: PlayerView, rng: random.Random) -> Resampler:
        """Deals the worlds of one decision: every hidden card at random, as the view allows."""
        return Resampler(view, rng)

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
        policy = self.rollout_policy()
        evaluate = self.evaluate
        max_depth = self.depth
        c = self.exploration(view.num_players)
        win_reward = self.reward == "win"
        plays_only = self.tree == "plays"
        widen = self.widen if plays_only else 0
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
                if plays_only and node is not root:
                    if world.phase != PLAY:
                        world.apply_id(greedy_action(world, legal, rng))
                        continue
                    if widen and world.current_player != me and len(legal) > widen:
                        legal = likeliest_plays(world, legal, widen, rng)
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
            # Rollout, cut off after ``max_depth`` decisions.
            steps = 0
            while steps < max_depth and world.phase != GAME_OVER:
                legal = world.legal_action_ids()
                world.apply_id(policy(world, legal, rng))
                steps += 1
            if win_reward and world.phase == GAME_OVER:
                reward = _win_rewards(world)
            else:
                reward = evaluate(world)
            for node in path:
                node.visits += 1
                node.wins += reward[node.mover]
            done += 1
        self.last_iterations = done
        return root


def likeliest_plays(world: State, legal: Sequence[int], k: int, rng: random.Random) -> list[int]:
    """The ``k`` plays of ``legal`` whose first chase step gains most, ties in random order."""
    rows, column, pests = world.rows, world.column, world.column_pests
    collection = world.collections[world.current_player]
    r = rng.random
    ranked = sorted(
        (
            -chase_gain(
                rows[a % MAX_PERCHES], column, pests, BIRD_VALUE[a // MAX_PERCHES], collection
            )
            - 0.01 * r(),  # below the gains' steps of 0.5: only breaks ties
            a,
        )
        for a in legal
    )
    return [a for _, a in ranked[:k]]


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


def _win_rewards(world: State) -> list[float]:
    """1 for a sole winner, shared equally on a shared win, 0 for the others (E5)."""
    n = world.num_players
    piles = [world.seeds_seen[p] + world.seeds_blind[p] for p in range(n)]
    winners = score(world.rules, world.collections, piles).winners
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]


__all__ = [
    "ROLLOUT_POLICIES",
    "SEARCHED_IN_LARGER_GAMES",
    "SEARCH_MODES",
    "STOP_MODES",
    "TREE_MODES",
    "ISMCTSBot",
    "Node",
    "likeliest_plays",
    "random_action",
]
