"""Everyone can play (issue 43): axe-core finds no violation of WCAG 2.1 AA, of any impact, on
any page or in any state a player meets, in English, Czech and German, at a phone's size and a
desktop's; and a whole game is played with the keyboard alone, reading only the accessibility
tree (roles and names), never the page's markup.

axe-core comes inside the ``axe-playwright-python`` wheel (no network) and runs in the same
Chromium as the other browser tests. The game's states are walked in one game per language:
its own decisions of every kind, a bot's move being told, a hint, a lost connection and the end;
the other pages are a list below (:data:`PAGES`), one entry each. English checks each page and
state at both sizes; Czech and German, whose pages differ from it only in their words, check
them at one size each (Czech a desktop's, German a phone's), so each size is met in a language
with longer words too.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from axe_playwright_python.base import AXE_FILE_PATH, AxeResults
from playwright.sync_api import expect
from tests.browser.test_reach import reach

from piepmatz.core.actions import DISPLAY_SIZE
from serverplay import running_server

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 360, "height": 740}
PATIENCE = 30_000
#: Every rule axe has that applies to a page: WCAG 2.0 and 2.1 at levels A and AA, and the best
#: practices too (no violation of any impact: a list item outside a list or a region a keyboard
#: cannot scroll is what a screen reader's or a keyboard's user meets).
EVERY_RULE = {"resultTypes": ["violations"]}
#: A deal (2 players, against random bots) in which the person, always taking the first legal
#: move, meets every kind of decision: play, collect, draw, the crow and the last hand.
SEED = 1
KINDS = {"play", "collect", "draw", "crow", "last hand"}
#: The live region's name and the words that begin the decision it reads out, by language.
ANNOUNCER = {"en": "announcements", "cs": "oznámení", "de": "Ansagen"}
YOUR_MOVE = {"en": "Your move.", "cs": "Jsi na tahu.", "de": "Du bist am Zug."}


def no_violations(page: Any, state: str, both_sizes: bool = True) -> None:
    """axe-core finds nothing on ``page`` as it is now, at its size and (``both_sizes``) then
    at the other one (the layouts differ by CSS alone, so the state stays as it is); ``state``
    names it in the failure."""
    size = page.viewport_size
    other = PHONE if size == DESKTOP else DESKTOP
    for width_height in (size, other) if both_sizes else (size,):
        page.set_viewport_size(width_height)
        found = AxeResults(page.evaluate("(options) => axe.run(document, options)", EVERY_RULE))
        assert found.violations_count == 0, (
            f"{state} at {page.url}, {width_height['width']} px wide:\n{found.generate_report()}"
        )
    page.set_viewport_size(size)


@dataclass
class Tables:
    key: str  # the browser's player key, seated at ``waiting``
    join: str  # a table with a free seat, opened by someone else
    waiting: str  # a table of this browser waiting for a friend
    over: str  # a finished game whose review the replay shows


@dataclass
class Page:
    """A page checked as it opens: its address on the site, what shows that it is drawn, and
    what a person does there first (``then``), if anything."""

    name: str
    address: Callable[[Tables], str]
    ready: str
    then: Callable[[Any], None] | None = None


def _review(page: Any) -> None:
    page.click("#review-0")
    page.wait_for_selector("#review-summary", timeout=PATIENCE)


#: Every page a person meets outside a game being played (the table's states are walked in a
#: game below).
PAGES = [
    Page("lobby", lambda t: "/", "#quick-start"),
    Page("join form", lambda t: f"/play/{t.join}", "#join-name"),
    Page("table waiting", lambda t: f"/play/{t.waiting}", "#commitment"),
    Page("rules", lambda t: "/rules?rules=standard", "article.rules h1"),
    Page("tutorial", lambda t: "/tutorial", ".tutorial-page[aria-busy=false] .lesson-target"),
    Page("my games", lambda t: "/games", "#games li[data-table]"),
    Page("no such table", lambda t: "/play/no-such-table", ".dead-end"),
    Page("replay with the review", lambda t: f"/replay/{t.over}", "#deal-check", _review),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server with small search budgets: a hint and a review take a fraction of a second."""
    database = tmp_path_factory.mktemp("access") / "server.db"
    with running_server(
        f"sqlite+aiosqlite:///{database}",
        hint_bot="ismcts:iterations=200",
        hint_iterations=60,
        review_iterations=6,
    ) as address:
        yield f"http://{address}"


@pytest.fixture(scope="module")
def tables(server: Any) -> Tables:
    key = secrets.token_urlsafe(32)
    waiting = server.table(["human", "human", "easy"], player=key)
    join = server.table(["human", "human", "easy"], public=True)
    over = server.quick(2, key, seed=SEED)
    server.finish(over)
    return Tables(key, join["table"], waiting["table"], over["table"])


def person(browser: Any, size: dict[str, int], lang: str, key: str, **options: Any) -> Any:
    """A page in ``lang`` (chosen before in this browser) at ``size``, of the player ``key``
    (``options``: the browser context's, such as reduced motion)."""
    context = browser.new_context(viewport=size, **options)
    # axe-core is in every document the page opens (once, rather than at every check).
    context.add_init_script(path=AXE_FILE_PATH)
    context.add_init_script(
        f"localStorage.setItem('piepmatz.player', {json.dumps(key)});"
        f" localStorage.setItem('piepmatz:lang', {json.dumps(lang)});"
    )
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems
    return page


