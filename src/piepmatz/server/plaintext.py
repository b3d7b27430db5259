"""What a person may write where others read it: a display name and a chat line. Plain text on
one line that shows something; no control characters; bidirectional controls refused in a
name (it is shown everywhere, and its owner can fix it) and taken out of chat (some keyboards
type them unseen). Refusals name the character's code point, never the text.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

#: Longest chat line and display name, in characters.
MAX_CHAT = 500
MAX_NAME = 32

#: Bidirectional controls: the embeddings, overrides and isolates (U+202A-U+202E,
#: U+2066-U+2069) and the marks (U+200E, U+200F, U+061C). Each changes the order in which the
#: text around it is shown: U+202E makes ``Anna`` + U+202E + ``gnp.exe`` read ``Annaexe.png``.
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
_NO_BIDI = str.maketrans(dict.fromkeys(BIDI_CONTROLS))

#: Letters and symbols that show nothing (Hangul fillers, the braille blank).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def _visible(char: str) -> bool:
    """Whether ``char`` shows something by itself: a letter, number, punctuation or symbol, a
    private-use glyph, or a character newer than this Python's Unicode tables (a new emoji).
    Not: spaces, format characters (category Cf: U+200B, U+200D, U+FEFF, U+2060, ...), a
    combining mark alone, controls, and the unassigned code points that are default-ignorable
    or noncharacters."""
    category = unicodedata.category(char)
    if category[0] in "LNPS":
        return char not in _BLANK
    if category == "Co":
        return True
    if category == "Cn":
        point = ord(char)
        ignorable = point == 0x2065 or 0xFFF0 <= point <= 0xFFF8 or 0xE0000 <= point <= 0xE0FFF
        noncharacter = 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE
        return not (ignorable or noncharacter)
    return False


def _plain_text(text: str) -> str:
    """One line of plain text that shows something: control characters (newlines, escapes) and
    line or paragraph separators are refused, and so is text with nothing visible. A refusal
    names the character by its code point and never repeats the text."""
    for char in text:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise PydanticCustomError(
                "plain_text",
                "plain text on one line only, not {char} (a control character or line break)",
                {"char": _code_point(char)},
            )
    if not any(_visible(char) for char in text):
        raise PydanticCustomError(
            "plain_text",
            "must have a visible character, not only spaces or invisible characters",
        )
    return text


def _display_name(name: str) -> str:
    """A display name: plain text in NFC (one spelling for one look), trimmed, with no
    direction control. A name is chosen once and shown on every seat, the lobby and the
    record, next to other people's text: one that turns that text around is refused, and the
    person, told which character, chooses again."""
    name = unicodedata.normalize("NFC", name).strip()
    for char in name:
        if char in BIDI_CONTROLS:
            raise PydanticCustomError(
                "plain_text",
                "a name cannot hold {char}, a control that reorders the text around it",
                {"char": _code_point(char)},
            )
    name = _plain_text(name)
    if len(name) > MAX_NAME:  # NFC makes a few characters longer (U+FB2C is three)
        raise PydanticCustomError(
            "string_too_long",
            "String should have at most {max_length} characters",
            {"max_length": MAX_NAME},
        )
    return name


def _chat_text(text: str) -> str:
    """A chat line: plain text without direction controls. They are taken out, not refused
    (as they are in a name): some right-to-left keyboards type the marks by themselves, and
    refusing a line for a character nobody sees would lose the words of the moment for
    nothing. Without them a line of mixed directions may at worst place its punctuation a
    little differently; with them it could show other words than it holds."""
    return _plain_text(text.translate(_NO_BIDI))


#: A chat line and a display name: plain text, length-limited.
ChatText = Annotated[str, Field(min_length=1, max_length=MAX_CHAT), AfterValidator(_chat_text)]
DisplayName = Annotated[
    str, Field(min_length=1, max_length=MAX_NAME), AfterValidator(_display_name)
]
