"""The player's sentences in every language: events, an illegal move's reason, --lang."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from piepmatz.cli import main
from piepmatz.core import Action, Game, State
from piepmatz.core.errors import IllegalActionError, InvalidActionError, PiepmatzError
from piepmatz.core.events import DrawDeck, Event, Keep, TakeBlind
from piepmatz.core.state import PLAY
from piepmatz.i18n import LANGUAGES, use_language
from piepmatz.text.words import REASONS, reason, tell


def _events() -> list[Event]:
    """Every event of a few random games (each kind occurs), the others' hidden cards hidden."""
    events: list[Event] = []
    for seed in range(12):
        state = State.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            state.apply_id(rng.choice(state.legal_action_ids()))
        events += state.events or []
    events.append(Keep(player=1, birds=(None, None)))
    events.append(DrawDeck(player=0, bird=None))
    events.append(TakeBlind(player=0, seed=None))
    return events


EVENTS = _events()
#: Words only the English sentences use.
ENGLISH = re.compile(r"\b(Player|player|takes|the|seed|perch|bird|crow|squirrel)\b")


def test_every_event_kind_occurs() -> None:
    kinds = {e.kind for e in EVENTS}
    assert kinds >= {"turn", "play", "chase", "take_seed", "take_pest", "crow", "squirrel"}
    assert kinds >= {"collect", "pass", "draw_deck", "draw_display", "keep", "game_over"}


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_event_is_told_in_the_language(lang: str) -> None:
    for event in EVENTS:
        english = tell(event)
        with use_language(lang):
            told = tell(event)
        assert told != english or event.kind == "promote", event
        assert not ENGLISH.search(told), told
        assert told[:1].isupper(), told  # a sentence, even one opening with "pěnkava 5♂"
        # The birds and numbers of the sentence are all there.
        assert sorted(re.findall(r"[A-Z]{2}\d[mf]|\d+", told)) == sorted(
            re.findall(r"[A-Z]{2}\d[mf]|\d+", english)
        ), (told, english)


def _illegal() -> list[PiepmatzError]:
    state = State.new_game(players=3, seed=7)
    assert state.phase == PLAY
    p = state.current_player
    other = next(b for b in range(72) if b not in state.hands[p])
    errors: list[PiepmatzError] = []
    for action in (
        f"play {state_bird(other)} 1",
        f"play {state_bird(state.hands[p][0])} 3",
        "draw deck",
        "fly away",
    ):
        try:
            state.apply(action)
        except PiepmatzError as exc:
            errors.append(exc)
    try:
        state.apply(state.legal_action_ids()[0], player=(p + 1) % 3)
    except PiepmatzError as exc:
        errors.append(exc)
    return errors


def state_bird(card: int) -> str:
    from piepmatz.core.cards import BIRD_NAMES

    return BIRD_NAMES[card]


def test_an_illegal_move_names_its_reason_and_each_language_tells_it() -> None:
    errors = _illegal()
    assert [e.reason for e in errors] == [
        "not_in_hand",
        "no_perch",
        "wrong_decision",
        "unreadable",
        "not_your_turn",
    ]
    assert isinstance(errors[0], IllegalActionError) and isinstance(errors[3], InvalidActionError)
    # The core's English message is unchanged in meaning and names the rule.
    assert "(T1.1)" in str(errors[0]) and errors[0].params["rule"] == "T1.1"
    for error in errors:
        assert error.reason in REASONS
        told = {}
        for lang in LANGUAGES:
            with use_language(lang):
                told[lang] = reason(error)
        assert len(set(told.values())) == 3, told
        rule = error.params.get("rule")
        if rule:
            assert all(str(rule) in text for text in told.values())
    # The decision at hand is told in words, not by the notation's kinds.
    wrong = errors[2]
    assert reason(wrong) == "you cannot draw a bird now: play a bird from your hand to a perch"
    for lang in LANGUAGES:
        with use_language(lang):
            assert "'" not in reason(wrong) and "draw" not in reason(wrong).split(":")[1]


@pytest.mark.parametrize(
    ("text", "why", "said"),
    [
        ("play XX5m 2", "not_a_bird", {"cs": "není karta ptáka", "de": "keine Vogelkarte"}),
        ("play BL5m 9", "perch_not_number", {"cs": "bidýlko musí", "de": "Sitzstange muss"}),
        ("draw display x", "slot_not_number", {"cs": "místo v nabídce", "de": "Auslageplatz"}),
        ("keep BL5m BL5m", "keep_twice", {"cs": "dvakrát", "de": "zweimal"}),
    ],
)
def test_what_is_wrong_in_an_unreadable_action_is_told_in_the_language(
    text: str, why: str, said: dict[str, str]
) -> None:
    with pytest.raises(InvalidActionError) as err:
        Action.parse(text)
    assert err.value.reason == why and err.value.params["text"] == text
    word = err.value.params["word"]
    for lang, words in said.items():
        with use_language(lang):
            told = reason(err.value)
        # The player's own input is echoed as typed; the rest is the language's.
        assert told.count(repr(text)) == 1 and str(word) in told and words in told, told
        assert "cannot" not in told and "must" not in told


def test_an_error_without_a_reason_is_told_in_the_cores_words() -> None:
    with use_language("de"):
        assert reason(PiepmatzError("something else")) == "something else"


def test_the_game_over_reason() -> None:
    game = Game.new(players=2, seed=1)
    rng = random.Random(1)
    while not game.state.is_over():
        game.apply(rng.choice(game.state.legal_action_ids()))
    with pytest.raises(IllegalActionError) as err:
        game.apply("pass")
    with use_language("cs"):
        assert reason(err.value) == "hra skončila; už žádné tahy (E2)"


def test_an_unknown_language_on_the_command_line_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--lang", "xx", "--seed", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --lang: unknown language 'xx'" in err
    assert "en, cs, de" in err


@pytest.mark.parametrize(
    ("argv", "env", "words"),
    [
        (
            ["--lang", "cs"],
            {"LANG": "de_DE.UTF-8"},
            ["Piepmatz ukázka", "celkem", "Tah 1: Hráč ", "(bot náhodný)"],
        ),
        ([], {"LANG": "de_DE.UTF-8"}, ["Piepmatz-Demo", "gesamt", "Zug 1: Spieler "]),
        ([], {"LANG": "C.UTF-8"}, ["Piepmatz demo", "total", "Turn 1: Player"]),
    ],
)
def test_demo_in_the_chosen_language(
    argv: list[str], env: dict[str, str], words: list[str]
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "piepmatz.cli", "demo", "--seed", "4", "--players", "2", *argv],
        capture_output=True,
        text=True,
        env={**_base_env(), **env},
        timeout=120,
        check=True,
    )
    for word in words:
        assert word in proc.stdout


def _base_env() -> dict[str, str]:
    import os

    keep = ("PATH", "PYTHONPATH", "HOME", "SYSTEMROOT")
    return {k: v for k, v in os.environ.items() if k in keep}


def test_a_feeder_card_is_named_by_its_kind() -> None:
    from piepmatz.core.cards import CROW, FEEDER_EGGS, FEEDER_KIND, SQUIRREL
    from piepmatz.text.words import feeder

    expected = {CROW: "crow", SQUIRREL: "squirrel"}
    for card, kind in enumerate(FEEDER_KIND):
        assert feeder(card) == expected.get(kind, f"S{FEEDER_EGGS[card]}")
    assert set(FEEDER_KIND) >= {CROW, SQUIRREL}
