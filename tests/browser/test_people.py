"""The browser speaks to people, not to the engine (issue 42): seats by name or counted from 1,
birds as small cards, rules in words with a link to them, numbers the language's way; a lost
connection shown with the controls off until it is back; every dead end a page that says what
happened and offers the way on; the end shows what it can of every seed pile and explains the
score sheet."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import expect

from piepmatz.core import Game
from piepmatz.core.cards import FEEDER_EGGS

DESKTOP = {"width": 1440, "height": 900}
PATIENCE = 30_000

#: A card in the engine's notation (BL5m), a rule's id (T3.1, E4), a seat counted from 0.
CODE = re.compile(r"\b(?:BL|BU|CH|GR|SP|YE)[1-6][mf]\b")
RULE_ID = re.compile(r"\(?\b[CSTE]\d(?:\.\d)?[a-f]?\)?(?=[\s.,;:)]|$)")
ZERO_SEAT = re.compile(r"\b(?:[Ss]eat|[Pp]layer|Bot) 0\b")

#: The texts of the game's part of the page a person reads while playing: the log, the
#: banner, the status, the prompt and the words of each move (the previews are the server's).
_READ = """() => [
  ...document.querySelectorAll('#log li, #banner, #status-line, .table-head, #decision .prompt,'
    + ' #decision .option .what, .player header')].map((el) => el.textContent)"""


def test_people_read_names_small_cards_and_rules_in_words(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server.url(server.quick(3)["link"]))
    rules_seen: set[str] = set()
    for _ in range(8):
        page.wait_for_function(server.READY, timeout=PATIENCE)
        s = page.evaluate(server.STATUS)
        if s["over"]:
            break
        for text in page.evaluate(_READ):
            assert not CODE.search(text), text
            assert not RULE_ID.search(text), text
            assert not ZERO_SEAT.search(text), text
        # The prompt's rule is a link to that rule on the rules page.
        link = page.locator("#decision .prompt a.rule-link")
        href = link.get_attribute("href") or ""
        assert re.fullmatch(r"/rules\?rules=standard#rule-(T1|T2\.2|T2\.1d|T3\.1|E3)", href), href
        rules_seen.add(href)
        if s["phase"] == "play":
            page.locator(".hand-card.usable").first.click()
        page.locator("#decision button.option").first.click()
        page.wait_for_function(f"() => window.__seat.state.move !== {s['move']}")
    # Seats count from 1: this page's is the first, the bots the second and third.
    assert "seat 1" in page.inner_text(".table-head")
    assert page.locator(".player .name").all_inner_texts() == ["Anna (you)", "Bot 2", "Bot 3"]
    # The log's sentences come in parts: a seat by its name, a bird as a small card that says
    # its name in words to assistive technology.
    assert page.locator("#log .who.you").count() > 0 and page.locator("#log .who").count() > 0
    mini = page.locator("#log .mini").first
    name = mini.get_attribute("aria-label") or ""
    assert re.fullmatch(r"\w[\w ]* [1-6], (male|female), [1-3] eggs?", name), name
    # Each rule link leads to its rule, shown at the top of the rules page and marked.
    rules = page.context.new_page()
    for href in sorted(rules_seen)[:2]:
        rules.goto(f"{server.site}{href}")
        anchor = href.split("#")[1]
        rule = rules.locator(f'[id="{anchor}"]')
        expect(rule).to_have_class(re.compile(r"\btarget\b"), timeout=PATIENCE)
        top = rule.evaluate("(el) => el.getBoundingClientRect().top")
        assert 0 <= top < DESKTOP["height"] / 2
    rules.close()
    page.close()


def test_numbers_are_written_the_languages_way(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    written = {}
    for lang in ("en", "cs", "de"):
        page.goto(f"{server.site}/rules?lang={lang}")
        page.wait_for_selector("article.rules h1")
        written[lang] = page.evaluate(
            """async () => { const words = await import('/static/tablewords.js');
              return [words.number(2000), words.number(-1.8, 1), words.percent(0.32)]; }"""
        )
    nbsp = "\u00a0"
    assert written["en"] == ["2,000", "-1.8", "32%"]
    assert written["cs"] == [f"2{nbsp}000", "-1,8", f"32{nbsp}%"]
    assert written["de"] == ["2.000", "-1,8", f"32{nbsp}%"]
    page.close()


def test_your_own_resignation_is_told_to_you_as_yours(browser: Any, server: Any) -> None:
    """How a game ended names the person who resigned, except to that person: "Bernd (du)
    hat aufgegeben" read as if somebody else had."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.site}/rules?lang=de")
    page.wait_for_selector("article.rules h1")
    told = page.evaluate(
        """async () => { const words = await import('/static/tablewords.js');
          const nameOf = (p) => ['Anna', 'Bernd (du)', 'Cleo'][p];
          const ending = { how: 'resigned', seat: 1, winners: [0], resigned: [1, 2] };
          return [words.endingWords(ending, nameOf, 1), words.endingWords(ending, nameOf, 0)]; }"""
    )
    mine, theirs = told
    assert mine == [
        "Du hast aufgegeben: Anna gewinnt.",
        "Cleo hat aufgegeben; ein Bot hat weitergespielt.",
    ]
    assert theirs[0] == "Bernd (du) hat aufgegeben: Anna gewinnt."
    ended = {"how": "played_out", "resigned": [0]}
    alone = page.evaluate(
        """async (ending) => { const words = await import('/static/tablewords.js');
          return words.endingWords(ending, (p) => 'X', 0); }""",
        ended,
    )
    assert alone == [
        "Die Partie wurde zu Ende gespielt.",
        "Du hast aufgegeben; ein Bot hat für dich weitergespielt.",
    ]
    page.close()


