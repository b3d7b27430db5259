"""The browser client in Czech and German: chosen from the browser's languages or ``?lang=``,
switched on the page without a reload, the table drawn in the language and the rules page
showing the rules text of that language."""

from __future__ import annotations

from typing import Any

DESKTOP = {"width": 1440, "height": 900}
PATIENCE = 30_000


def _lobby(browser: Any, site: str, locale: str, query: str = "") -> tuple[Any, Any]:
    context = browser.new_context(viewport=DESKTOP, locale=locale)
    page = context.new_page()
    page.goto(f"{site}/{query}")
    page.wait_for_selector("#quick-start", timeout=PATIENCE)
    return context, page


def test_the_lobby_follows_the_browsers_language(browser: Any, site: str) -> None:
    for locale, lang, words in (
        ("cs-CZ", "cs", ["Hrát hned proti botům", "Otevřít stůl", "Tvoje jméno"]),
        ("de-DE", "de", ["Sofort gegen Bots spielen", "Tisch eröffnen", "Dein Name"]),
        ("fr-FR", "en", ["Play against bots now", "Open a table", "Your display name"]),
    ):
        context, page = _lobby(browser, site, locale)
        try:
            assert page.evaluate("document.documentElement.lang") == lang
            text = page.inner_text("main")
            assert all(word in text for word in words), (locale, text[:300])
            current = page.locator("#language button[aria-current=true]")
            assert current.get_attribute("lang") == lang
        finally:
            context.close()


def test_switching_the_language_redraws_the_lobby_without_a_reload(browser: Any, site: str) -> None:
    context, page = _lobby(browser, site, "en-GB")
    try:
        page.fill("#name", "Jana")
        page.evaluate("window.notReloaded = true")
        page.click("#language button[lang=cs]")
        page.wait_for_function("() => document.documentElement.lang === 'cs'", timeout=PATIENCE)
        page.wait_for_selector("text=Hrát hned proti botům", timeout=PATIENCE)
        assert page.evaluate("window.notReloaded") is True
        assert page.inner_text("#quick-start") == "Hrát hned proti botům"
        assert page.inner_text("#rules-link") == "Pravidla"
        # 3 players, 2 players, 4 players: Czech's plural forms (1 / 2-4 / 5 and more)
        assert page.locator("#quick-players option").all_inner_texts() == [
            "3 hráči", "2 hráči", "4 hráči"
        ]  # fmt: skip
        page.click("#language button[lang=de]")
        page.wait_for_selector("text=Sofort gegen Bots spielen", timeout=PATIENCE)
        assert page.evaluate("window.notReloaded") is True
        # the choice is remembered: the next page opens in German
        page.goto(f"{site}/")
        page.wait_for_selector("text=Sofort gegen Bots spielen", timeout=PATIENCE)
    finally:
        context.close()


def test_a_table_in_german_then_in_czech(browser: Any, site: str) -> None:
    context, page = _lobby(browser, site, "en-US", "?pace=0&lang=de")
    try:
        page.fill("#name", "Grete")
        page.select_option("#quick-bot", "random")
        page.click("#quick-start")
        page.wait_for_selector(".board", timeout=PATIENCE)
        page.wait_for_selector("#log li", timeout=PATIENCE)
        board = page.text_content(".board-wrap") or ""
        for word in ("Körnerreihe", "Auslage", "Vogelstapel", "Futterstapel", "Sitzstange 1"):
            assert word in board, word
        assert "Spielverlauf" in page.inner_text(".side-col")
        # the log's sentences come in German, each "Spieler N" told by the seat's name
        log = page.inner_text("#log")
        assert "Zug 1:" in log and "Spieler" not in log
        assert "Grete" in log or "Bot 2" in log or "Bot 3" in log
        # A card's spoken name: "Amsel 5, Männchen, 3 Eier".
        assert page.get_attribute(".card.bird", "aria-label").split(", ")[1] in {
            "Männchen",
            "Weibchen",
        }
        page.evaluate("window.notReloaded = true")
        page.click("#language button[lang=cs]")
        page.wait_for_selector("text=Řada zrní", timeout=PATIENCE)
        page.wait_for_selector("#log li", timeout=PATIENCE)
        assert page.evaluate("window.notReloaded") is True
        board = page.text_content(".board-wrap") or ""
        for word in ("Nabídka", "balíček ptáků", "balíček krmítka", "Bidýlko 1"):
            assert word in board, word
        assert "Průběh hry" in page.inner_text(".side-col")
        log = page.inner_text("#log")
        assert "Tah 1:" in log and "hráč" not in log.lower() and "Zug 1:" not in log
        assert "Körnerreihe" not in page.inner_text("main")
        # the page still plays: its new connection receives the game
        page.wait_for_function(
            "() => { const shown = document.querySelector('.table-page');"
            " return shown && shown.dataset.move && shown.getAttribute('aria-busy') === 'false'; }",
            timeout=PATIENCE,
        )
    finally:
        context.close()


def test_the_rules_page_shows_the_rules_text_of_the_language(browser: Any, site: str) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="cs-CZ")
    page = context.new_page()
    try:
        page.goto(f"{site}/rules?rules=overview")
        page.wait_for_selector("article.rules h1", timeout=PATIENCE)
        assert page.inner_text("article.rules h1") == "Pravidla této hry: pravidla z přehledu"
        assert "krmítk" in page.inner_text("article.rules")
        page.click("#language button[lang=de]")
        page.wait_for_selector("text=Regeln dieser Partie: Regeln der Übersicht", timeout=PATIENCE)
        assert "Futterhaus" in page.inner_text("article.rules")
    finally:
        context.close()
