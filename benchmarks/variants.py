"""ISMCTS variants screened against the heuristic, as a plugin for ``bots.py match --plugin``.

None of them is part of the product: each was measured and found no better (figures in the
README's Bots section). They are kept so the screens can be run again::

    python benchmarks/bots.py match rmean:time=0.25,depth=16 heuristic --plugin \
        benchmarks/variants.py --players 4 --games 100 --processes 1 --first-deal 20000

Every variant takes the options of ``ismcts:…`` (parsed by the product's own factory) and
changes one thing:

- ``mix:k=K,…``: the first K decisions of each rollout follow the heuristic, the rest are random
  (a better model of heuristic opponents where their reply matters most);
- ``rmean:…``: the reward is a sigmoid of the lead over the *mean* of the others, not the best;
- ``rpair:…``: the reward is the mean of the sigmoids of the leads over each other player;
- ``ens:…``: half the iterations build the tree of every decision, the time of the other half
  a tree of plays (``tree=plays``, which runs at 0.77 times the rate), and the move is the one
  with the largest sum of the two trees' shares of root visits;
- ``scoll:…``: the search decides plays, collects (T2.2) and crow victims, not the last hand.

``ens`` and ``scoll`` were measured against the search of plays only, before the last hand
joined ``search=auto`` (``ens`` now searches the last hand too, with its two trees).

``benchmarks/learned.py`` is a variant of the same kind with a learned leaf estimate.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from piepmatz.bots import ISMCTSBot, make_bot, register
from piepmatz.bots.evaluate import final_values, sigmoid
from piepmatz.bots.ismcts import Policy, heuristic_action, random_action
from piepmatz.core.state import COLLECT, CROW_VICTIM, PLAY, State
from piepmatz.core.view import PlayerView


class MeanMargin(ISMCTSBot):
    @staticmethod
    def evaluate(world: State) -> list[float]:  # type: ignore[override]
        values = final_values(world)
        n = len(values)
        total = sum(values)
        return [sigmoid(v - (total - v) / (n - 1)) for v in values]


class PairwiseMargins(ISMCTSBot):
    @staticmethod
    def evaluate(world: State) -> list[float]:  # type: ignore[override]
        values = final_values(world)
        n = len(values)
        return [
            sum(sigmoid(v - w) for q, w in enumerate(values) if q != p) / (n - 1)
            for p, v in enumerate(values)
        ]


class HeuristicFirst(ISMCTSBot):
    heuristic_steps = 2

    def rollout_policy(self) -> Policy:
        # A new rollout starts on a new world object, so the step count restarts with it.
        k = self.heuristic_steps
        current: list[object] = [None]
        steps = [0]

        def policy(world: State, legal: Sequence[int], rng: random.Random) -> int:
            if world is not current[0]:
                current[0] = world
                steps[0] = 0
            steps[0] += 1
            if steps[0] <= k:
                return heuristic_action(world, legal, rng)
            return random_action(world, legal, rng)

        return policy


class TwoTrees(ISMCTSBot):
    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        if len(legal) == 1 or not self.searches(view):
            return super().choose(view, legal, rng)
        budget = self.iterations
        assert budget is not None, "ens takes an iteration budget"
        every = max(1, budget // 2)
        plays = max(1, int((budget - every) * 0.77))  # equal time: the tree of plays is slower
        shares = dict.fromkeys(legal, 0.0)
        try:
            for tree, n in (("all", every), ("plays", plays)):
                self.tree, self.iterations = tree, n
                root = self.search(view, rng)
                for a in legal:
                    child = root.children.get(a)
                    if child is not None:
                        shares[a] += child.visits / n
        finally:
            self.tree, self.iterations = "all", budget
        return max(legal, key=shares.__getitem__)


class SearchCollects(ISMCTSBot):
    def searches(self, view: PlayerView) -> bool:
        return view.phase in (PLAY, COLLECT, CROW_VICTIM)


def _variant(name: str, cls: type[ISMCTSBot]) -> Callable[[str], ISMCTSBot]:
    def build(arg: str) -> ISMCTSBot:
        options = [o for o in arg.split(",") if o]
        own = dict(o.split("=", 1) for o in options if o.startswith("k="))
        rest = ",".join(o for o in options if not o.startswith("k="))
        bot = make_bot(f"ismcts:{rest}" if rest else "ismcts")
        assert isinstance(bot, ISMCTSBot)
        # The product's factory parses and checks every ismcts option; the variant only swaps
        # the class, whose methods are all it changes.
        bot.__class__ = cls
        if "k" in own:
            bot.heuristic_steps = int(own["k"])  # type: ignore[attr-defined]
        bot.name = f"{name}:{arg}" if arg else name
        return bot

    return build


register("mix", _variant("mix", HeuristicFirst))
register("rmean", _variant("rmean", MeanMargin))
register("rpair", _variant("rpair", PairwiseMargins))
register("ens", _variant("ens", TwoTrees))
register("scoll", _variant("scoll", SearchCollects))
