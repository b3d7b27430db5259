"""The rules texts: the Czech and German translations hold the same rules, by the same ids."""

from __future__ import annotations

import re

import pytest

from piepmatz.core.rules import FLAG_CHOICES
from piepmatz.text.rulebook import (
    RULES_TEXTS,
    flag_key,
    full_rules,
    player_part,
    screen_texts,
)

TRANSLATIONS = [lang for lang in RULES_TEXTS if lang != "en"]
#: A rule is defined where its id starts a bold run (``**T2.1 Chase``, ``- **a. Seed``) or a
#: heading (``### T1.``); references in running text (``(E4)``) are not definitions.
_DEFINITION = re.compile(r"^(?:### ([A-Z]\d+)\. |\s*- \*\*([a-f])\.)")
_BOLD_ID = re.compile(r"\*\*([A-Z]\d+(?:\.\d+)?)[. *]")


def rule_ids(text: str) -> list[tuple[str, str]]:
    """(section letter, rule id) of every rule defined in a rules text, in order."""
    out: list[tuple[str, str]] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].split(".")[0].split()[0]
            continue
        start = _DEFINITION.match(line)
        found = [start.group(1) or start.group(2)] if start else []
        out += [(section, rule_id) for rule_id in found + _BOLD_ID.findall(line)]
    return out


def test_rule_ids_are_read_from_the_english_text() -> None:
    ids = rule_ids(player_part(full_rules("en")))
    assert ids[:3] == [("C", "C1"), ("C", "C2"), ("C", "C3")]
    assert ("C", "C6") in ids and ("T", "T1") in ids and ("T", "T2.2") in ids
    assert [i for _s, i in ids if i in "abcdef"] == list("abcdef")
    assert ids[-1] == ("E", "E5")


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_translation_has_every_rule_in_the_same_order_and_section(lang: str) -> None:
    english = rule_ids(player_part(full_rules("en")))
    assert rule_ids(player_part(full_rules(lang))) == english


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_translation_has_the_player_sections_in_order(lang: str) -> None:
    def sections(text: str) -> list[str]:
        return [line.split(".")[0] for line in player_part(text).splitlines() if line[:3] == "## "]

    assert sections(full_rules(lang)) == sections(full_rules("en")) == [
        "## C", "## S", "## T", "## E", "## V"
    ]  # fmt: skip


@pytest.mark.parametrize("lang", list(RULES_TEXTS))
def test_every_flag_note_finds_its_line_once(lang: str) -> None:
    texts = screen_texts(lang)
    assert set(texts["flags"]) == {"no_chase_collect", "draw", "end_trigger", "last_hand", "pairs"}
    body = player_part(full_rules(lang)).splitlines()
    for flag, about in texts["flags"].items():
        starts = [line for line in body if line.startswith(about["line"])]
        assert len(starts) == 1, f"{lang}: {flag}'s line {about['line']!r} starts {starts}"
        choices = {flag_key(value) for value in FLAG_CHOICES[flag]}
        assert set(about["notes"]) == choices, f"{lang}: {flag}"
        assert all(note.strip() for note in about["notes"].values())


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_flag_note_stands_before_the_same_rule_as_in_english(lang: str) -> None:
    def rule_after(lang: str, line_start: str) -> tuple[str, str]:
        body = player_part(full_rules(lang)).splitlines()
        index = next(i for i, line in enumerate(body) if line.startswith(line_start))
        # the rule a line belongs to: the last rule defined up to and including it
        return rule_ids("\n".join(body[: index + 1]))[-1]

    for flag, about in screen_texts(lang)["flags"].items():
        english = screen_texts("en")["flags"][flag]["line"]
        assert rule_after(lang, about["line"]) == rule_after("en", english), flag


@pytest.mark.parametrize("lang", list(RULES_TEXTS))
def test_the_screen_texts_have_their_placeholders(lang: str) -> None:
    texts = screen_texts(lang)
    assert "{name}" in texts["title"]
    assert "{name}" in texts["note"] and "{note}" in texts["note"]
    assert len(texts["columns"]) == 2


def test_a_rules_text_without_its_cards_heading_is_told() -> None:
    with pytest.raises(ValueError, match=r"not headed '## C\. '"):
        player_part("# Pravidla\n\n## C) Karty\n")


def test_an_unknown_language_has_no_rules_text() -> None:
    with pytest.raises(ValueError, match="no rules text in language 'fr'"):
        full_rules("fr")
