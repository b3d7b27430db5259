"""The player's guide: how to play in about two printed pages, in the player's language, with
small pictures drawn from the game's own cards, and a worked scoring example that the engine
scores.

``rulebook/guide-<lang>.md`` is the guide's text. A picture is a fenced block whose info string
is ``piepmatz``, holding one line (or, for ``score``, one line per player after it):

- ``row BL6m | BU3m CH5f`` — a perch's row: the bird at the perch, then the ground;
- ``column S1 S2 S3+crow S1+squirrel`` — the seed column from position 1, seeds by their eggs;
- ``score`` then ``Anna: BL5m BL5f / S3 S1`` per player — collections and seed piles, scored
  by the engine and explained number by number (:func:`piepmatz.text.scoresheet.explain`).

:func:`guide` reads the text into blocks (Markdown, or a picture an interface may draw its own
way); :func:`guide_markdown` is the whole guide as Markdown, each picture drawn in words, for the
interfaces that show Markdown (the terminal's rules screen, the browser's rules page). Links to a
rule (``[T2.1](#rule-T2.1)``) point into the full rules text that follows the guide.

>>> blocks = guide("en")
>>> isinstance(blocks[0], str) and blocks[0].startswith("# How to play")
True
>>> [type(b).__name__ for b in blocks if not isinstance(b, str)]
['Column', 'Row', 'Row', 'Scored']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from piepmatz.core.cards import FEEDER_EGGS, FEEDER_KIND, SEED, parse_bird
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import ScoreSheet, score
from piepmatz.i18n import LANGUAGES, _, ngettext, use_language, written_in
from piepmatz.text.scoresheet import explain, verdict
from piepmatz.text.words import bird_words

#: The guide in each language, in the package (a language without one reads the English).
GUIDE = "rulebook/guide-{lang}.md"

_FENCE = re.compile(r"^```piepmatz\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_PESTS = ("crow", "squirrel")


@dataclass(frozen=True)
class Row:
    """A perch's row: the bird at the perch and the birds on the ground, in order."""

    perch: int
    ground: tuple[int, ...]


@dataclass(frozen=True)
class Column:
    """The seed column from position 1: each seed by its eggs, with the pest beside it."""

    seeds: tuple[tuple[int, str | None], ...]


@dataclass(frozen=True)
class Scored:
    """Players' collections and seed piles, and the engine's score sheet of them."""

    names: tuple[str, ...]
    collections: tuple[tuple[int, ...], ...]
    seed_piles: tuple[tuple[int, ...], ...]
    sheet: ScoreSheet
    rules: Rules


Picture = Row | Column | Scored
Block = str | Picture


def _seed_cards(eggs: list[int]) -> list[int]:
    """One distinct seed card for each number of eggs (the guide names seeds by their eggs)."""
    pool = [c for c in range(len(FEEDER_KIND)) if FEEDER_KIND[c] == SEED]
    out = []
    for n in eggs:
        card = next(c for c in pool if FEEDER_EGGS[c] == n and c not in out)
        out.append(card)
    return out


def _picture(text: str) -> Picture:
    head, _sep, rest = text.partition(" ")
    lines = text.strip().splitlines()
    if head == "row":
        perch, _bar, ground = rest.partition("|")
        return Row(parse_bird(perch.strip()), tuple(map(parse_bird, ground.split())))
    if head == "column":
        column: list[tuple[int, str | None]] = []
        for word in rest.split():
            seed, _plus, pest = word.partition("+")
            if not re.fullmatch(r"S[1-3]", seed) or (pest and pest not in _PESTS):
                raise ValueError(f"not a seed of the column: {word!r}")
            column.append((int(seed[1]), pest or None))
        return Column(tuple(column))
    if lines[0] == "score":
        names: list[str] = []
        collections: list[tuple[int, ...]] = []
        piles: list[tuple[int, ...]] = []
        for line in lines[1:]:
            name, _colon, cards = line.partition(":")
            birds, _slash, pile = cards.partition("/")
            names.append(name.strip())
            collections.append(tuple(map(parse_bird, birds.split())))
            piles.append(tuple(_seed_cards([int(s[1]) for s in pile.split()])))
        rules = Rules.preset("standard")
        sheet = score(rules, [list(c) for c in collections], [list(p) for p in piles])
        return Scored(tuple(names), tuple(collections), tuple(piles), sheet, rules)
    raise ValueError(f"not a picture of the guide: {text!r}")


@cache
def guide(lang: str) -> tuple[Block, ...]:
    """The guide in ``lang`` as blocks: Markdown text, and pictures."""
    if lang not in LANGUAGES:
        raise ValueError(f"no guide in language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    lang = written_in(lang, "piepmatz", GUIDE)
    path = resources.files("piepmatz").joinpath(GUIDE.format(lang=lang))
    text = path.read_text(encoding="utf-8")
    blocks: list[Block] = []
    at = 0
    for match in _FENCE.finditer(text):
        blocks.append(text[at : match.start()])
        blocks.append(_picture(match.group(1)))
        at = match.end()
    blocks.append(text[at:])
    return tuple(b for b in blocks if not isinstance(b, str) or b.strip())


def picture_lines(picture: Picture) -> list[str]:
    """A picture drawn in words, in the current language."""
    if isinstance(picture, Row):
        ground = ", ".join(bird_words(b) for b in picture.ground)
        return [
            _("perch: {bird}").format(bird=bird_words(picture.perch)),
            _("ground: {birds}").format(birds=ground or "–"),
        ]
    if isinstance(picture, Column):
        out = []
        for position, (eggs, pest) in enumerate(picture.seeds, 1):
            seed = ngettext("{eggs} egg", "{eggs} eggs", eggs).format(eggs=eggs)
            if pest is not None:
                seed += " + " + (_("crow") if pest == "crow" else _("squirrel"))
            out.append(_("position {position}: {seed}").format(position=position, seed=seed))
        return out
    out = []
    for p, name in enumerate(picture.names):
        birds = ", ".join(bird_words(b) for b in picture.collections[p])
        out.append(f"{name}: {birds}")
        lines = explain(picture.sheet, picture.rules, picture.collections, picture.seed_piles, p)
        out += ["  " + line for line in lines]
    out.append(verdict(picture.sheet, list(picture.names)))
    return out


def guide_markdown(lang: str) -> str:
    """The whole guide as Markdown in ``lang``, each picture drawn in words as a code block."""
    parts = []
    with use_language(lang):
        for block in guide(lang):
            if isinstance(block, str):
                parts.append(block.strip("\n"))
            else:
                parts.append("```\n" + "\n".join(picture_lines(block)) + "\n```")
    return "\n\n".join(parts) + "\n"
