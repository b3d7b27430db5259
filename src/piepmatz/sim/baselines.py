"""The baseline table: every bot against every other at 2, 3 and 4 players, on deals fixed in
advance (``piepmatz baselines``).

**The games.** At ``n`` players every pair of bots plays the same deals: deal ``k`` of every
pair is the same cards and first player (one tournament seed per player count, from the run's
seed). A pair ``A``, ``B`` plays each deal with the two bots cycled over the seats and rotated
(``A B``, ``B A`` at two; ``A B A B`` and ``B A B A`` at four), and at an odd count both ways
round (``A B A`` and ``B A B``, each rotated), so each bot holds half the seat-games of every
deal and sits in every seat. A pair with a slow bot (``slow``, e.g. ``hard`` at a second a move)
plays only the first ``slow_deals`` of the deals.

**Head to head, paired by deal.** ``A``'s share of the wins of a deal's games (a shared win
counts ``1/w``; even is 50 % at every player count) is one number per deal, the same cards for
both bots, so the luck of the deal cancels inside it; the table gives the mean over the deals
and its Student *t* 95 % interval (at least the Wilson interval of the deals as trials).

**Ratings fitted jointly.** Over all the games of a player count at once: a Plackett–Luce
model, each bot a strength ``θ`` (``random`` fixed at 0), a game's places (E5's order) the
successive choices of the best among the seats left, a tie for a place by Breslow's
approximation and a tie for the last place carrying nothing. ``θ`` is fitted by maximum
likelihood with a weak normal prior (standard deviation 10) that keeps it finite when one bot
never loses to another; the ± is a 95 % interval, 1.96 standard errors from the observed
information (the inverse of the log-likelihood's curvature). Two bots ``θ`` apart: the first
beats the second at two players with probability ``1 / (1 + e^-(θa - θb))``.

**Extending a table.** A run's JSON keeps its settings and every game's places, so that
:func:`extend` can add bots to it: only the pairs with a new bot are played, on the same deals,
and the strengths are fitted again over all the games. A researcher places an agent on the
published table without playing the slow bots' pairs again.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from piepmatz.bots.base import derive_seed

from .play import GameResult, MatchConfig
from .stats import MeanInterval, mean_interval, wilson, z_value
from .tournament import ranks, win_shares

BASELINES_FORMAT: Final = "piepmatz-baselines"
BASELINES_VERSION: Final = 2
#: The prior's standard deviation on each strength: wide next to the fitted ones (a few units),
#: so that it moves them only where the games alone leave them unbounded.
PRIOR_SD: Final = 10.0


@dataclass(frozen=True)
class Pairing:
    """The games of one pair of bots at one player count: one or two tournaments on the same
    deals (``configs``)."""

    players: int
    first: str
    second: str
    configs: tuple[MatchConfig, ...]

    @property
    def games(self) -> int:
        return sum(c.total_games for c in self.configs)


def plan(
    bots: Sequence[str],
    players: Sequence[int],
    deals: int,
    seed: int,
    slow: Sequence[str] = (),
    slow_deals: int | None = None,
) -> list[Pairing]:
    """Every pair of ``bots`` at each player count, in order."""
    if len(set(bots)) != len(bots) or len(bots) < 2:
        raise ValueError(f"name at least two different bots, not {list(bots)}")
    if deals < 1 or (slow_deals is not None and slow_deals < 1):
        raise ValueError("every pair plays at least one deal")
    out = []
    for n in players:
        tournament_seed = derive_seed(seed, "baselines", n)
        for a, b in itertools.combinations(bots, 2):
            count = deals if slow_deals is None or not {a, b} & set(slow) else slow_deals
            orders = [(a, b)] if n % 2 == 0 else [(a, b), (b, a)]
            configs = []
            for order in orders:
                lineups = MatchConfig(n, order, 1, tournament_seed).lineups
                configs.append(MatchConfig(n, order, count * len(lineups), tournament_seed))
            out.append(Pairing(n, a, b, tuple(configs)))
    return out


def head_to_head(pairing: Pairing, results: Sequence[Sequence[GameResult]]) -> MeanInterval:
    """The first bot's share of the wins, one value per deal (``results``: per config): the
    mean over the deals and its t interval, widened to at least the Wilson interval of the
    deals counted as trials (a share varies no more than a win or a loss does), so that a bot
    that wins every deal of a few still gets an honest interval, not a point."""
    won: dict[int, float] = {}
    played: dict[int, int] = {}
    for config, games in zip(pairing.configs, results, strict=True):
        first = config.bots.index(pairing.first)
        for game in games:
            shares = win_shares(game)
            won[game.deal] = won.get(game.deal, 0.0) + math.fsum(
                s for s, e in zip(shares, game.lineup, strict=True) if e == first
            )
            played[game.deal] = played.get(game.deal, 0) + 1
    shares = [won[d] / played[d] for d in sorted(won)]
    t = mean_interval(shares, lowest=0.0, highest=1.0)
    low, high = wilson(math.fsum(shares), len(shares))
    return replace(t, low=min(t.low, low), high=max(t.high, high))


@dataclass(frozen=True)
class Strengths:
    """Fitted Plackett–Luce strengths: ``theta[i]`` of ``bots[i]``, ``half[i]`` the half-width
    of its 95 % interval (0 for the bot held at 0)."""

    bots: tuple[str, ...]
    theta: tuple[float, ...]
    half: tuple[float, ...]
    games: int
    reference: str


def fit_plackett_luce(
    bots: Sequence[str],
    games: Sequence[tuple[Sequence[int], Sequence[int]]],
    reference: int = 0,
    prior_sd: float = PRIOR_SD,
) -> Strengths:
    """Strengths of ``bots`` from ``games``, each (the bot index in each seat, each seat's
    place, 1 the best): Newton's method on the penalised log-likelihood (concave, so it
    converges from 0), ``bots[reference]`` held at 0."""
    import numpy as np

    k = len(bots)
    free = [i for i in range(k) if i != reference]
    # Each game as its stages: (the bots choosing at this place, the bots still in).
    stages: list[tuple[list[int], list[int]]] = []
    for entries, places in games:
        left = sorted(range(len(entries)), key=lambda s: places[s])
        while left:
            place = places[left[0]]
            group = [s for s in left if places[s] == place]
            if len(group) == len(left):
                break  # the last place, alone or tied, says nothing of order
            stages.append(([entries[s] for s in group], [entries[s] for s in left]))
            left = left[len(group) :]
    theta = np.zeros(k)
    precision = 1.0 / prior_sd**2
    hessian = np.eye(len(free))
    for _ in range(100):
        grad = -precision * theta
        hess = -precision * np.eye(k)
        for group, left in stages:
            weights = np.exp(theta[left] - theta[left].max())
            q = np.zeros(k)
            np.add.at(q, left, weights / weights.sum())
            m = len(group)
            np.add.at(grad, group, 1.0)
            grad -= m * q
            hess -= m * (np.diag(q) - np.outer(q, q))
        g, hessian = grad[free], hess[np.ix_(free, free)]
        step = np.linalg.solve(hessian, g)
        theta[free] -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(-hessian)))
    half = np.zeros(k)
    half[free] = z_value() * se
    return Strengths(
        tuple(bots),
        tuple(float(t) for t in theta),
        tuple(float(h) for h in half),
        len(games),
        bots[reference],
    )


@dataclass(frozen=True)
class Settings:
    """What a run plays: its bots, player counts, deals per pair and seed, and the bots whose
    pairs play only ``slow_deals`` deals."""

    bots: tuple[str, ...]
    players: tuple[int, ...]
    deals: int
    seed: int
    slow: tuple[str, ...] = ()
    slow_deals: int | None = None

    def pairings(self, plugins: tuple[str, ...] = ()) -> list[Pairing]:
        pairings = plan(self.bots, self.players, self.deals, self.seed, self.slow, self.slow_deals)
        return [
            replace(p, configs=tuple(replace(c, plugins=plugins) for c in p.configs))
            for p in pairings
        ]


#: A game's places as the JSON keeps them: a bot index and a place per seat.
Places = tuple[list[int], list[int]]


@dataclass
class Baselines:
    """A finished run: every pairing's head-to-head figure and each player count's fit."""

    settings: Settings
    pairings: list[Pairing]
    duels: list[MeanInterval]
    #: Every game's places, per player count: the seats' bots (indices into ``bots``) and
    #: their places (E5's order), what the fit reads.
    places: dict[int, list[Places]]

    @functools.cached_property
    def strengths(self) -> dict[int, Strengths]:
        """Each player count's Plackett–Luce fit over all its games (``random`` = 0)."""
        bots = self.bots
        reference = bots.index("random") if "random" in bots else 0
        return {
            n: fit_plackett_luce(bots, played, reference)
            for n, played in sorted(self.places.items())
        }

    @property
    def bots(self) -> tuple[str, ...]:
        return self.settings.bots

    def to_json(self) -> dict[str, Any]:
        settings = self.settings
        return {
            "format": BASELINES_FORMAT,
            "version": BASELINES_VERSION,
            "bots": list(settings.bots),
            "players": list(settings.players),
            "deals": settings.deals,
            "seed": settings.seed,
            "slow": list(settings.slow),
            "slow_deals": settings.slow_deals,
            "pairings": [
                {
                    "players": p.players,
                    "first": p.first,
                    "second": p.second,
                    "deals": p.configs[0].deals,
                    "games": p.games,
                    "share": d.mean,
                    "low": d.low,
                    "high": d.high,
                }
                for p, d in zip(self.pairings, self.duels, strict=True)
            ],
            "strengths": {
                str(n): {
                    "reference": s.reference,
                    "games": s.games,
                    "theta": dict(zip(s.bots, s.theta, strict=True)),
                    "half": dict(zip(s.bots, s.half, strict=True)),
                }
                for n, s in self.strengths.items()
            },
            # One string a game, "bot:place" per seat ("0:2 3:1"): compact, and a line each.
            "places": {
                str(n): [
                    " ".join(f"{e}:{p}" for e, p in zip(entries, order, strict=True))
                    for entries, order in played
                ]
                for n, played in sorted(self.places.items())
            },
        }

    @classmethod
    def from_json(cls, data: object) -> Baselines:
        """A run read back from :meth:`to_json`'s output; ``ValueError`` says what is wrong."""
        if not isinstance(data, dict) or data.get("format") != BASELINES_FORMAT:
            raise ValueError(f"not a {BASELINES_FORMAT} file")
        if data.get("version") != BASELINES_VERSION:
            raise ValueError(
                f"version {data.get('version')!r}: this piepmatz reads version "
                f"{BASELINES_VERSION} (a run of an older one is played again)"
            )
        try:
            settings = Settings(
                tuple(_strings(data["bots"])),
                tuple(int(n) for n in data["players"]),
                int(data["deals"]),
                int(data["seed"]),
                tuple(_strings(data["slow"])),
                None if data["slow_deals"] is None else int(data["slow_deals"]),
            )
            pairings = {(p.players, p.first, p.second): p for p in settings.pairings()}
            duels: dict[tuple[int, str, str], MeanInterval] = {}
            for row in data["pairings"]:
                key = (int(row["players"]), str(row["first"]), str(row["second"]))
                if key not in pairings:
                    raise ValueError(f"a pairing {key} that the settings do not play")
                share, low, high = (float(row[f]) for f in ("share", "low", "high"))
                # The deals' spread is not kept: the table shows the interval.
                duels[key] = MeanInterval(
                    pairings[key].configs[0].deals, share, math.nan, low, high
                )
            if set(duels) != set(pairings):
                raise ValueError("pairings missing: the run did not finish")
            places = {
                int(n): [_places(game, len(settings.bots), int(n)) for game in games]
                for n, games in data["places"].items()
            }
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            detail = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
            raise ValueError(f"a broken {BASELINES_FORMAT} file: {detail}") from None
        if sorted(places) != sorted(settings.players):
            raise ValueError(f"a broken {BASELINES_FORMAT} file: places for {sorted(places)}")
        return cls(
            settings,
            list(pairings.values()),
            [duels[key] for key in pairings],
            places,
        )

    def markdown(self) -> str:
        """The tables: per player count, the head-to-head matrix (the row bot's share of the
        wins against the column bot, its interval and the deals), then the fitted strengths."""
        lines: list[str] = []
        counts = sorted(self.strengths)
        for n in counts:
            lines += [
                f"**{n} players**: the row bot's share of the wins against the column bot",
                "",
            ]
            lines.append("| | " + " | ".join(f"`{b}`" for b in self.bots) + " |")
            lines.append("|---" * (len(self.bots) + 1) + "|")
            cell: dict[tuple[str, str], str] = {}
            for p, d in zip(self.pairings, self.duels, strict=True):
                if p.players != n:
                    continue
                deals = p.configs[0].deals
                cell[p.first, p.second] = _share(d.mean, d.low, d.high, deals)
                cell[p.second, p.first] = _share(1 - d.mean, 1 - d.high, 1 - d.low, deals)
            for a in self.bots:
                row = [cell.get((a, b), "—") for b in self.bots]
                lines.append(f"| `{a}` | " + " | ".join(row) + " |")
            lines.append("")
        reference = self.strengths[counts[0]].reference if counts else ""
        lines.append(
            f"**Strengths** (Plackett–Luce, fitted over all the games of a player count; "
            f"`{reference}` = 0; ± a 95 % interval)"
        )
        lines.append("")
        lines.append("| bot | " + " | ".join(f"{n} players" for n in counts) + " |")
        lines.append("|---" * (len(counts) + 1) + "|")
        for i, bot in enumerate(self.bots):
            row = []
            for n in counts:
                s = self.strengths[n]
                row.append(f"{s.theta[i]:+.2f} ± {s.half[i]:.2f}" if s.half[i] else "0")
            lines.append(f"| `{bot}` | " + " | ".join(row) + " |")
        return "\n".join(lines) + "\n"


