"""One voice: whatever a person reads of a game — each event's sentence, each preview, a hint,
the score sheet and how a game ended — speaks the game's words in the player's language: never
an engine card code, never a rule id, seats counted from 1 (or by name), and no English word
left in Czech or German. Checked as a property, over random games of both presets, 2–4 players
and the three languages, so that a case nobody listed fails too."""

from __future__ import annotations

import random
import re

import pytest

from piepmatz.bots.analysis import Estimate, Hint
from piepmatz.core import Action, Game, view_of
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.text import scoresheet
from piepmatz.text.preview import preview
from piepmatz.text.words import action_words, seat_name, species_names, told
from piepmatz.tui.hints import hint_text

#: An engine card code: a bird (``BL5m``), a seed (``S2c``, or ``S2`` as the table prints it),
#: a crow or a squirrel (``CRa``, ``SQb``).
CODE = re.compile(r"\b(?:(?:BL|BU|CH|GR|SP|YE)[1-6][mf]|S[1-3][a-j]?|(?:CR|SQ)[a-c])\b")
#: A species by its code alone (``singles BL``): people read the species' name.
SPECIES_CODE = re.compile(r"\b(?:BL|BU|CH|GR|SP|YE)\b")
#: A rule id (``T3.1``, ``T2.1d``, ``E5``, ``S2``): people get the rule in words.
RULE = re.compile(r"\b[SCTE][1-9](?:\.\d+[a-z]?)?\b")
#: Words that read the same in English and in Czech or German, and may stand in both (the
#: species' names, and German's own Hand, Position, blind and Rest).
SHARED = {"bot", "hand", "position", "blind", "rest"} | {
    word.lower()
    for lang in LANGUAGES
    for name in species_names(lang).values()
    for word in name.split()
}


def _said(game: Game, rng: random.Random, names: list[str] | None) -> list[str]:
    """Everything a person reads of ``game`` played to the end by random moves, in the current
    language: the sentences, previews and moves at a sample of decisions, a hint, the score
    sheet."""
    out: list[str] = []
    while not game.state.is_over():
        state = game.state
        legal = state.legal_action_ids()
        if rng.random() < 0.15:
            view = view_of(state, state.current_player)
            for action_id in rng.sample(legal, min(3, len(legal))):
                shown = preview(view, action_id)
                action = Action.from_id(action_id)
                out += [shown.headline, *shown.steps, action_words(action)]
                out.append(action_words(action, short=True))
            players = game.options.players
            estimate = Estimate(legal[0], -1.5, 2.25, 0.32, 0.1, 20.0, (0.32,) * players, 2000)
            out.append(hint_text(Hint("hard", estimate)))
        game.apply(rng.choice(legal))
    for event in game.state.events or []:
        parts = told(event, names)
        for part in parts:
            if part.seat is not None:
                expected = names[part.seat] if names else seat_name(part.seat)
                assert part.text == expected, f"seat {part.seat} told as {part.text!r}"
        out.append("".join(part.text for part in parts))
    labels = names or [seat_name(p) for p in range(game.options.players)]
    out += scoresheet.table(game.score(), labels).splitlines()
    ending = {"how": "resigned", "move": 9, "seat": 0, "winners": [1], "resigned": [0]}
    out += scoresheet.ending(ending | {"stood_in": [0, 3] + [0] * (len(labels) - 2)}, labels)
    return out


NAMES = {"anna", "ben", "cleo"}


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


@pytest.mark.parametrize("rules", ["standard", "overview"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_what_people_read_speaks_the_games_words_in_their_language(
    rules: str, players: int
) -> None:
    seed = 100 * players + len(rules)
    said: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        with use_language(lang):
            names = None if players != 3 else [n.capitalize() for n in sorted(NAMES)]
            said[lang] = _said(
                Game.new(players=players, preset=rules, seed=seed), random.Random(seed), names
            )
    assert len(said["en"]) > 100
    for lang, lines in said.items():
        for line in lines:
            assert not CODE.search(line), f"{lang}: a card code in {line!r}"
            assert not SPECIES_CODE.search(line), f"{lang}: a species code in {line!r}"
            assert not RULE.search(line), f"{lang}: a rule id in {line!r}"
            assert not re.search(r"\b(?:Player|Hráč|Spieler) 0\b", line), (
                f"{lang}: seat 0: {line!r}"
            )
        if lang != "en":
            # The same game told again, line for line: a word of the English line left in its
            # translation was not translated.
            assert len(lines) == len(said["en"])
            for line, original in zip(lines, said["en"], strict=True):
                left = (_words(line) & _words(original)) - SHARED - NAMES
                assert not left, f"{lang}: English {sorted(left)} in {line!r}"
