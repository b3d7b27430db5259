"""The terminal game and the text mode in Czech and German: whole games, the language switch,
snapshots of the main screen, and a layout that holds with the longer words."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest

from piepmatz.core import Game
from piepmatz.core.cards import BIRD_SPECIES, SPECIES
from piepmatz.i18n import current_language, set_language, use_language
from piepmatz.text.words import species_name
from piepmatz.tui.app import PiepmatzApp
from piepmatz.tui.screens import EndScreen, NewGameScreen, TableScreen
from piepmatz.tui.session import Session
from piepmatz.tui.textmode import TextGame

#: Words each language's table and end screen show, and English words they must not.
WORDS = {
    "cs": {
        "table": ["BIDÝLKA", "ŘADA ZRNÍ", "NABÍDKA", "TVOJE RUKA (Hráč 1)", "Tah 1: Hráč 1."],
        "end": ["Hra skončila — bodování", "celkem", "Nová hra"],
    },
    "de": {
        "table": ["SITZSTANGEN", "KÖRNERREIHE", "AUSLAGE", "DEINE HAND (Spieler 1)", "Zug 1"],
        "end": ["Das Spiel ist vorbei — Wertung", "gesamt", "Neues Spiel"],
    },
}
ENGLISH = ["PERCHES", "SEED COLUMN", "YOUR HAND", "Player 1", "Turn 1", "score sheet", "total"]


@pytest.fixture
def language() -> Iterator[None]:
    """Each test sets the process's language; it is English again afterwards."""
    yield
    set_language("en")


def _table_app(players: int = 3) -> PiepmatzApp:
    seats = ["human"] + ["random"] * (players - 1)
    session = Session(Game.new(players=players, seed=7, first_player=0), seats)
    return PiepmatzApp(session=session, bot_delay=0)


@pytest.mark.usefixtures("quick_idle")
@pytest.mark.parametrize("lang", ["cs", "de"])
def test_a_whole_game_in_the_terminal_game(tui: Any, language: None, lang: str) -> None:
    set_language(lang)

    async def scenario() -> None:
        app = _table_app(2)
        async with app.run_test(size=tui.size) as pilot:
            await tui.settle(pilot)
            text = tui.text(app)
            for word in WORDS[lang]["table"]:
                assert word in text
            for word in ENGLISH:
                assert word not in text
            # Tiles in the language's letters (Gi for Gimpel): the English ones are not there.
            shown = tui.rendered(app)
            assert re.search(r"(Ko|Hý|Pě|Zv|Vr|St|Am|Gi|Go)\d[♂♀]", shown), shown
            english = ["Bl", "Bu", "Ch", "Gr", "Sp", "Ye"] if lang == "cs" else ["Bl", "Ch", "Ye"]
            assert not re.search(rf"\b({'|'.join(english)})\d[♂♀]", shown), shown
            await tui.until_screen(app, pilot, EndScreen, press="enter", tries=600)
            text = tui.text(app) + tui.rendered(app)
            for word in WORDS[lang]["end"]:
                assert word in text
            for word in ENGLISH:
                assert word not in text
            # The footer's key descriptions too.
            footer = tui.rendered(app)
            assert ("Nová hra" if lang == "cs" else "Neues Spiel") in footer

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", ["cs", "de"])
def test_a_whole_game_in_the_text_mode(language: None, lang: str) -> None:
    set_language(lang)
    session = Session(Game.new(players=2, seed=3, first_player=0), ["human", "random"])
    lines = ["help", "play XX9 1", *["1"] * 200]
    out, err = io.StringIO(), io.StringIO()
    TextGame(session, out, io.StringIO("\n".join(lines) + "\n"), err=err).run()
    assert session.state_over
    text = out.getvalue()
    if lang == "cs":
        assert "Povolené tahy" in text and "Tah 1: Hráč 1." in text and "BIDÝLKA" in text
        assert "celkem" in text and ("vyhrává" in text or "dělí o vítězství" in text)
        assert err.getvalue().startswith("chyba: ")
    else:
        assert "Erlaubte Züge" in text and "Zug 1: Spieler 1." in text and "SITZSTANGEN" in text
        assert "gesamt" in text and ("gewinnt" in text or "teilen sich den Sieg" in text)
        assert err.getvalue().startswith("Fehler: ")
    for word in [*ENGLISH, "Legal actions", " wins", "takes"]:
        assert word not in text
    # The species set aside in a two-player game, named in words, not by its code.
    gone = next(
        line
        for line in text.splitlines()
        if ("mimo hru" if lang == "cs" else "aussortiert") in line
    )
    code = SPECIES[BIRD_SPECIES[session.game.state.removed_birds[0]]]
    with use_language(lang):
        assert species_name(code) in gone and f" {code} " not in gone