#: Each language once, each checking every page and state: English at both sizes, the others
#: at their own (the layouts differ by CSS alone, the words by language).
@pytest.mark.parametrize(
    ("lang", "size", "both_sizes"),
    [("en", PHONE, True), ("cs", DESKTOP, False), ("de", PHONE, False)],
    ids=["en", "cs", "de"],
)
def test_no_page_and_no_state_has_an_accessibility_violation(
    browser: Any, server: Any, tables: Tables, lang: str, size: dict[str, int], both_sizes: bool
) -> None:
    page = person(browser, size, lang, tables.key)
    for entry in PAGES:
        page.goto(server.site + entry.address(tables))
        page.wait_for_selector(entry.ready, timeout=PATIENCE)
        assert page.evaluate("document.documentElement.lang") == lang
        if entry.then:
            entry.then(page)
        no_violations(page, entry.name, both_sizes)

    # One game: a bot's move told step by step (a slow pace for the first moves), then every
    # kind of the person's decisions, a hint, a lost connection and the end.
    online = {"yes": True}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        if not online["yes"]:
            ws.close()
            return
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/"), route)
    made = server.quick(2, tables.key, seed=SEED)
    page.goto(server.url(made["link"], "?pace=400"))
    telling = """() => document.querySelector('.table-page')?.getAttribute('aria-busy') === 'true'
      && !!document.querySelector('#banner .who[data-seat="1"]')"""
    for _ in range(4):  # the person's first turn, then the bot's
        page.wait_for_function(f"() => ({telling})() || ({server.READY})()", timeout=PATIENCE)
        if page.evaluate(telling):
            break
        play(page, page.evaluate(server.STATUS))
    no_violations(page, "a bot's move told", both_sizes=False)  # too brief to check twice
    page.goto(f"{server.site}/play/{made['table']}?pace=0")
    seen: set[str] = set()
    hinted = lost = False
    while True:
        page.wait_for_function(server.READY, timeout=PATIENCE)
        s = page.evaluate(server.STATUS)
        if s["over"]:
            break
        if s["phase"] not in seen:
            seen.add(s["phase"])
            no_violations(page, f"the person's decision: {s['phase']}", both_sizes)
            # The decision is read out when it comes, in the page's language.
            said = page.get_by_role("log", name=ANNOUNCER[lang]).get_by_role("paragraph").last
            expect(said).to_contain_text(YOUR_MOVE[lang])
        if s["phase"] == "play" and not hinted:
            page.keyboard.press("h")
            page.wait_for_selector("#hint-box", timeout=PATIENCE)
            no_violations(page, "a hint shown", both_sizes)
            hinted = True
        if s["phase"] == "draw" and not lost:
            online["yes"] = False
            sockets[-1].close()
            expect(page.locator("#connection-lost")).to_be_visible(timeout=PATIENCE)
            no_violations(page, "disconnected", both_sizes)
            online["yes"] = True
            expect(page.locator("#connection-lost")).to_be_hidden(timeout=PATIENCE)
            page.wait_for_function(server.READY, timeout=PATIENCE)
            lost = True
        if seen != KINDS and (hinted or s["phase"] != "play") and (lost or s["phase"] != "draw"):
            # This kind of decision is checked: the moves up to the next kind not seen yet are
            # played beside the page (the page follows them), which saves most of the game.
            server.advance(made, KINDS - seen)
            continue
        play(page, s)
    assert seen == KINDS and hinted and lost
    page.wait_for_selector(".scores", timeout=PATIENCE)
    no_violations(page, "the end with the score sheet", both_sizes)
    problems = page.problems
    page.context.close()
    assert problems == []


def play(page: Any, s: dict[str, Any]) -> None:
    """The first legal move, clicked as a person would (a hand card first, to play a bird)."""
    action = s["legal"][0]
    if s["phase"] == "play":
        card = page.evaluate(
            "(a) => window.__seat.state.choices.find((c) => c.action === a).cards[0]", action
        )
        page.click(f'.hand-card[data-card="{card}"]')
    page.click(f'#decision button.option[data-action="{action}"]')
    page.wait_for_function(f"() => window.__seat.state.move !== {s['move']}", timeout=PATIENCE)


#: A card's spoken name: "Blackbird 5, male, 3 eggs".
CARD_NAME = re.compile(r"\b[A-Z][a-z]+(?: [a-z]+)? [1-6], (?:male|female), [1-3] eggs?\b")


