"""The work of ``piepmatz review``: search every decision of the game read
(:func:`piepmatz.records.load_game`) in a process pool with a progress bar, and write the report
as text or JSON, and the plot."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from piepmatz.bots.analysis import (
    CATEGORIES,
    GRADE_NAMES,
    GRADES,
    DecisionReview,
    Summary,
    decisions,
    iter_reviews,
    summarise,
)
from piepmatz.core import Action, Game, dump_json
from piepmatz.core.state import PHASE_NAMES
from piepmatz.i18n import _
from piepmatz.text.lines import wrapped
from piepmatz.text.numbers import count, decimal, percent
from piepmatz.text.words import GRADE_WORDS, action_words, phase_words, rules_words, seat_name


def run(
    args: argparse.Namespace,
    game: Game,
    label: str,
    seat: int,
    names: Sequence[str] | None = None,
) -> int:
    """Review ``seat``'s decisions (0-based; people name the player from 1). ``names``: the
    seats as an online game's record names them, else "Player N"."""
    from tqdm import tqdm

    total = sum(1 for _ in decisions(game, seat))
    reviews: list[DecisionReview] = []
    with tqdm(
        total=total,
        desc="review",
        unit="decision",
        file=sys.stderr,
        disable=args.quiet or not sys.stderr.isatty(),
    ) as bar:
        try:
            for r in iter_reviews(game, seat, args.iterations, args.seed, args.processes):
                reviews.append(r)
                bar.update(1)
        except BrokenProcessPool:
            sys.stderr.write(
                "piepmatz review: error: a worker process died (killed, or out of memory); "
                "try again with --processes 1\n"
            )
            return 1
    summary = summarise(reviews)
    if args.json:
        doc = report_json(game, label, seat, args.iterations, args.seed, reviews, summary)
        sys.stdout.write(dump_json(doc, indent=1) + "\n")
    else:
        sys.stdout.write(
            report_text(
                game, label, seat, args.iterations, reviews, summary, names[seat] if names else None
            )
        )
    if args.plot:
        try:
            plot_win_chances(game, seat, reviews, args.plot, names)
        except OSError as exc:
            sys.stderr.write(f"piepmatz review: error: cannot write {args.plot}: {exc}\n")
            return 1
    return 0


def _describe(game: Game, label: str) -> str:
    o = game.options
    state = "finished" if game.state.is_over() else f"unfinished, {len(game.actions)} actions"
    return f"{label}: {o.players} players, {o.rules.name} rules, seed {o.seed} ({state})"


def report_json(
    game: Game,
    label: str,
    player: int,
    iterations: int,
    seed: int,
    reviews: Sequence[DecisionReview],
    summary: Summary,
) -> dict[str, Any]:
    return {
        "game": _describe(game, label),
        "player": player,
        "iterations": iterations,
        "seed": seed,
        "grades": {name: bound for name, bound in GRADES},
        "summary": summary.to_json(),
        "decisions": [r.to_json() for r in reviews],
    }