def test_the_end_shows_every_seed_pile_and_explains_the_score_sheet(
    browser: Any, server: Any
) -> None:
    made = server.quick(3, seed=5)
    server.finish(made, 2)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server.url(made["link"]))
    page.wait_for_selector(".scores")
    record = httpx.get(f"{server.site}/api/tables/{made['table']}/record").json()
    state = Game.from_record(record).state
    # Nobody's blind seeds stay "? ? ?" once the game is over: each pile's seeds are shown.
    assert page.locator(".player .seeds .chip.back").count() == 0
    assert any(state.seeds_blind[seat] for seat in (1, 2))
    for seat in (1, 2):
        if state.seeds_blind[seat]:
            eggs = sum(FEEDER_EGGS[c] for c in state.seeds_blind[seat])
            blind = page.locator(f'.player[data-seat="{seat}"] .seeds .blind')
            # The server shows the piles at the end (``view.blind_seeds``): each seed's eggs.
            assert blind.inner_text().count("●") == eggs, blind.inner_text()
    # The highlighted cells of the score sheet have their legend, with a link to the rule.
    legend = page.locator("#sheet-legend")
    expect(legend).to_be_visible()
    assert legend.locator("a.rule-link").get_attribute("href") == "/rules?rules=standard#rule-E4"
    if record["result"]["majority"]:
        assert page.locator(".sheet td.majority .star").count() > 0
    page.close()


#: Each line of each cell of the score sheet's row of pairs, as the page lays it out: the
#: characters grouped by the line they are drawn on.
_PAIR_CELL_LINES = """() => [...document.querySelectorAll('.sheet tr.pairs td')].map((td) => {
  const lines = new Map();
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      lines.set(top, (lines.get(top) ?? '') + node.data[i]);
    }
  return [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text.trim())
    .filter((text) => text);
})"""


def test_four_players_score_sheet_fits_the_smallest_phone_each_product_whole(
    browser: Any, server: Any
) -> None:
    made = server.quick(4, seed=5)
    server.finish(made, 2)
    page = browser.new_page(viewport={"width": 320, "height": 740})
    page.goto(server.url(made["link"]))
    page.wait_for_selector(".scores")
    sheet = page.locator(".scores")
    assert sheet.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the sheet scrolls sideways"
    record = httpx.get(f"{server.site}/api/tables/{made['table']}/record").json()
    cells = page.evaluate(_PAIR_CELL_LINES)
    players = record["result"]["players"]
    assert len(cells) == len(players) == 4
    for lines, player in zip(cells, players, strict=True):
        product, points = f"{player['pairs']} × 5", f"= {player['pair_points']}"
        # On one line, or broken before "=" only: never "0 ×" above "5 =" above "0".
        assert lines in ([f"{product} {points}"], [product, points]), lines
    page.close()


