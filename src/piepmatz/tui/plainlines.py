"""Markdown as plain lines, for ``piepmatz play --text``: the player's guide and the rules that
the full-screen game's rules screen shows, told without the marks a screen reader would spell
out (``**``, ``#``, ``|---|``, a link's target).

A paragraph or a list item is one line, however the source wraps it (a screen reader reads a
line whole); a heading is a line of its own after an empty one; a list item starts with ``-``
(or its number), indented by its depth; a table row says each cell with its column's heading; a
picture drawn in words (a fenced block) keeps its lines, indented.

>>> markdown_lines("# How to play\\n\\nBirds **chase** at a\\nfeeder. [T2.1](#rule-T2.1)\\n")
['How to play', '', 'Birds chase at a feeder. (T2.1)']
>>> markdown_lines("| | standard | overview |\\n|---|---|---|\\n| draw | four | one |\\n")
['draw: standard: four; overview: one']
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from piepmatz.core import Rules
from piepmatz.i18n import current_language
from piepmatz.text.guide import guide_markdown
from piepmatz.text.rulebook import rules_markdown

_PARSER = MarkdownIt("commonmark").enable("table")


def _inline(token: Token) -> str:
    """An inline run's text: emphasis and code marks dropped, a link's text kept (a link to a
    rule in brackets, as the rule's id: the rules that follow are numbered so), breaks as
    spaces."""
    out: list[str] = []
    rule_link = False
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "link_open":
            rule_link = str(child.attrs.get("href", "")).startswith("#rule-")
            out.append("(" if rule_link else "")
        elif child.type == "link_close":
            out.append(")" if rule_link else "")
            rule_link = False
    return " ".join("".join(out).split())


def _table_row(heads: list[str], cells: list[str]) -> str:
    """A row as a sentence: each cell after its column's heading; a first column without a
    heading names the row."""
    if heads and not heads[0]:
        said = "; ".join(f"{h}: {c}" for h, c in zip(heads[1:], cells[1:], strict=False))
        return f"{cells[0]}: {said}"
    return "; ".join(f"{h}: {c}" if h else c for h, c in zip(heads, cells, strict=False))


def markdown_lines(markdown: str) -> list[str]:
    """``markdown`` as plain lines (see the module's docstring)."""
    lines: list[str] = []
    # Open lists, innermost last: the next item's number (None for a bullet list).
    lists: list[int | None] = []
    marker = ""  # the open list item's marker, until its first line is written
    heads: list[str] = []
    row: list[str] | None = None
    heading = False
    for token in _PARSER.parse(markdown):
        kind = token.type
        if kind == "heading_open":
            heading = True
            if lines and lines[-1]:
                lines.append("")
        elif kind == "heading_close":
            heading = False
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = token.attrs.get("start", 1)
            lists.append(int(start) if kind == "ordered_list_open" else None)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            number = lists[-1]
            marker = "- " if number is None else f"{number}. "
            if number is not None:
                lists[-1] = number + 1
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            if heads:
                lines.append(_table_row(heads, row))
            else:
                heads = row
            row = None
        elif kind == "table_close":
            heads = []
        elif kind == "inline" and row is not None:
            row.append(_inline(token))
        elif kind == "inline":
            indent = "  " * max(len(lists) - 1, 0)
            text = _inline(token)
            if lists:
                # An item's later paragraphs line up with its first one's text.
                text = indent + (marker or " " * 2) + text
                marker = ""
            lines.append(text)
            if heading:
                lines.append("")
        elif kind in ("fence", "code_block"):
            lines += ["  " + line for line in token.content.rstrip("\n").splitlines()]
    # No empty line twice, none at either end.
    tidy = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    while tidy and not tidy[-1]:
        tidy.pop()
    return tidy


def rules_lines(rules: Rules) -> list[str]:
    """The player's guide, then the rules in play, as the full-screen game's rules screen
    shows them, in the player's language, as plain lines."""
    guide = markdown_lines(guide_markdown(current_language()))
    return [*guide, "", *markdown_lines(rules_markdown(rules))]