def test_the_new_game_screen_switches_the_language_at_once(
    tui: Any, plain_bots: None, language: None
) -> None:
    async def scenario() -> None:
        app = PiepmatzApp(seed=7, bot_delay=0)
        async with app.run_test(size=tui.size) as pilot:
            await pilot.pause()
            assert "Players" in tui.text(app)
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            screen.query_one("#language").value = "de"
            await pilot.pause()
            await pilot.pause()
            assert current_language() == "de"
            assert isinstance(app.screen, NewGameScreen) and app.screen is not screen
            text = tui.text(app)
            assert "Spieler" in text and "Regeln" in text and "Players" not in text
            assert "Starten" in tui.rendered(app) or "Start" in tui.rendered(app)
            app.screen.query_one("#language").value = "cs"
            await pilot.pause()
            await pilot.pause()
            assert "Hráči" in tui.text(app)
            await pilot.press("ctrl+s")
            await tui.settle(pilot)
            assert isinstance(app.screen, TableScreen)
            assert "BIDÝLKA" in tui.text(app)

    asyncio.run(scenario())


# ---------------------------------------------------------------------- layout and snapshots

SIZES = [(80, 24), (100, 30)]


@pytest.mark.parametrize("lang", ["de", "cs"])
@pytest.mark.parametrize("size", SIZES)
def test_the_table_fits_in_the_longer_languages(
    tui: Any, language: None, lang: str, size: tuple[int, int]
) -> None:
    """Every line of the status and the table is shown whole: nothing wraps or is cut off."""
    set_language(lang)

    async def scenario() -> None:
        app = _table_app(4)
        async with app.run_test(size=size) as pilot:
            await tui.settle(pilot)
            table = app.screen
            assert isinstance(table, TableScreen)
            status, drawn = table.drawn()
            lines = [status.plain, *drawn.plain.splitlines()]
            # On a loaded machine the first frames may lag behind the widgets' content.
            for _ in range(20):
                shown = tui.rendered(app).splitlines()
                whole = all(any(line.rstrip() in row for row in shown) for line in lines)
                if whole and shown[-1].strip():  # the footer drawn too
                    break
                await pilot.pause(0.05)
            for line in lines:
                assert len(line) <= size[0] - 2, f"too wide for {size[0]} columns: {line!r}"
                assert any(line.rstrip() in row for row in shown), f"not shown whole: {line!r}"
            # The choices' title, the preview's first line and the footer's keys are there.
            title = "Tvůj tah" if lang == "cs" else "Dein Zug"
            assert any(title in row for row in shown)
            assert ("Rada" if lang == "cs" else "Tipp") in shown[-1]

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", ["cs", "de"])
@pytest.mark.parametrize("size", SIZES)
def test_snapshot_table(
    snap_compare: Any, tui: Any, language: None, lang: str, size: tuple[int, int]
) -> None:
    set_language(lang)

    async def run_before(pilot: Any) -> None:
        await tui.settle(pilot)
        await pilot.press("down")

    assert snap_compare(_table_app(4), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "cs", "de"])
def test_the_legend_reads_the_table_in_the_language(language: None, lang: str) -> None:
    """The rules screen's first part explains the tiles as the table draws them."""
    from piepmatz.core.cards import BIRD_NAMES
    from piepmatz.text.words import species_names, species_short
    from piepmatz.tui.render import legend_markdown, tile_text

    set_language(lang)
    legend = legend_markdown()
    assert tile_text(BIRD_NAMES.index("BL5f")).rstrip() in legend
    shorts = {species_short(code) for code in SPECIES}
    assert len(shorts) == 6 and all(f"**{short}** " in legend for short in shorts)
    if lang != "en":  # the species by the language's names, none by the English ones
        assert not any(name in legend for name in species_names("en").values())
