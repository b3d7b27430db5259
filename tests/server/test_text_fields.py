"""Display names, chat lines and the words of a refusal (issue 39), on the message models alone.

A name shows something and cannot turn the text around it; a chat line loses any direction
control; and no error repeats what the client sent (``docs/protocol.md``, errors never echo).
"""

from __future__ import annotations

import json
import string
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from piepmatz.server.messages import (
    Chat,
    Join,
    NewTable,
    QuickGame,
    explain,
    parse_client_message,
)
from piepmatz.server.plaintext import BIDI_CONTROLS, MAX_NAME

#: What the HTTP bodies with a name would be without it.
BODIES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (NewTable, {"seats": ["human", "easy"]}),
    (QuickGame, {}),
    (Join, {}),
]


def _refusal(model: type[BaseModel], body: dict[str, Any]) -> str:
    """The words a refused body gets, as the server writes them."""
    with pytest.raises(ValidationError) as refused:
        model.model_validate(body)
    return explain(refused.value.errors(include_url=False))


def _named(name: str) -> list[str]:
    """``name`` as each body keeps it."""
    return [model.model_validate({**body, "name": name}).name for model, body in BODIES]  # type: ignore[attr-defined]


def _chat(text: str) -> str:
    message = parse_client_message(json.dumps({"type": "chat", "text": text}))
    assert isinstance(message, Chat)
    return message.text


def _chat_refusal(text: str) -> str:
    with pytest.raises(ValueError, match="malformed message") as refused:
        parse_client_message(json.dumps({"type": "chat", "text": text}))
    return str(refused.value)


# ---------------------------------------------------------------------- names


INVISIBLE = [
    "\u200b",  # zero width space
    "\u200d",  # zero width joiner
    "\ufeff",  # byte order mark
    "\u2060",  # word joiner
    "\u200b\u200c\u200d\u2060\ufeff",
    " \u200b ",
    "\u00ad",  # soft hyphen
    "\u180e",  # Mongolian vowel separator
    "\u2062\u2063\u2064",  # invisible times, separator, plus
    "\U000e0041\U000e0042",  # tag characters
    "\u0301",  # a combining mark alone
    "\u0301\u0302\u20dd",
    "\ufe0f",  # a variation selector alone
    "\u3000\u00a0\u2007",  # ideographic, no-break and figure spaces
    "\u3164",  # Hangul filler: a letter that shows nothing
    "\u115f\u1160\uffa0",
    "\u2800",  # braille blank
    "\ufdd0",  # a noncharacter
]


@pytest.mark.parametrize("name", INVISIBLE, ids=lambda n: "+".join(f"{ord(c):04X}" for c in n))
def test_a_name_that_shows_nothing_is_refused(name: str) -> None:
    for model, body in BODIES:
        said = _refusal(model, {**body, "name": name})
        assert said.startswith("name: ") and "visible character" in said, said
        assert not name.strip() or name.strip() not in said


@pytest.mark.parametrize(
    "name",
    [
        "Anna",
        "O'Brien-Smith",
        "李雷",
        "محمد",
        "אנה",
        "Zoë",
        "می\u200cخواهم",  # Persian needs the zero width non-joiner
        "👩\u200d👩\u200d👧",  # a family: emoji joined by zero width joiners
        "❤\ufe0f",
        "\U0001fae8",  # an emoji newer than this Python's Unicode tables
        "\ue000",  # private use: a font's own glyph
        "a\u200bb",
    ],
)
def test_names_people_write_are_kept(name: str) -> None:
    assert _named(name) == [name] * len(BODIES)


def test_a_name_is_normalised_and_trimmed() -> None:
    assert _named("  Jose\u0301\u3000") == ["Jos\u00e9"] * len(BODIES)
    # NFC makes some characters longer: the limit holds for what is kept (U+FB2C is 3 in NFC).
    assert _named("\ufb2c" * 10) == [unicodedata.normalize("NFC", "\ufb2c" * 10)] * len(BODIES)
    for model, body in BODIES:
        said = _refusal(model, {**body, "name": "\ufb2c" * 11})
        assert said.startswith("name: ") and f"at most {MAX_NAME} characters" in said, said