def report_text(
    game: Game,
    label: str,
    player: int,
    iterations: int,
    reviews: Sequence[DecisionReview],
    summary: Summary,
    who: str | None = None,
) -> str:
    """The review as text, the player named ``who`` (else "Player N")."""
    who = who or seat_name(player)
    o = game.options
    if game.state.is_over():
        about = _("{game}: {players} players, {rules}, seed {seed} (finished)")
    else:
        about = _("{game}: {players} players, {rules}, seed {seed} (unfinished, {moves} actions)")
    about = about.format(
        game=label,
        players=o.players,
        rules=rules_words(o.rules.name),
        seed=o.seed,
        moves=len(game.actions),
    )
    # Each decision in two lines, to fit an 80-column terminal: its figures under the headings,
    # then the moves in words (as the terminal lists them), which alone may be long.
    heads = [_("turn"), _("kind"), _("lead of best"), _("win"), _("lost"), _("win Δ"), _("grade")]
    kinds = {r.phase: _kind(r.phase) for r in reviews}
    least = (4, max(map(len, kinds.values()), default=0), 13, 4, 5, 6, 0)
    w = [max(len(h), n) for h, n in zip(heads, least, strict=True)]
    said = [
        _("Review of {player} — {game}").format(player=who, game=about),
        _("The search: {iterations} iterations per option, from the view of {player} only.").format(
            iterations=count(iterations), player=who
        ),
        _(
            "lead: the expected final lead over the best other player, in points, ± its "
            "spread over the sampled worlds; win: the win chance; lost: points of lead given "
            "away against the best option; win Δ: the move played's win chance against the "
            "best option's."
        ),
    ]
    out = [
        *(line for text in said for line in wrapped(text)),
        "",
        f"{heads[0]:>{w[0]}}  {heads[1]:<{w[1]}}  {heads[2]:>{w[2]}}  {heads[3]:>{w[3]}}  "
        f"{heads[4]:>{w[4]}}  {heads[5]:>{w[5]}}  {heads[6]}",
    ]
    # A draw from the display names its bird: the display as it was at the decision.
    displays = {d.index: d.view.display for d in decisions(game, player)}
    for r in reviews:
        b = r.best
        shown = displays.get(r.index)
        lead = f"{decimal(b.lead, signed=True):>6} ± {decimal(b.lead_spread):<4}"
        out.append(
            f"{r.turn:>{w[0]}}  {kinds[r.phase]:<{w[1]}}  {lead:>{w[2]}}  "
            f"{percent(b.win):>{w[3]}}  {decimal(r.loss):>{w[4]}}  "
            f"{percent(r.win_change, signed=True):>{w[5]}}  {_(GRADE_WORDS[r.grade])}"
        )
        if r.played == b.action:
            moves = _("played {played} (the best)").format(played=_move(r.played, shown))
        else:
            moves = _("played {played}; best {best}").format(
                played=_move(r.played, shown), best=_move(b.action, shown)
            )
        indent = " " * (w[0] + 2)
        out += wrapped(moves, indent, indent + "  ")
    out += ["", summary_text(summary)]
    return "\n".join(out) + "\n"


def _move(action_id: int, display: Sequence[int] | None) -> str:
    return action_words(Action.from_id(action_id), short=True, display=display)


def _kind(phase: str) -> str:
    """A kind of decision (the engine's phase name) in the reader's language."""
    return phase_words(PHASE_NAMES.index(phase))


def summary_text(summary: Summary) -> str:
    s = summary
    if not s.decisions:  # nothing was graded: no accuracy to claim
        return _("No decision of this player to review yet.")
    good = s.grades["best"] + s.grades["good"]
    grades = [_(GRADE_WORDS[g]) for g in GRADE_NAMES]
    # A kind's decisions are its grades' counts added up: no column of their own, so that the
    # longer words of other languages still fit 80 columns.
    kind, lost = _("kind"), _("lost")
    widest = max(len(_kind(name)) for name in CATEGORIES)
    w = [max(widest, len(kind)), max(5, len(lost))]
    accuracy = _(
        "Accuracy {accuracy} ({good} of {decisions} decisions best or good), "
        "{loss} points of lead lost in all."
    ).format(accuracy=percent(s.accuracy), good=good, decisions=s.decisions, loss=decimal(s.loss))
    lines = [
        *wrapped(accuracy),
        f"{kind:<{w[0]}}  {lost:>{w[1]}}  " + "  ".join(grades),
    ]
    widths = [len(g) for g in grades]
    for name in CATEGORIES:
        c = s.categories[name]
        if not c.decisions:
            continue
        counts = "  ".join(f"{c.grades[g]:>{n}}" for g, n in zip(GRADE_NAMES, widths, strict=True))
        lines.append(f"{_kind(name):<{w[0]}}  {decimal(c.loss):>{w[1]}}  {counts}")
    return "\n".join(lines)


def plot_win_chances(
    game: Game,
    player: int,
    reviews: Sequence[DecisionReview],
    path: str,
    names: Sequence[str] | None = None,
) -> None:
    """Every player's win chance as estimated at each reviewed decision (PNG), the seats by
    ``names`` (else "Player N")."""
    names = list(names) if names else [seat_name(p) for p in range(game.options.players)]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    xs = [r.index + 1 for r in reviews]
    for p in range(game.options.players):
        ys = [r.best.wins[p] for r in reviews]
        ax.plot(xs, ys, marker="." if p == player else None, label=names[p])
    bad = [r for r in reviews if r.grade in ("mistake", "blunder")]
    if bad:
        ax.scatter(
            [r.index + 1 for r in bad],
            [r.best.wins[player] for r in bad],
            color="red",
            zorder=3,
            label=_("mistakes and blunders of {player}").format(player=names[player]),
        )
    ax.set_ylim(0, 1)
    ax.set_xlabel(_("action in the game record"))
    ax.set_ylabel(_("estimated win chance"))
    ax.set_title(
        _("Win chances from the view of {player} at each of their decisions").format(
            player=names[player]
        )
    )
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)
