"""A score sheet (:class:`piepmatz.core.scoring.ScoreSheet`) in words, in the current language:
the rows every interface prints (end screen, text mode, ``replay``, ``demo``), who wins, the
whole sheet as a plain-text table, and each number explained by the cards that make it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from piepmatz.core.cards import BIRD_EGGS, FEEDER_EGGS, SPECIES
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import PAIR_POINTS, ScoreSheet, breakdown
from piepmatz.i18n import _, ngettext
from piepmatz.text import lines
from piepmatz.text.words import bird_words, seat_name, short_label, species_name


def names(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> list[str]:
    """Each player's column heading: ``labels``, else "Player N" (counted from 1)."""
    if labels is not None:
        return list(labels)
    return [seat_name(p.player) for p in sheet.players]


def rows(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> list[list[str]]:
    """The sheet as rows of cells, a column per player named by ``labels``."""
    out = [["", *names(sheet, labels)], [_("seeds"), *(str(p.seeds) for p in sheet.players)]]
    out.append([_("pairs (count)"), *(f"{p.pair_points} ({p.pairs})" for p in sheet.players)])
    for code in SPECIES:
        if any(code in p.singles for p in sheet.players):
            out.append(
                [
                    _("singles {species}").format(species=species_name(code)),
                    *(str(p.singles.get(code, 0)) for p in sheet.players),
                ]
            )
    out.append([_("total"), *(str(p.total) for p in sheet.players)])
    out.append([_("birds (tiebreak)"), *(str(p.birds) for p in sheet.players)])
    return out


def verdict(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> str:
    """Who wins, or "(running score)" before the end."""
    if not sheet.final:
        return _("(running score)")
    heads = names(sheet, labels)
    who = ", ".join(heads[w] for w in sheet.winners)
    if len(sheet.winners) == 1:
        if sheet.tiebreak:
            return _("{who} wins (on the tiebreak: most birds)").format(who=who)
        return _("{who} wins").format(who=who)
    if sheet.tiebreak:
        return _("{who} share the win (on the tiebreak: most birds)").format(who=who)
    return _("{who} share the win").format(who=who)


def ending(data: Mapping[str, Any], labels: Sequence[str]) -> list[str]:
    """How an online game ended (its record's ``ending``), in sentences: a resignation or an
    abort that ended it early, who resigned, and the moves a stand-in bot made for a person."""
    how, move = data["how"], data["move"]
    lines = []
    if how == "aborted":
        lines.append(
            ngettext(
                "The game was aborted after {moves} move: nobody wins.",
                "The game was aborted after {moves} moves: nobody wins.",
                move,
            ).format(moves=move)
        )
    elif how == "resigned" and data.get("seat") is not None:
        winners = ", ".join(labels[w] for w in data.get("winners", []))
        lines.append(
            ngettext(
                "{who} resigned after {moves} move: {winners} wins.",
                "{who} resigned after {moves} moves: {winners} wins.",
                move,
            ).format(who=labels[data["seat"]], moves=move, winners=winners)
        )
    for seat in data.get("resigned", []):
        if how != "resigned" or seat != data.get("seat"):
            lines.append(_("{who} resigned; a bot played on.").format(who=labels[seat]))
    for seat, count in enumerate(data.get("stood_in", [])):
        if count:
            lines.append(
                ngettext(
                    "A bot played {count} move for {who}.",
                    "A bot played {count} moves for {who}.",
                    count,
                ).format(count=count, who=labels[seat])
            )
    return lines


def seating(labels: Sequence[str]) -> str | None:
    """Who sat where, the labels in full, when the sheet's short headings leave something out;
    None when they do not."""
    if all(short_label(label) == label for label in labels):
        return None
    return " · ".join(labels)


def table(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> str:
    """The sheet as a plain-text table, then the verdict. Columns are headed by short names
    (:func:`~piepmatz.text.words.short_label`) so that four players fit 80 columns; a last line
    says who sat where when that leaves something out."""
    full = names(sheet, labels)
    heads = [short_label(label) for label in full]
    cells = rows(sheet, heads)
    # Columns by the cells a terminal gives each name (a CJK name or an emoji takes two a
    # character), so that they line up whatever people are called.
    widths = [max(lines.cells(row[i]) for row in cells) for i in range(len(cells[0]))]
    out = [
        "  ".join(
            lines.rjust(cell, w) if i else lines.ljust(cell, w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
    who = seating(full)
    return "\n".join([*out, verdict(sheet, heads), *([who] if who else [])])


__all__ = ["ending", "names", "rows", "seating", "table", "verdict"]


def explain(
    sheet: ScoreSheet,
    rules: Rules,
    collections: Sequence[Sequence[int]],
    seed_piles: Sequence[Sequence[int]],
    player: int,
) -> list[str]:
    """Each number of ``player``'s column, told by the cards that make it (E4): "Pairs 10:
    Blackbird 5♂ + Blackbird 5♀ and Greenfinch 3♂ + Greenfinch 3♀, 5 each"."""
    parts = breakdown(rules, collections, seed_piles, player, sheet.majority)
    mine = sheet.players[player]
    eggs = " + ".join(str(FEEDER_EGGS[c]) for c in sorted(parts.seeds, key=FEEDER_EGGS.__getitem__))
    lines = [
        _("Seeds {points}: {eggs} eggs").format(points=mine.seeds, eggs=eggs)
        if parts.seeds
        else _("Seeds 0: no seed cards")
    ]
    groups = " · ".join(" + ".join(bird_words(b) for b in group) for group in parts.pairs)
    if not parts.pairs:
        lines.append(_("Pairs 0: no male and female to pair"))
    elif rules.pairs == "mated":
        lines.append(
            _("Pairs {points}: {pairs}, {each} each").format(
                points=mine.pair_points, pairs=groups, each=PAIR_POINTS
            )
        )
    else:
        lines.append(
            _("Pairs {points}: {pairs} (both sexes: every bird scores its eggs)").format(
                points=mine.pair_points, pairs=groups
            )
        )
    for code, birds in parts.singles.items():
        lines.append(
            _("{species} singles {points}: {birds} — the most birds of this species").format(
                species=species_name(code),
                points=mine.singles[code],
                birds=", ".join(f"{bird_words(b)} ({BIRD_EGGS[b]})" for b in birds),
            )
        )
    for code, birds in parts.unscored.items():
        shared = sheet.majority.get(code) is None
        said = (
            ngettext(
                "{species}: {birds} scores nothing — the most birds of this species are shared",
                "{species}: {birds} score nothing — the most birds of this species are shared",
                len(birds),
            )
            if shared
            else ngettext(
                "{species}: {birds} scores nothing — another player has more of this species",
                "{species}: {birds} score nothing — another player has more of this species",
                len(birds),
            )
        )
        lines.append(
            said.format(species=species_name(code), birds=", ".join(map(bird_words, birds)))
        )
    lines.append(_("Total {points}").format(points=mine.total))
    return lines