@pytest.mark.parametrize("control", sorted(BIDI_CONTROLS))
def test_a_name_with_a_direction_control_is_refused_by_its_code_point(control: str) -> None:
    assert len(BIDI_CONTROLS) == 12
    for model, body in BODIES:
        said = _refusal(model, {**body, "name": f"Anna{control}Ben"})
        assert said.startswith("name: ") and f"U+{ord(control):04X}" in said, said
        assert "Anna" not in said and "Ben" not in said and control not in said


@pytest.mark.parametrize(
    "control", ["\n", "\r", "\x1b", "\x00", "\x7f", "\x85", "\u2028", "\u2029"]
)
def test_a_line_break_or_control_character_is_refused_by_its_code_point(control: str) -> None:
    point = f"U+{ord(control):04X}"
    for model, body in BODIES:
        said = _refusal(model, {**body, "name": f"Anna{control}Ben"})
        assert "one line" in said and point in said and "Anna" not in said, said
    said = _chat_refusal(f"good{control}luck")
    assert "one line" in said and point in said and "good" not in said, said


# ---------------------------------------------------------------------- chat


@pytest.mark.parametrize("control", sorted(BIDI_CONTROLS))
def test_chat_loses_direction_controls_and_keeps_its_words(control: str) -> None:
    assert _chat(f"good {control}luck{control}!") == "good luck!"
    assert _chat(f"שלום {control}friend") == "שלום friend"


@pytest.mark.parametrize(
    "text",
    [*INVISIBLE, "\u202e", "\u2066\u2069\u200e", "\u202e\u200b "],
    ids=lambda n: "+".join(f"{ord(c):04X}" for c in n),
)
def test_a_chat_line_that_shows_nothing_is_refused(text: str) -> None:
    said = _chat_refusal(text)
    assert "chat.text: " in said and "visible character" in said, said


def test_chat_people_write_is_kept_as_sent() -> None:
    for text in [
        "<b>good luck</b>",
        "Jose\u0301!",
        "می\u200cخواهم",
        "👩\u200d👩\u200d👧",
        "  hi  ",
    ]:
        assert _chat(text) == text


# ---------------------------------------------------------------------- errors never echo


def _malformed(text: str) -> str:
    with pytest.raises(ValueError) as refused:
        parse_client_message(text)
    said = str(refused.value)
    assert said.startswith("malformed message: "), said
    return said


def test_an_unknown_message_type_is_refused_without_repeating_it() -> None:
    expected = (
        "type: unknown message type; expected one of "
        "hello, action, chat, sync, preview, hint, resign, abort, seat_bot, back, mute"
    )
    for kind in ['"SECRET-VALUE-123"', "5", "null", "true", '["hello"]', '{"a": "SECRET"}']:
        assert _malformed(f'{{"type": {kind}}}') == f"malformed message: {expected}"
    assert _malformed('{"token": "SECRET"}') == "malformed message: type: missing; " + (
        "expected one of hello, action, chat, sync, preview, hint, resign, abort, seat_bot, "
        "back, mute"
    )


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('{"type":"hello"', "line 1 column 15"),
        ("{not json", "line 1 column 2"),
        ("", "line 1 column 0"),
        ('{"type": "hello", "token": "abc\\ud800"}', "line 1 column"),
        ('{"type": "hello",\n "token": SECRET}', "line 2 column"),
    ],
)
def test_a_message_that_is_not_json_says_why_once_with_the_position(
    text: str, position: str
) -> None:
    said = _malformed(text)
    assert said.startswith("malformed message: not JSON: "), said
    assert said.count(position) == 1 and "(" not in said and "SECRET" not in said, said


