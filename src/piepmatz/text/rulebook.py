"""The rules screen's text: the shipped rules text in the player's language, marked for the game.

``piepmatz/RULES.md`` is the English rules text the package ships, the project's rules spec;
``piepmatz/rulebook/cs.md`` and ``de.md`` are the Czech and German texts, written from the same
rule ids and sections (a test holds them to the English ids). Beside each text,
``rulebook/<lang>.json`` holds what the rules screen adds in
that language: its heading, and for each rule flag a title, the line that starts the rule it
changes, and what each of the flag's values means in play. The rules screen shows the flags in
play first, then the sections a player needs (cards, setup, turn, end and scoring, the flags), and
before each rule that a flag changes, a note saying what applies in this game.

>>> from piepmatz.core import Rules
>>> text = rules_markdown(Rules.preset("overview"))
>>> "draw exactly one card" in text and "Appendix" not in text
True
>>> "genau eine Karte" in rules_markdown(Rules.preset("overview"), "de")
True
>>> from piepmatz.i18n import use_language
>>> with use_language("cs"):
...     rules_markdown(Rules.preset("overview")).splitlines()[0]
'# Pravidla této hry: pravidla z přehledu'
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from piepmatz.core import Rules
from piepmatz.i18n import LANGUAGES, current_language, use_language, written_in
from piepmatz.text.words import rules_words

#: Each language's rules text, in the package; the English one is the project's rules spec.
#: A language without one (yet) reads the English.
RULES_TEXTS = {"en": "RULES.md", **{lang: f"rulebook/{lang}.md" for lang in LANGUAGES[1:]}}
#: The sections a player reads (by their letter); the appendix on the sources is for developers.
PLAYER_SECTIONS = "CSTEV"
_SECTION = re.compile(r"## ([A-Z])\. ")


def _language(lang: str) -> str:
    if lang not in RULES_TEXTS:
        raise ValueError(
            f"no rules text in language {lang!r}: choose one of {', '.join(RULES_TEXTS)}"
        )
    return written_in(lang, "piepmatz", RULES_TEXTS[lang])


def full_rules(lang: str = "en") -> str:
    """The whole rules text in ``lang``."""
    path = RULES_TEXTS[_language(lang)]
    return resources.files("piepmatz").joinpath(path).read_text(encoding="utf-8")


@cache
def screen_texts(lang: str = "en") -> dict[str, Any]:
    """What the rules screen adds in ``lang``: heading, flag titles, lines and notes."""
    name = f"rulebook/{_language(lang)}.json"
    texts: dict[str, Any] = json.loads(
        resources.files("piepmatz").joinpath(name).read_text(encoding="utf-8")
    )
    return texts


def flag_key(value: object) -> str:
    """How a flag's value is written in ``rulebook/<lang>.json`` (``true``, ``refill``, ...)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def player_part(text: str) -> str:
    """The sections of a rules text a player needs: from ``## C.`` up to the appendix."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("## C. ")), None)
    if start is None:  # a translation's headings must keep the letters: "## C. Karty"
        raise ValueError("a rules text whose cards section is not headed '## C. '")
    end = len(lines)
    for i in range(start + 1, len(lines)):
        match = _SECTION.match(lines[i])
        if lines[i].startswith("## ") and not (match and match.group(1) in PLAYER_SECTIONS):
            end = i
            break
    return "\n".join(lines[start:end])


def rules_markdown(rules: Rules, lang: str | None = None) -> str:
    """The rules screen for a game under ``rules``, in ``lang`` (``en``, ``cs`` or ``de``; by
    default the language texts are shown in now, as the terminal game set it)."""
    lang = lang or current_language()
    texts = screen_texts(lang)
    with use_language(lang):
        name = rules_words(rules.name)
    flags: dict[str, dict[str, Any]] = texts["flags"]

    def note(flag: str) -> str:
        notes: dict[str, str] = flags[flag]["notes"]
        return notes[flag_key(getattr(rules, flag))]

    out: list[str] = []
    for line in player_part(full_rules(lang)).splitlines():
        for flag, about in flags.items():
            if line.startswith(about["line"]):
                out.append("> " + texts["note"].format(name=name, note=note(flag)))
                out.append("")
        out.append(line)
    rule, in_game = texts["columns"]
    head = [
        "# " + texts["title"].format(name=name),
        "",
        f"| {rule} | {in_game} |",
        "|---|---|",
        *(f"| {about['title']} | {note(flag)} |" for flag, about in flags.items()),
        "",
        texts["marked"],
        "",
    ]
    return "\n".join(head + out)
