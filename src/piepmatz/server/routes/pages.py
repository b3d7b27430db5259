"""The browser client's pages (one page whose script shows the lobby, a table, a replay, the
rules, "My games" or the guided first game by the address), the rules as HTML and the client's
texts in a language."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from piepmatz.i18n import UnknownLanguageError, current_language

from ..language import web_catalogue

router = APIRouter()
STATIC = resources.files("piepmatz.server").joinpath("static")
_PAGE = str(STATIC.joinpath("index.html"))


def rules_html(spec: str, lang: str = "en") -> str:
    """The rules text for players (the terminal game's rules screen) in ``lang``, as HTML."""
    from markdown_it import MarkdownIt

    from piepmatz.core.rules import Rules
    from piepmatz.text.rulebook import rules_markdown

    try:
        rules = Rules.parse(spec)
    except ValueError as exc:
        raise HTTPException(422, f"rules {spec!r}: {exc}") from None
    try:
        text = rules_markdown(rules, lang)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return html


@router.get("/api/rules")
async def rules(spec: str = "standard", lang: str | None = None) -> dict[str, str]:
    """The rules of ``spec`` (a preset, flags allowed) as HTML, in ``lang`` (else the
    request's language)."""
    lang = lang or current_language()
    return {"rules": spec, "lang": lang, "html": rules_html(spec, lang)}


@router.get("/api/i18n")
async def i18n_chosen() -> dict[str, Any]:
    """The browser client's texts in the language the browser asks for (Accept-Language)."""
    return web_catalogue(current_language())


@router.get("/api/i18n/{lang}")
async def i18n(lang: str) -> dict[str, Any]:
    """The browser client's texts in ``lang``: messages (msgid → text, or the plural forms)
    and the plural rule, as gettext writes it."""
    try:
        return web_catalogue(lang)
    except UnknownLanguageError as exc:
        raise HTTPException(404, str(exc)) from None


@router.get("/", include_in_schema=False)
@router.get("/rules", include_in_schema=False)
@router.get("/tutorial", include_in_schema=False)
@router.get("/games", include_in_schema=False)
@router.get("/account", include_in_schema=False)
async def lobby_page() -> FileResponse:
    return FileResponse(_PAGE)


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> FileResponse:
    """The site's icon, where browsers look for it."""
    return FileResponse(str(STATIC.joinpath("favicon.ico")), media_type="image/x-icon")


@router.get("/play/{table_id}", include_in_schema=False)
@router.get("/replay/{table_id}", include_in_schema=False)
async def table_page(table_id: str) -> FileResponse:
    return FileResponse(_PAGE)


@router.get("/players/{page}", include_in_schema=False)
async def player_page(page: str) -> FileResponse:
    return FileResponse(_PAGE)