def test_an_unknown_field_is_named_only_when_it_is_a_plain_name() -> None:
    said = _malformed('{"type": "hello", "token": "t", "colour": 1}')
    assert said == "malformed message: hello.colour: unknown field"
    for key in ["SECRET-VALUE", "<img src=x>", "SECRET\u202e", "S" * 40, "9SECRET", "ŠECRET"]:
        said = _malformed(json.dumps({"type": "hello", "token": "t", key: 1}))
        assert said == "malformed message: hello: an unknown field (its name is not repeated)"


def test_an_http_body_is_explained_without_its_values() -> None:
    said = _refusal(NewTable, {"seats": "SECRET", "name": 5, "public": "SECRET", "seed": -1})
    assert "SECRET" not in said and said.startswith("seats: "), said


MARKER = "SECRET-VALUE-123"
#: The marker as every kind of value and in every kind of text a client could send.
MARKED_TEXT = st.sampled_from(
    [
        MARKER,
        f"{MARKER}\n",
        f"\u202e{MARKER}",
        f"\u200b{MARKER}",
        f"<b>{MARKER}</b>",
        MARKER * 20,
        f"'{MARKER}'",
        f"\\{MARKER}",
        f"{MARKER}\x00",
        f"{MARKER}{{x}}",
    ]
)
MARKED_VALUES = st.recursive(
    st.one_of(MARKED_TEXT, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(MARKED_TEXT, inner, max_size=2)
    ),
    max_leaves=6,
)
#: A field name that is not a plain name (a plain one is named back: see explain).
MARKED_KEYS = MARKED_TEXT | st.sampled_from([f"x{MARKER}", f"{MARKER} ", "token\u200b"])
FIELDS = {
    "hello": ["token"],
    "action": ["move", "action"],
    "chat": ["text"],
    "sync": [],
    "preview": ["move"],
    "hint": ["move"],
}
GOOD = {"token": "t", "move": 0, "action": "pass", "text": "hi"}


@st.composite
def marked_messages(draw: st.DrawFn) -> str:
    """A client message with the marker in a value, a field name, the type, or cut JSON."""
    kind = draw(st.sampled_from(sorted(FIELDS)))
    message: dict[str, Any] = {"type": kind} | {f: GOOD[f] for f in FIELDS[kind]}
    for field in draw(st.lists(st.sampled_from([*FIELDS[kind], "type"]), max_size=3)):
        message[field] = draw(MARKED_VALUES)
    for _ in range(draw(st.integers(0, 2))):
        message[draw(MARKED_KEYS)] = draw(MARKED_VALUES)
    for field in draw(st.lists(st.sampled_from(FIELDS[kind] or ["type"]), max_size=1)):
        del message[field]
    text = json.dumps(message, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):  # not JSON any more: cut, or with a bare word
        cut = draw(st.integers(0, len(text)))
        text = draw(st.sampled_from([text[:cut], text[:cut] + MARKER + text[cut:]]))
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=marked_messages())
def test_no_refusal_repeats_what_the_client_sent(text: str) -> None:
    try:
        parse_client_message(text)
    except ValueError as refused:
        said = str(refused)
        assert MARKER not in said and "SECRET" not in said, said
        assert set(said) <= set(string.printable) - set("\t\n\r\x0b\x0c"), said


@settings(max_examples=200, deadline=None)
@given(
    model=st.sampled_from([NewTable, QuickGame, Join]),
    body=st.dictionaries(
        st.sampled_from(["seats", "rules", "name", "seat", "public", "seed", "players", "bot"])
        | st.sampled_from(["token", "hints"])
        | MARKED_KEYS,
        MARKED_VALUES,
        max_size=5,
    ),
)
def test_no_refused_http_body_is_repeated(model: type[BaseModel], body: dict[str, Any]) -> None:
    try:
        model.model_validate(body)
    except ValidationError as refused:
        said = explain(refused.errors(include_url=False))
        assert "SECRET" not in said, said