def _share(mean: float, low: float, high: float, deals: int) -> str:
    def percent(x: float) -> str:
        return f"{100 * min(max(x, 0.0), 1.0):.1f}"

    return f"{percent(mean)} % [{percent(low)}, {percent(high)}] ({deals})"


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{value!r} is not a list of names")
    return value


def _places(game: object, bots: int, players: int) -> Places:
    """One game of the JSON's ``places`` ("bot:place" per seat), checked."""
    if not isinstance(game, str):
        raise ValueError(f"a game {game!r} is not a string")
    seats = [part.split(":") for part in game.split()]
    if len(seats) != players or any(len(seat) != 2 for seat in seats):
        raise ValueError(f"a game {game!r} is not {players} seats of bot:place")
    entries, order = [int(e) for e, _ in seats], [int(p) for _, p in seats]
    if not all(0 <= e < bots for e in entries) or not all(1 <= p <= players for p in order):
        raise ValueError(f"a game {game!r} names a bot or a place out of range")
    return entries, order


def run_baselines(
    settings: Settings,
    pairings: list[Pairing],
    play: Callable[[MatchConfig], list[GameResult]],
    earlier: Baselines | None = None,
) -> Baselines:
    """Play ``pairings`` (``play`` runs one tournament's games), then the figures; with
    ``earlier`` (a run of some of ``settings.bots``, on the same deals) its pairings and games
    are kept, and the strengths fitted over them all."""
    bots = settings.bots
    done = list(earlier.pairings) if earlier else []
    duels = list(earlier.duels) if earlier else []
    games = {n: list(played) for n, played in earlier.places.items()} if earlier else {}
    for pairing in pairings:
        results = [play(config) for config in pairing.configs]
        done.append(pairing)
        duels.append(head_to_head(pairing, results))
        for config, played in zip(pairing.configs, results, strict=True):
            for game in played:
                entries = [bots.index(config.bots[e]) for e in game.lineup]
                games.setdefault(pairing.players, []).append((entries, ranks(game)))
    return Baselines(settings, done, duels, games)


def extend(
    earlier: Baselines,
    bots: Sequence[str],
    slow: Sequence[str] = (),
    plugins: tuple[str, ...] = (),
) -> tuple[Settings, list[Pairing]]:
    """The settings with ``bots`` added to ``earlier``'s (``slow``: those of them that are
    slow), and the pairings still to play: those with a new bot, on the earlier run's deals."""
    again = [b for b in bots if b in earlier.bots]
    if again:
        raise ValueError(f"{', '.join(again)} played in the earlier run already")
    if not bots:
        raise ValueError("name the bots to add")
    if not set(slow) <= set(bots):
        other = ", ".join(b for b in slow if b not in bots)
        raise ValueError(f"the slow bots must be among those added, not {other}")
    settings = replace(
        earlier.settings,
        bots=earlier.bots + tuple(bots),
        slow=tuple(dict.fromkeys(earlier.settings.slow + tuple(slow))),
    )
    new = set(bots)
    return settings, [p for p in settings.pairings(plugins) if {p.first, p.second} & new]
