"""Numbers in sentences as the player's language writes them (``2 000``, ``−1,8``, ``32 %`` in
Czech), through Babel's CLDR data; without Babel (the bare core, no extra) as English writes
them.
"""

from __future__ import annotations

from piepmatz.i18n import current_language

try:
    from babel import numbers as _babel
except ModuleNotFoundError:  # pragma: no cover - every extra that shows numbers brings Babel
    _babel = None  # type: ignore[assignment]


def count(n: int) -> str:
    """A whole number with the language's grouping (``2,000``; Czech ``2 000``)."""
    if _babel is None:
        return f"{n:,}"
    return str(_babel.format_decimal(n, locale=current_language()))


def decimal(x: float, digits: int = 1, signed: bool = False) -> str:
    """``x`` with ``digits`` decimals (``-1.8``; Czech ``-1,8``), with ``+`` when ``signed``."""
    pattern = "0." + "0" * digits if digits else "0"
    if signed:
        pattern = f"+{pattern};-{pattern}"
    if _babel is None:
        return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return str(_babel.format_decimal(x, format=pattern, locale=current_language()))


def percent(x: float, signed: bool = False) -> str:
    """A share as a percentage (``32%``; Czech and German ``32 %``), ``+`` when ``signed``;
    a share that rounds to nothing is ``0%``, never ``-0%``."""
    x = round(x, 2) or 0.0  # -0.004 → 0.0, not -0.0
    if _babel is None:
        return f"{x:+.0%}" if signed else f"{x:.0%}"
    text = str(_babel.format_percent(x, locale=current_language()))
    return f"+{text}" if signed and x > 0 else text


__all__ = ["count", "decimal", "percent"]
