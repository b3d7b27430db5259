"""The first game's script, held to the engine: every scripted move legal for the seat whose turn
it is, every promised event brought about, the game played to its end, and every language's texts
complete and naming what the step asks for. The lesson refuses any other move and changes
nothing, and can be left and taken up again."""

from __future__ import annotations

import re

import pytest

from piepmatz.core import Action, state_to_json
from piepmatz.core.cards import BIRD_NAMES
from piepmatz.core.scoring import score_state
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.tutorial import (
    LEARNER,
    LESSON_TEXTS,
    STEP_TEXTS,
    Lesson,
    deal,
    plain,
    say,
    steps,
    texts,
)

TOKEN = re.compile(r"\{([A-Z]{2}[1-6][mf])\}")
LEARNER_STEPS = [s for s in steps() if s.seat == LEARNER]


def test_the_script_plays_through_the_engine_and_keeps_its_promises() -> None:
    state = deal()
    seen: set[str] = set()
    for step in steps():
        assert state.current_player == step.seat, f"{step.action} is not {step.seat}'s to play"
        assert step.action.id in state.legal_action_ids(), f"{step.action} is illegal here"
        start = len(state.events or [])
        state.apply(step.action, step.seat)
        kinds = [e.kind for e in (state.events or [])[start:]]
        assert set(step.events) <= set(kinds), f"{step.action}: {step.events} not in {kinds}"
        seen.update(kinds)
    assert state.is_over()
    # What the issue promises the learner meets, in one short game.
    wanted = {"play", "collect", "chase", "take_seed", "promote", "crow", "squirrel"}
    wanted |= {"draw_display", "draw_deck", "end_triggered", "keep", "game_over"}
    assert wanted <= seen
    sheet = score_state(state)
    assert sheet.winners == (LEARNER,)
    assert sheet.players[LEARNER].pairs == 1 and sheet.players[1].singles  # a majority scored


def test_every_learner_step_has_an_id_and_a_rule() -> None:
    ids = [s.id for s in LEARNER_STEPS]
    assert None not in ids and len(set(ids)) == len(ids)
    assert all(s.rule and re.fullmatch(r"[CSTE]\d(\.\d[a-z]?)?", s.rule) for s in LEARNER_STEPS)
    assert all(s.id is None for s in steps() if s.seat != LEARNER)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_tells_every_step_and_names_what_it_asks(lang: str) -> None:
    data = texts(lang)
    assert set(data["lesson"]) == set(LESSON_TEXTS) and all(data["lesson"].values())
    assert set(data["steps"]) == {s.id for s in LEARNER_STEPS}
    english = texts("en")["steps"]
    for step in LEARNER_STEPS:
        assert step.id is not None
        told = data["steps"][step.id]
        assert set(told) == set(STEP_TEXTS) and all(told.values()), step.id
        named = set(TOKEN.findall(told["do"]))
        # The birds of the scripted move are named in what to do and in the refusal.
        wanted = {BIRD_NAMES[c] for c in step.action.cards}
        assert wanted <= named and wanted <= set(TOKEN.findall(told["refuse"])), step.id
        # Each language names the same birds in each text as the English.
        for name in STEP_TEXTS:
            assert set(TOKEN.findall(told[name])) == set(TOKEN.findall(english[step.id][name]))
        with use_language(lang):
            for name in STEP_TEXTS:
                text = plain(told[name])
                assert "{" not in text and not re.search(r"\b[A-Z]{2}[1-6][mf]\b", text)


def test_a_step_that_draws_from_the_display_names_the_bird_lying_there() -> None:
    state = deal()
    for step in steps():
        if step.action.kind == "draw display":
            bird = state.display[step.action.index - 1]
            assert bird is not None and step.id is not None
            assert "{" + BIRD_NAMES[bird] + "}" in texts("en")["steps"][step.id]["do"]
        state.apply(step.action, step.seat)


def test_texts_tell_birds_as_parts_in_the_language() -> None:
    with use_language("de"):
        parts = say("Spiele {BU3m} an Sitzstange 1.")
    assert [p.text for p in parts] == ["Spiele ", "Gimpel 3♂", " an Sitzstange 1."]
    assert parts[1].bird == BIRD_NAMES.index("BU3m")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lesson_refuses_any_other_move_and_follows_the_script(lang: str) -> None:
    with use_language(lang):
        lesson = Lesson()
        for step in LEARNER_STEPS:
            assert lesson.step == step and lesson.state.current_player == LEARNER
            before = state_to_json(lesson.state)
            others = [a for a in lesson.state.legal_action_ids() if a != step.action.id]
            for tried in [*others[:3], "nonsense", 10_000]:
                outcome = lesson.move(tried)
                assert not outcome.accepted and outcome.message == lesson.text("refuse")
                assert state_to_json(lesson.state) == before  # refused: nothing changed
            after = lesson.text("after")
            outcome = lesson.move(Action.from_id(step.action.id))
            assert outcome.accepted and outcome.message == after and outcome.events
        assert lesson.over and lesson.step is None and lesson.state.is_over()
        end = lesson.move("pass")
        assert not end.accepted and end.message == plain(texts(lang)["lesson"]["end"])


def test_a_lesson_left_is_taken_up_where_it_was() -> None:
    lesson = Lesson()
    for step in LEARNER_STEPS[:5]:
        lesson.move(step.action)
    again = Lesson.resume(lesson.done)
    assert lesson.done == again.done == 5 and again.step == LEARNER_STEPS[5]
    assert state_to_json(again.state) == state_to_json(lesson.state)
    with pytest.raises(ValueError, match="has 12 steps"):
        Lesson.resume(13)


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no tutorial in language 'fr'"):
        texts("fr")


def test_the_modules_examples_hold() -> None:
    import doctest

    import piepmatz.tutorial

    result = doctest.testmod(piepmatz.tutorial)
    assert result.attempted >= 4 and result.failed == 0