def test_a_whole_game_by_keyboard_reading_only_the_accessibility_tree(
    browser: Any, server: Any
) -> None:
    """Tab, digits and Enter only; what the test knows of the page comes from roles and
    accessible names (the decision, the hand, the live region), never from its markup."""
    key = secrets.token_urlsafe(32)
    page = person(browser, DESKTOP, "en", key)
    page.goto(server.url(server.quick(2, key, seed=SEED + 1)["link"]))
    decision = page.get_by_role("region", name="your move")
    your_move = decision.get_by_role("heading", name="Your move")
    options = decision.get_by_role("list", name="your legal moves").get_by_role("button")
    hand = page.get_by_role("region", name="your hand")
    playable = hand.get_by_role("button", name=re.compile(r"^(?!.*not playable)"))
    sheet = page.get_by_role("region", name="score sheet")
    said = page.get_by_role("log", name="announcements")
    # Each move made adds its lines to the game log (the page keeps 400, more than a game has).
    log = page.get_by_role("log", name="game log")
    log_lines = log.get_by_role("listitem")
    heard: list[str] = []
    moves = 0
    while True:
        expect(your_move.or_(sheet)).to_be_visible(timeout=PATIENCE)
        if sheet.is_visible():
            break
        if moves == 0:
            # The hand and the display are lists: a screen reader tells how many cards.
            cards = hand.get_by_role("list").get_by_role("listitem")
            expect(cards).to_have_count(hand.get_by_role("button").count())
            assert cards.count() > 0
            slots = page.get_by_role("list", name="Display").get_by_role("listitem")
            expect(slots).to_have_count(DISPLAY_SIZE)
        # The decision has the focus, and was read out with its options.
        expect(decision).to_be_focused()
        expect(said.get_by_role("paragraph").last).to_contain_text("Your move.")
        heard.append(said.inner_text())
        before = log_lines.count()
        # The head says the rules and counts turns as the log does ("Turn 7: Anna.": turn 7).
        turn = re.findall(r"Turn (\d+):", log.inner_text())[-1]
        head = f"standard rules · seat 1 · turn {turn} ·"
        expect(page.get_by_role("main")).to_contain_text(head)
        if options.count() == 0:
            # A bird to play: Tab to a playable card of the hand, Enter chooses it and its
            # perches become the listed moves, the first one focused.
            expect(said.get_by_role("paragraph").last).to_contain_text("Birds you can play:")
            target = playable.first
            for _ in range(40):
                page.keyboard.press("Tab")
                if target.evaluate("(el) => el === document.activeElement"):
                    break
            else:
                raise AssertionError("Tab never reached a playable card")
            page.keyboard.press("Enter")
            expect(options.first).to_be_focused()
        else:
            page.keyboard.press("1")
            expect(options.first).to_be_focused()
        page.keyboard.press("Enter")
        moves += 1
        # The move is made and the focus is not lost: it is back on the decision (once the
        # game is over, on the result's heading in it).
        expect(log_lines).not_to_have_count(before, timeout=PATIENCE)
        page.wait_for_function(
            "(el) => el.contains(document.activeElement)", arg=decision.element_handle()
        )
    assert moves > 20
    # Every told step was read out: the other player's moves, each bird by its spoken name.
    told = " ".join(heard)
    assert "Bot 2" in told and CARD_NAME.search(told), told[-500:]
    assert page.problems == []
    page.context.close()


def test_told_steps_without_motion_in_forced_colours_at_twice_the_zoom(
    browser: Any, server: Any
) -> None:
    """Reduced motion: a told step changes the board at once, and its sentence is still said.
    Forced colours (high contrast): what marks a card, a turn or a choice stays drawn. Twice
    the zoom of a desktop window (720 × 450 CSS pixels): nothing of the game is out of reach."""
    key = secrets.token_urlsafe(32)
    page = person(
        browser,
        {"width": 720, "height": 450},
        "en",
        key,
        reduced_motion="reduce",
        forced_colors="active",
    )
    made = server.quick(2, key, seed=SEED)
    page.goto(server.url(made["link"], "?pace=400"))
    telling = """() => document.querySelector('.table-page')?.getAttribute('aria-busy') === 'true'
      && !!document.querySelector('#banner .who[data-seat="1"]')"""
    for _ in range(4):  # the person's first turn, then the bot's
        page.wait_for_function(f"() => ({telling})() || ({server.READY})()", timeout=PATIENCE)
        if page.evaluate(telling):
            break
        s = page.evaluate(server.STATUS)
        if s["phase"] == "play":
            reach(page, False)
            page.get_by_role("region", name="your hand").get_by_role(
                "button", name=re.compile(r"^(?!.*not playable)")
            ).first.click()
            # The chosen card and the perches to play on are marked in forced colours too.
            marks = page.evaluate(
                "() => ['.hand-card.selected', '.row.target', '.player.active'].map((s) =>"
                " getComputedStyle(document.querySelector(s)).outlineStyle)"
            )
            assert "none" not in marks, marks
            reach(page, False)
        page.locator("#decision button.option").first.click()
        page.wait_for_function(f"() => window.__seat.state.move !== {s['move']}")
    # A bot's move is being told: its sentence is in the banner and said, and nothing moves.
    expect(page.get_by_role("log", name="announcements")).to_contain_text("Bot 2")
    running = page.evaluate(
        "() => document.getAnimations().filter((a) => a.playState === 'running').length"
    )
    assert running == 0
    assert page.problems == []
    page.context.close()
