"""A score sheet (:class:`piepmatz.core.scoring.ScoreSheet`) in words, in the current language:
the rows every interface prints (end screen, text mode, ``replay``, ``demo``), who wins, and the
whole sheet as a plain-text table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from piepmatz.core.cards import SPECIES
from piepmatz.core.scoring import ScoreSheet
from piepmatz.i18n import _, ngettext
from piepmatz.text.words import seat_name


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
                    _("singles {species}").format(species=code),
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


def table(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> str:
    """The sheet as a plain-text table, then the verdict."""
    cells = rows(sheet, labels)
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    out = [
        "  ".join(
            cell.rjust(w) if i else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
    return "\n".join([*out, verdict(sheet, labels)])


__all__ = ["ending", "names", "rows", "table", "verdict"]
