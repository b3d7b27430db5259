"""Every request in its own language: ``?lang=``, else ``Accept-Language``, else the server's
(``serve --language``, English by default); and the texts the browser client needs in a
language."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from piepmatz.core.cards import (
    BIRD_EGGS,
    BIRD_FEMALE,
    BIRD_NAMES,
    BIRD_SPECIES,
    BIRD_VALUE,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    NUM_BIRDS,
    NUM_FEEDER,
    SPECIES,
)
from piepmatz.core.rules import PRESETS
from piepmatz.core.state import PHASE_NAMES
from piepmatz.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    PLURAL_CATEGORIES,
    UnknownLanguageError,
    catalogue,
    check_language,
    choose_language,
    plural_forms,
    use_language,
)
from piepmatz.text.words import species_names, species_short

from .vocabulary import ErrorCode, ReportReason, TableStatus


def request_language(scope: Scope, fallback: str = "en") -> str:
    """The language a request is answered in: ``?lang=``, else ``Accept-Language``, else
    ``fallback`` (the server's own).

    A WebSocket cannot set headers from a page's script, so its address carries ``?lang=``.
    """
    from urllib.parse import parse_qs

    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [""])[0]
    if asked:
        try:
            return check_language(asked)
        except UnknownLanguageError:
            pass  # the endpoints that take ``lang`` refuse it themselves; the rest fall back
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    return choose_language(None, {}, accept or None, fallback)


class LanguageMiddleware:
    """Every request is answered in its own language (texts from the server: errors, the
    replay's sentences); a WebSocket's connection keeps the language it opened with."""

    def __init__(self, app: ASGIApp, fallback: str = "en") -> None:
        self.app = app
        #: The language of a request that asks for none of the game's (the operator's choice).
        self.fallback = check_language(fallback)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with use_language(request_language(scope, self.fallback)):
            await self.app(scope, receive, send)


#: Each card's fields by its name (the core's): a bird's species, value, sex and eggs; a feeder
#: card's kind and eggs.
CARDS: dict[str, dict[str, dict[str, Any]]] = {
    "birds": {
        BIRD_NAMES[b]: {
            "species": SPECIES[BIRD_SPECIES[b]],
            "value": BIRD_VALUE[b],
            "sex": "f" if BIRD_FEMALE[b] else "m",
            "eggs": BIRD_EGGS[b],
        }
        for b in range(NUM_BIRDS)
    },
    "feeder": {
        FEEDER_NAMES[f]: {"kind": FEEDER_KIND[f].name.lower(), "eggs": FEEDER_EGGS[f]}
        for f in range(NUM_FEEDER)
    },
}


def _shorts(lang: str) -> dict[str, str]:
    with use_language(lang):
        return {code: species_short(code) for code in SPECIES}


def web_catalogue(lang: str) -> dict[str, Any]:
    """What the browser client needs to show ``lang``: its ``web`` texts and plural rule, the
    species' names and the languages to switch to."""
    lang = check_language(lang)
    return {
        "lang": lang,
        "messages": catalogue(lang, "web"),
        "plural_forms": plural_forms(lang),
        "plural_categories": list(PLURAL_CATEGORIES[lang]),
        # The rules' presets by name, so that the lobby offers what the core has.
        "presets": list(PRESETS),
        # Every card by its name, as fields: the page reads no card notation.
        "cards": CARDS,
        # The vocabulary the page meets, defined once on the server: the phases of a decision,
        # a table's statuses and the codes of refusals (each word the page shows for them is a
        # text of its catalogue, found by these names).
        "phases": list(PHASE_NAMES),
        "statuses": [s.value for s in TableStatus],
        "errors": [c.value for c in ErrorCode],
        "report_reasons": [r.value for r in ReportReason],
        "species": species_names(lang),
        # Each species in two letters, as a card's badge shows it (in the page's language).
        "species_short": _shorts(lang),
        "languages": {code: LANGUAGE_NAMES[code] for code in LANGUAGES},
    }