def test_a_lost_connection_is_shown_and_the_controls_wait_for_it(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    online = {"yes": True}
    connections: list[Any] = []

    def route(ws: Any) -> None:
        if not online["yes"]:
            ws.close()
            return
        ws.connect_to_server()
        connections.append(ws)

    page.route_web_socket(re.compile(r"/ws/"), route)
    page.goto(server.url(server.quick(2)["link"]))
    page.wait_for_function(server.READY, timeout=PATIENCE)
    assert page.evaluate(server.STATUS)["legal"]
    online["yes"] = False
    connections[-1].close()
    # Said at once, and nothing of the game can be used until the server is back.
    expect(page.locator("#connection-lost")).to_be_visible(timeout=PATIENCE)
    enabled = page.evaluate(
        "() => [...document.querySelectorAll('.play-col button, .chat-form button,"
        " .chat-form input')].filter((el) => !el.disabled).map((el) => el.textContent)"
    )
    assert enabled == []
    expect(page.locator(".player.me .tag.offline")).to_have_text("○ not connected")
    expect(page).to_have_title("Not connected — Piepmatz")
    # A key does nothing either (the decision's moves are off).
    page.keyboard.press("1")
    assert page.evaluate("() => !document.activeElement.closest('#decision button')")
    online["yes"] = True
    expect(page.locator("#connection-lost")).to_be_hidden(timeout=PATIENCE)
    page.wait_for_function(server.READY, timeout=PATIENCE)
    expect(page.locator(".player.me .tag.online")).to_be_visible()
    expect(page.locator("#decision button.option, .hand-card.usable").first).to_be_enabled()
    page.close()


def test_each_dead_end_says_what_happened_and_offers_the_way_on(browser: Any, server: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    site = server.site
    heading = page.get_by_role("heading", level=1)
    for path in ("/play/no-such-table", "/replay/no-such-table"):
        page.goto(f"{site}{path}")
        expect(heading).to_have_text("There is no table no-such-table")
        ways = page.get_by_role("main")
        expect(ways.get_by_role("link", name="Lobby", exact=True)).to_have_attribute("href", "/")
        expect(ways.get_by_role("link", name="My games", exact=True)).to_be_visible()

    # A mistyped link to a taken seat: said so, and the seat this tab had is still its own.
    made = server.table(["human", "human"], name="Anna")
    table = made["table"]
    page.goto(server.url(made["link"]))
    expect(page.locator("#decision h2")).to_have_text("Waiting for seat 2 to join")
    page.goto(f"{site}/play/{table}?pace=0#seat=0&token={'x' * 43}")
    expect(heading).to_have_text(f"This link opens no seat at table {table}")
    page.get_by_role("link", name="Open my seat").click()
    expect(page.locator("#decision h2")).to_have_text("Waiting for seat 2 to join")
    # A mistyped link to a free seat: the join form, then the same page, and the seat is free.
    page.goto(f"{site}/play/{table}?pace=0#seat=1&token={'y' * 43}")
    page.fill("#join-name", "Ben")
    page.get_by_role("button", name="Take my seat").click()
    expect(heading).to_have_text(f"This link opens no seat at table {table}")
    assert httpx.get(f"{site}/api/tables/{table}").json()["seats"][1]["name"] is None

    # Someone with no seat: a finished game says how it ended and leads to its replay; a game
    # going on with every seat taken says so; its replay waits for its end.
    over = server.quick(2)
    server.finish(over, 3)
    going = server.quick(2)
    stranger = browser.new_page(viewport=DESKTOP)
    stranger.goto(f"{site}/play/{over['table']}")
    expect(stranger.get_by_role("heading", level=1)).to_have_text(
        f"The game at table {over['table']} is over"
    )
    expect(stranger.locator(".dead-end")).to_contain_text(re.compile(r"wins|Shared win"))
    assert stranger.locator("#join-name").count() == 0
    stranger.get_by_role("link", name="Replay this game").click()
    expect(stranger.locator("#where")).to_contain_text("Move ")
    stranger.goto(f"{site}/play/{going['table']}")
    expect(stranger.get_by_role("heading", level=1)).to_have_text(f"Table {going['table']} is full")
    stranger.goto(f"{site}/replay/{going['table']}")
    expect(stranger.get_by_role("heading", level=1)).to_have_text(
        f"The game at table {going['table']} is still going on"
    )
    expect(stranger.get_by_role("link", name="Go to the table")).to_be_visible()
    stranger.close()

    # The site's icon is where browsers look for it.
    icon = httpx.get(f"{site}/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon.ico"
    context.close()
