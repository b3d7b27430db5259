"""A score sheet (:class:`piepmatz.core.scoring.ScoreSheet`) in words, in the current language:
the rows every interface prints (end screen, text mode, ``replay``, ``demo``), who wins, and the
whole sheet as a plain-text table.
"""

from __future__ import annotations

from collections.abc import Sequence

from piepmatz.core.cards import SPECIES
from piepmatz.core.scoring import ScoreSheet
from piepmatz.i18n import _


def names(sheet: ScoreSheet, labels: Sequence[str] | None = None) -> list[str]:
    """Each player's column heading: ``labels``, else "player N"."""
    if labels is not None:
        return list(labels)
    return [_("player {number}").format(number=p.player) for p in sheet.players]


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
            return _("{who} wins (on the tiebreak: most birds, E5)").format(who=who)
        return _("{who} wins").format(who=who)
    if sheet.tiebreak:
        return _("{who} share the win (on the tiebreak: most birds, E5)").format(who=who)
    return _("{who} share the win").format(who=who)


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


__all__ = ["names", "rows", "table", "verdict"]
