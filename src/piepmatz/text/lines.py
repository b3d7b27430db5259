"""Plain lines for a terminal: the width every command's report fits, and wrapping to it."""

from __future__ import annotations

import textwrap
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
