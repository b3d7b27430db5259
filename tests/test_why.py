"""Why each line of the log happened: the rule behind each event, in words, by the rules in
play, with an id that the rules text defines."""

from __future__ import annotations

import random
import re

import pytest

from piepmatz.core import Rules, State
from piepmatz.core.events import DrawDeck, EndReason, EndTriggered, EventKind
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.text.rulebook import full_rules, player_part
from piepmatz.text.why import RULES_OF_EVENTS, why
from piepmatz.tutorial import steps
from test_rules_text import rule_ids

IDS = {rule for _section, rule in rule_ids(player_part(full_rules("en")))}


def _defined(rule: str) -> bool:
    """``T2.1e`` is step e of T2.1; every other id stands as the rules text defines it."""
    base = re.sub(r"(?<=\d)[a-f]$", "", rule)
    return base in IDS and (base == rule or rule[-1] in IDS)


def test_every_kind_of_event_has_its_rule_and_each_rule_is_defined() -> None:
    kinds = set(EventKind) - {EventKind.DRAW_DECK, EventKind.DRAW_DISPLAY}
    assert set(RULES_OF_EVENTS) == kinds - {EventKind.END_TRIGGERED}
    assert all(_defined(rule) for rule, _text in RULES_OF_EVENTS.values())
    assert all(step.rule and _defined(step.rule) for step in steps() if step.id)


def test_why_tells_the_rule_the_table_plays() -> None:
    standard, overview = Rules.preset("standard"), Rules.preset("overview")
    draw = DrawDeck(player=0, bird=None)
    assert "four cards" in why(draw, standard).text
    assert "one card" in why(draw, overview).text
    birds = EndTriggered(player=1, reason=EndReason.BIRDS)
    assert why(birds, overview).rule == "E1" and "bird deck" in why(birds, overview).text


@pytest.mark.parametrize("rules", ["standard", "overview"])
def test_every_line_of_random_games_has_its_why_in_every_language(rules: str) -> None:
    rng = random.Random(3)
    for game in range(30):
        state = State.new_game(players=2 + game % 3, seed=game, rules=Rules.preset(rules))
        while not state.is_over():
            state.apply_id(rng.choice(state.legal_action_ids()))
        told: dict[str, list[str]] = {}
        for lang in LANGUAGES:
            with use_language(lang):
                answers = [why(e, state.rules) for e in state.events or []]
            assert all(_defined(a.rule) for a in answers)
            # The words never name a rule id: the id is the link.
            assert not any(re.search(r"\b[SCTE]\d(\.\d)?\b", a.text) for a in answers)
            told[lang] = [a.text for a in answers]
        assert all(en != cs != de for en, cs, de in zip(*told.values(), strict=True))
