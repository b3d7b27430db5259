"""Plain lines for a terminal: the width every command's report fits, and wrapping to it."""

from __future__ import annotations

import textwrap
import unicodedata
from typing import Final

#: The width of the terminal the reports fit (``tournament``, ``compare``, ``review``,
#: ``envs layout``): the narrowest a terminal usually is.
WIDTH: Final = 80


def wrapped(text: str, first: str = "", later: str = "") -> list[str]:
    """``text`` as lines of at most :data:`WIDTH`, the first after ``first``, the others after
    ``later``; a line breaks at a space only (never inside a word, at a hyphen, or at a
    no-break space, which keeps a number such as Czech ``1 000`` whole).

    >>> wrapped("figures then a meaning long enough to go on", "name  1  ", "         ")[:1]
    ['name  1  figures then a meaning long enough to go on']
    """
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=later,
        break_long_words=False,
        break_on_hyphens=False,
    )


def cells(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for a wide or full-width character (CJK,
    most emoji), none for a combining mark or a format character, one for the rest. People's
    names at an online table may be any of these; the base install has no dependency to ask.

    >>> cells("Anna"), cells("山田"), cells("Émile 🐦"), cells("e\u0301")
    (4, 4, 8, 1)
    """
    return sum(
        0
        if unicodedata.category(char) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(char) in "WF"
        else 1
        for char in text
    )


def ljust(text: str, width: int) -> str:
    """``text`` padded on the right to ``width`` columns (:func:`cells`)."""
    return text + " " * max(0, width - cells(text))


def rjust(text: str, width: int) -> str:
    """``text`` padded on the left to ``width`` columns (:func:`cells`)."""
    return " " * max(0, width - cells(text)) + text


def shown(text: str) -> str:
    """``text`` without what a terminal would act on rather than show: control characters
    (escape sequences), line separators, and format characters (bidirectional overrides)."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp"))
