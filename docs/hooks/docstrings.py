"""A Griffe extension for the API reference: the docstrings' reST habits, read as Markdown.

The package's docstrings are plain prose with reST's inline markup. Markdown already reads
``double backticks`` as code; this turns the rest into what Markdown shows well:

- a role (``:class:`~piepmatz.core.Game```, ``:func:`view_of```) becomes code with the name
  (the last part after ``~``, as Sphinx shows it);
- a paragraph ending in ``::`` ends in ``:``, and the literal block after it is a code block;
- a doctest (lines from ``>>>`` to the next blank line) becomes a ``pycon`` code block, without
  its ``# doctest:`` flags;
- a simple table (columns under rows of ``===``) becomes a Markdown table.

It changes only what the site shows, never the source.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_FLAGS = re.compile(r"\s*# doctest: .*$")
_BORDER = re.compile(r"^\s*=+( +=+)+\s*$")
_ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj|const):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    name = match[2]
    return f"`{name.rsplit('.', 1)[-1] if match[1] else name}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _table(lines: list[str]) -> tuple[list[str], int]:
    """The simple table at the start of ``lines`` as Markdown, and how many lines it took."""
    starts = [m.start() for m in re.finditer(r"=+", lines[0])]
    rows: list[list[str]] = []
    borders, end = 0, 0
    for end, line in enumerate(lines):  # noqa: B007
        if _BORDER.match(line):
            borders += 1
            if borders == 3:
                break
            continue
        if not line.strip():
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
        if rows and not cells[0]:  # a continuation line
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    body = ["| " + " | ".join(row) + " |" for row in rows]
    return ["", body[0], "|" + "---|" * len(starts), *body[1:], ""], end + 1


def markdown(text: str) -> str:
    """The docstring ``text`` with its roles, literal blocks and doctests made Markdown."""
    lines = _ROLE.sub(_role, text).split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _BORDER.match(line):
            table, taken = _table(lines[i:])
            out += table
            i += taken
            continue
        if stripped.startswith(">>>"):
            # A doctest: to the next blank line.
            end = i
            while end < len(lines) and lines[end].strip():
                end += 1
            doctest = (_FLAGS.sub("", x[_indent(line) :]) for x in lines[i:end])
            out += ["", "```pycon", *doctest, "```"]
            i = end
            continue
        if line.endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip():
            # A literal block: the indented lines after it or, where the docstring did not
            # indent it, the paragraph after it.
            out.append(line[:-1] if stripped != "::" else "")
            start = end = i + 2
            if _indent(lines[start]) > _indent(line):
                while end < len(lines) and (
                    not lines[end].strip() or _indent(lines[end]) > _indent(line)
                ):
                    end += 1
                while not lines[end - 1].strip():
                    end -= 1
            else:
                while end < len(lines) and lines[end].strip():
                    end += 1
            block = lines[start:end]
            cut = min(_indent(x) for x in block if x.strip())
            out += ["", "```", *(x[cut:] for x in block), "```"]
            i = end
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class ReSTInMarkdown(griffe.Extension):
    """Rewrites every docstring once, as the object is read."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
