"""The player's guide: the same pictures and rule links in every language, drawn from real
cards, its scoring example scored by the engine, about two printed pages, told in words."""

from __future__ import annotations

import re

import pytest

from piepmatz.core.cards import BIRD_NAMES
from piepmatz.i18n import LANGUAGES
from piepmatz.text.guide import Column, Row, Scored, guide, guide_markdown
from piepmatz.text.rulebook import full_rules, player_part
from test_rules_text import rule_ids

IDS = {rule for _section, rule in rule_ids(player_part(full_rules("en")))}
LINK = re.compile(r"\]\(#rule-([^)]+)\)")


def _links(lang: str) -> list[str]:
    return [m for block in guide(lang) if isinstance(block, str) for m in LINK.findall(block)]


def _pictures(lang: str) -> list[object]:
    return [block for block in guide(lang) if not isinstance(block, str)]


def test_every_language_has_the_same_pictures_and_rule_links_in_order() -> None:
    english = _pictures("en")
    assert [type(p) for p in english] == [Column, Row, Row, Scored]
    for lang in LANGUAGES:
        assert _pictures(lang) == english, lang
        assert _links(lang) == _links("en"), lang


def test_every_rule_link_points_at_a_rule_of_the_rules_text() -> None:
    for rule in _links("en"):
        base = re.sub(r"(?<=\d)[a-f]$", "", rule)
        assert base in IDS, rule


def test_the_pictures_show_the_turn_the_text_tells() -> None:
    rows = [p for p in _pictures("en") if isinstance(p, Row)]
    # The first row does not chase (3 against 6); the second chases by 2 (8 against 6).
    values = [
        (int(BIRD_NAMES[r.perch][2]), sum(int(BIRD_NAMES[b][2]) for b in r.ground)) for r in rows
    ]
    assert values == [(6, 3), (6, 8)]
    column = next(p for p in _pictures("en") if isinstance(p, Column))
    assert column.seeds[1][1] is None and column.seeds[2][1] == "crow"  # position 2: no pest


def test_the_scoring_example_is_the_engines() -> None:
    scored = next(p for p in _pictures("en") if isinstance(p, Scored))
    assert scored.names == ("Anna", "Ben")
    anna, ben = scored.sheet.players
    assert (anna.seeds, anna.pairs, anna.pair_points, anna.total) == (4, 2, 10, 17)
    assert ben.singles == {"BU": 5, "SP": 1} and scored.sheet.winners == (0,)
    text = guide_markdown("en")
    assert "Pairs 10: Blackbird 5♂ + Blackbird 5♀ · Greenfinch 3♂ + Greenfinch 3♀, 5 each" in text
    assert "Total 17" in text and "Anna wins" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_is_about_two_pages_in_words_not_codes(lang: str) -> None:
    text = guide_markdown(lang)
    words = len(re.findall(r"\w+", text))
    assert 700 <= words <= 1400, words
    prose = LINK.sub("]", text)
    assert not re.search(r"\b(?:BL|BU|CH|GR|SP|YE)[1-6][mf]\b", prose)
    assert "{" not in text and "}" not in text
    if lang != "en":
        # The pictures are told in the language too.
        assert "Pairs 10" not in text and "perch:" not in text and "Total 17" not in text


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no guide in language 'fr'"):
        guide("fr")
