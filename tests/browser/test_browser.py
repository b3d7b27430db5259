"""The browser client end to end: real headless Chromium pages against a real server.

Every game is played through the page as a person would: clicks on hand cards, perches and the
listed moves. Bots are ``random`` and the page's step pace is 0 (``?pace=0``) so that whole
games stay quick; the step-by-step telling is the same code with a pause.
"""

from __future__ import annotations

import json
import random
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from piepmatz.core import Game
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES, NUM_BIRDS, NUM_FEEDER
from piepmatz.core.commitment import verify_record
from piepmatz.core.view import public_view, unknown_cards
from serverplay import game_at

# The games the tests share (module fixtures) are played once: the module stays on one worker.
pytestmark = pytest.mark.xdist_group("browser-games")

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 360, "height": 740}
#: No wait for one step of a game takes longer than this (milliseconds).
PATIENCE = 30_000

# What the page is doing: the last state its connection received (the tests' hook,
# conftest.SEAT_HOOK), and whether the page shows it and is not busy telling it.
_STATUS = """() => {
  const s = window.__seat && window.__seat.state;
  const shown = document.querySelector('.table-page');
  if (!s || !shown) return null;
  return {move: s.move, legal: s.legal, phase: s.view.phase, over: s.result !== null,
          idle: shown.getAttribute('aria-busy') === 'false'
                && shown.dataset.move === String(s.move)};
}"""


def status(page: Any) -> dict[str, Any] | None:
    result: dict[str, Any] | None = page.evaluate(_STATUS)
    return result


def my_turn_or_over(page: Any) -> str:
    """Wait until the page offers this seat a decision or shows the end; say which."""
    ready = "s && s.idle && (s.over || s.legal.length > 0)"
    page.wait_for_function(
        f"() => {{ const s = ({_STATUS})(); return {ready}; }}", timeout=PATIENCE
    )
    s = status(page)
    assert s is not None
    return "over" if s["over"] else "turn"


def take_turn(page: Any, rng: random.Random) -> None:
    """Make one move by clicking, as a person would: a play is a hand card then a perch."""
    s = status(page)
    assert s is not None and s["legal"]
    if s["phase"] == "play":
        cards = page.locator(".hand-card.usable")
        cards.nth(rng.randrange(cards.count())).click()
        perches = page.locator(".perch-pick")
        perches.nth(rng.randrange(perches.count())).click()
    else:
        options = page.locator("button.option")
        options.nth(rng.randrange(options.count())).click()
    page.wait_for_function(
        f"() => {{ const s = ({_STATUS})(); return s && s.move !== {s['move']}; }}",
        timeout=PATIENCE,
    )


def play_to_end(pages: list[Any], rng: random.Random, every_turn: Any = None) -> int:
    """Play every page's seat until the game is over; returns the number of moves clicked."""
    clicks = 0
    while True:
        waiting = [p for p in pages if (s := status(p)) is None or not s["over"]]
        if not waiting:
            return clicks
        for page in waiting:
            s = status(page)
            if s and s["idle"] and s["legal"]:
                take_turn(page, rng)
                clicks += 1
                if every_turn is not None:
                    every_turn(page, clicks)
        if all((s := status(p)) is None or not (s["idle"] and s["legal"]) for p in waiting):
            pages[0].wait_for_timeout(15)


def record_of(site: str, table: str) -> dict[str, Any]:
    response = httpx.get(f"{site}/api/tables/{table}/record")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def table_id(page: Any) -> str:
    match = re.search(r"/play/([\w-]+)", page.url)
    assert match, page.url
    return match.group(1)


def no_horizontal_scroll(page: Any) -> None:
    """The page fits its window's width, and no script value leaked into its text."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    viewport = page.viewport_size["width"]
    assert width <= viewport, f"{page.url}: {width} px wide in a {viewport} px window"
    text = page.inner_text("main")
    assert not re.search(r"\b(null|undefined|NaN|\[object Object\])\b", text), text[:300]


def sheet_totals(page: Any) -> list[int]:
    cells = page.locator(".sheet tr.total td").all_inner_texts()
    return [int(c) for c in cells]


# --------------------------------------------------------------------------- one person


@dataclass
class SoloGame:
    table: str
    record: dict[str, Any]
    totals: list[int]
    sheet_text: str
    clicks: int
    previews_seen: bool
    hand_lines: list[str]  # each seat's "Hand" line at the end
    first_tags: list[str | None]  # each seat's tag that marks the first player, if any
    explain_titles: list[str]  # each seat's "Explain …" under the score sheet


@pytest.fixture(scope="module")
def solo_game(browser: Any, site: str, artefacts: Path) -> Iterator[SoloGame]:
    """One person opens the lobby, clicks "play against bots now" and plays to the end."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{site}/?pace=0")
    page.fill("#name", "Anna")
    page.select_option("#quick-players", "3")
    page.select_option("#quick-bot", "random")
    page.screenshot(path=str(artefacts / "lobby-desktop.png"), full_page=True)
    page.click("#quick-start")
    page.wait_for_url(re.compile(r"/play/"))

    def midgame(page: Any, clicks: int) -> None:
        if clicks < 12 or shot:
            return
        if my_turn_or_over(page) == "turn" and status(page)["phase"] == "play":  # type: ignore[index]
            # A card chosen: each perch it may go to says what the play would do.
            page.locator(".hand-card.usable").first.click()
            page.wait_for_selector(".row-choice .preview-line", timeout=PATIENCE)
            page.wait_for_timeout(1300)  # the last event's highlight fades
            page.screenshot(path=str(artefacts / "table-desktop.png"), full_page=True)
            no_horizontal_scroll(page)
            page.keyboard.press("Escape")
            shot.append(clicks)

    shot: list[int] = []
    clicks = play_to_end([page], random.Random(1), midgame)
    page.wait_for_selector(".scores")
    page.screenshot(path=str(artefacts / "end-desktop.png"), full_page=True)
    no_horizontal_scroll(page)
    table = table_id(page)
    yield SoloGame(
        table,
        record_of(site, table),
        sheet_totals(page),
        page.inner_text(".scores"),
        clicks,
        bool(shot),
        page.eval_on_selector_all(
            "article.player", "(seats) => seats.map((s) => s.querySelector('div.line').innerText)"
        ),
        page.eval_on_selector_all(
            "article.player",
            "(seats) => seats.map((s) => s.querySelector('.first-player')?.textContent ?? null)",
        ),
        page.locator(".explained details summary").all_inner_texts(),
    )
    assert problems == []
    context.close()


def test_one_person_plays_a_whole_game_against_two_bots(solo_game: SoloGame) -> None:
    record = solo_game.record
    assert record["options"]["players"] == 3
    # The score sheet on the page is the record's, which replays to the same result.
    assert solo_game.totals == [p["total"] for p in record["result"]["players"]]
    assert Game.from_record(record).score().to_json()["players"] == record["result"]["players"]
    winners = record["result"]["winners"]
    assert ("Anna (you) wins" in solo_game.sheet_text) == (winners == [0])
    assert solo_game.clicks >= 10
    assert solo_game.previews_seen
    # Every seat's hand is told, an empty one too (as "no cards", not a blank line).
    hands = Game.from_record(record).state.hands
    assert len(solo_game.hand_lines) == 3
    assert [("no cards" in line) for line in solo_game.hand_lines] == [not h for h in hands]
    # The first player is marked in words ("1st" read as a place in the ranking).
    first = Game.from_record(record).state.first_player
    assert solo_game.first_tags == ["first player" if p == first else None for p in range(3)]
    # Your own score is "your score", not "Anna (you)'s score".
    assert solo_game.explain_titles == [
        "Explain your score",
        "Explain Bot 2's score",
        "Explain Bot 3's score",
    ]


def test_the_replay_steps_both_ways_and_shows_every_hand(
    browser: Any, site: str, solo_game: SoloGame
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/replay/{solo_game.table}")
    page.wait_for_selector("#where")
    record = solo_game.record
    last = len(record["actions"])
    assert page.inner_text("#where").startswith(f"Move {last} of {last}")
    page.click("#first")
    for moves in (0, 1, 2):
        if moves:
            page.click("#forward")
        assert page.inner_text("#where").startswith(f"Move {moves} of {last}")
        state = game_at(record, moves).state
        for seat, hand in enumerate(state.hands):
            shown = page.locator(f'.player[data-seat="{seat}"] .line').first
            cards = shown.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
            assert cards == [BIRD_NAMES[c] for c in hand]
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#where").startswith(f"Move 1 of {last}")
    page.keyboard.press("End")
    assert page.locator(".scores").count() == 1
    # The page checks the deal itself, from the record (Web Crypto).
    page.wait_for_selector("#deal-check[data-outcome]")
    assert page.get_attribute("#deal-check", "data-outcome") == "verified"
    no_horizontal_scroll(page)
    page.set_viewport_size(PHONE)
    no_horizontal_scroll(page)
    page.close()


# --------------------------------------------------------------------------- two people


@dataclass
class TwoPeopleGame:
    table: str
    record: dict[str, Any]
    sheets: list[str]
    reloaded_at: int
    chat_seen: str
    commitment_shown: str = ""
    spectator_frames: list[str] = field(default_factory=list)
    spectator_pages: list[tuple[int, str]] = field(default_factory=list)


@pytest.fixture(scope="module")
def two_people(browser: Any, site: str, artefacts: Path) -> Iterator[TwoPeopleGame]:
    """Anna opens a table (her, a friend, a random bot), Ben joins by the invite link, a
    spectator watches; Anna reloads mid-game; both play to the end."""
    anna_context = browser.new_context(viewport=DESKTOP)
    ben_context = browser.new_context(viewport=PHONE)
    watch_context = browser.new_context(viewport=DESKTOP)
    anna = anna_context.new_page()
    anna.goto(f"{site}/?pace=0")
    anna.fill("#name", "Anna")
    anna.select_option("#seat-count", "3")
    anna.select_option("#seat-0", "you")
    anna.select_option("#seat-1", "human")
    anna.select_option("#seat-2", "random")
    anna.click("#create")
    anna.wait_for_selector("#go-table")
    # The table's id as its address spells it (ids are case-sensitive), not in capitals.
    made = anna.get_attribute("#go-table", "href").split("/play/")[1].split("?")[0]
    assert anna.inner_text(".made h3") == f"Table {made} is open"
    invite = anna.get_attribute("button.copy[data-link*='seat=1']", "data-link")
    spectate = anna.locator("button.copy", has_text="spectator").get_attribute("data-link")
    assert invite and spectate
    anna.click("#go-table")
    anna.wait_for_selector("text=Waiting for seat 2 to join")
    commitment_shown = anna.inner_text("#commitment")  # nothing dealt yet: the seal is shown

    watcher = watch_context.new_page()
    frames: list[str] = []

    def keep(payload: str | bytes) -> None:
        frames.append(payload if isinstance(payload, str) else payload.decode())

    watcher.on("websocket", lambda ws: ws.on("framereceived", keep))
    watcher.goto(spectate.replace("/play/", "/play/", 1).replace("#", "?pace=0#", 1))

    ben = ben_context.new_page()
    ben.goto(invite.replace("#", "?pace=0#", 1))
    ben.fill("#join-name", "Ben")
    ben.click("text=Take my seat")
    ben.wait_for_selector("#board")
    ben.fill("#chat-input", "hello <b>Anna</b>")
    ben.press("#chat-input", "Enter")
    anna.wait_for_selector("#chat li")
    chat_seen = anna.inner_text("#chat li")

    snapshots: list[tuple[int, str]] = []
    reloaded = {"at": -1}
    pages = [anna, ben]

    def each_turn(page: Any, clicks: int) -> None:
        s = status(watcher)
        if s is not None:
            snapshots.append(
                watcher.evaluate(
                    "() => [window.__seat.state.move, document.documentElement.outerHTML]"
                )
            )
        if clicks == 20 and reloaded["at"] < 0:
            reloaded["at"] = status(anna)["move"]  # type: ignore[index]
            anna.reload()
            anna.wait_for_selector("#board")
            anna.wait_for_function(f"() => ({_STATUS})() !== null", timeout=PATIENCE)

    play_to_end(pages, random.Random(2), each_turn)
    for page in pages:
        page.wait_for_selector(".scores")
    watcher.wait_for_selector(".scores")
    snapshots.append(
        watcher.evaluate("() => [window.__seat.state.move, document.documentElement.outerHTML]")
    )
    table = table_id(anna)
    yield TwoPeopleGame(
        table,
        record_of(site, table),
        [anna.inner_text(".scores"), ben.inner_text(".scores")],
        reloaded["at"],
        chat_seen,
        commitment_shown,
        frames,
        snapshots,
    )
    for context in (anna_context, ben_context, watch_context):
        context.close()


def test_two_people_and_a_bot_play_a_whole_game_one_reloading(two_people: TwoPeopleGame) -> None:
    assert two_people.reloaded_at > 0  # Anna reloaded mid-game and carried on
    # The same sheet, but for who is "you" (and whose score is "your score").
    anna, ben = (
        sheet.replace(" (you)", "").replace("Explain your score", f"Explain {name}'s score")
        for sheet, name in zip(two_people.sheets, ("Anna", "Ben"), strict=True)
    )
    assert anna == ben
    assert "Anna (you)" in two_people.sheets[0] and "Ben (you)" in two_people.sheets[1]
    totals = [p["total"] for p in two_people.record["result"]["players"]]
    for total in totals:
        assert str(total) in anna
    assert "Anna" in anna and "Ben" in anna and "Bot 3" in anna
    # A chat line is shown as text, never as markup.
    assert two_people.chat_seen == "Ben: hello <b>Anna</b>"
    # Each browser added its own part to the deal (32 random bytes), and the seed is theirs.
    deal = two_people.record["deal"]
    assert deal["people"] == [0, 1] and all(len(deal["parts"][i]) == 43 for i in (0, 1))
    assert deal["parts"][0] != deal["parts"][1]
    assert f"sealed: {deal['commitment'][:16]}…" in two_people.commitment_shown
    assert all(c.holds for c in verify_record(two_people.record))


def _spellings(hidden_birds: set[int], hidden_feeder: set[int]) -> re.Pattern[str]:
    """Every way the page writes a card: its notation and its spoken label."""
    names = [BIRD_NAMES[c] for c in hidden_birds] + [FEEDER_NAMES[c] for c in hidden_feeder]
    species = {
        "BL": "Blackbird",
        "BU": "Bullfinch",
        "CH": "Chaffinch",
        "GR": "Greenfinch",
        "SP": "House sparrow",
        "YE": "Yellowhammer",
    }
    # The label in running text ("Blackbird 5 male") and a card's spoken name ("Blackbird 5,
    # male, 3 eggs").
    labels = [
        f"{species[n[:2]]} {n[2]}{sep}{'male' if n[3] == 'm' else 'female'}"
        for n in (BIRD_NAMES[c] for c in hidden_birds)
        for sep in (" ", ", ")
    ]
    words = "|".join(re.escape(w) for w in names + labels)
    return re.compile(rf"(?<![\w-])(?:{words})(?![\w-])")


def test_a_spectators_page_has_no_hand_and_says_whose_move_it_is(
    two_people: TwoPeopleGame,
) -> None:
    """A screen reader lists the page's regions: a spectator meets no empty "your hand" and
    no "your move", which are not theirs."""
    _move, html = two_people.spectator_pages[len(two_people.spectator_pages) // 2]
    hand = re.search(r'<section id="hand"[^>]*>', html)
    decision = re.search(r'<section id="decision"[^>]*>', html)
    assert hand is not None and " hidden" in hand.group(0)
    assert decision is not None and 'aria-label="whose move it is"' in decision.group(0)


def test_a_spectator_sees_no_hidden_card_in_the_page_or_the_frames(
    two_people: TwoPeopleGame,
) -> None:
    record = two_people.record
    last = len(record["actions"])
    # Cards the spectator was never entitled to see by each move: hidden then and at every move
    # before (a card once seen, like a display bird drawn to a hand, stays known).
    never_seen: list[tuple[set[int], set[int]]] = []
    birds, feeder = set(range(NUM_BIRDS)), set(range(NUM_FEEDER))
    for moves in range(last + 1):
        state = game_at(record, moves).state
        unknown_birds, unknown_feeder = unknown_cards(public_view(state))
        birds &= set(unknown_birds)
        feeder &= set(unknown_feeder)
        if state.is_over():  # the end shows every blind seed pile, as the record does
            feeder -= {f for seeds in state.seeds_blind for f in seeds}
        never_seen.append((set(birds), set(feeder)))
    assert any(b for b, _ in never_seen)
    checked = 0
    for text in two_people.spectator_frames:
        message = json.loads(text)
        if message["type"] == "state":
            assert message["view"]["hand"] == [] and message["legal"] == []
            pattern = _spellings(*never_seen[message["move"]])
            checked += 1
        else:
            pattern = _spellings(set(range(NUM_BIRDS)), set(range(NUM_FEEDER)))
        found = pattern.search(text)
        assert found is None, f"the spectator received {found.group(0)!r}: {text[:200]}"
    assert checked >= 10
    assert len(two_people.spectator_pages) >= 10
    for move, html in two_people.spectator_pages:
        found = _spellings(*never_seen[move]).search(html)
        assert found is None, f"move {move}: the spectator's page shows {found.group(0)!r}"
    # The same search finds the cards that are public, in the page and in the frames.
    move, html = two_people.spectator_pages[-1]
    collected = set(game_at(record, move).state.collections[0])
    assert _spellings(collected, set()).search(html)
    assert any(_spellings(collected, set()).search(text) for text in two_people.spectator_frames)


# --------------------------------------------------------------------------- refusals, phone


def _quick_game(browser: Any, site: str, viewport: dict[str, int], players: int) -> Any:
    page = browser.new_page(viewport=viewport)
    page.goto(f"{site}/?pace=0")
    page.fill("#name", "Cleo")
    page.select_option("#quick-players", str(players))
    page.select_option("#quick-bot", "random")
    page.click("#quick-start")
    page.wait_for_url(re.compile(r"/play/"))
    return page


def test_an_illegal_click_is_refused_with_a_message_and_changes_nothing(
    browser: Any, site: str
) -> None:
    page = _quick_game(browser, site, DESKTOP, 3)
    rng = random.Random(3)
    # Reach a draw: a hand card cannot be used then.
    while my_turn_or_over(page) == "turn" and status(page)["phase"] != "draw":  # type: ignore[index]
        take_turn(page, rng)
    before = status(page)
    hand = page.locator(".hand-card").evaluate_all("els => els.map(e => e.dataset.card)")
    page.locator(".hand-card").first.click()
    toast = page.locator("#toast")
    assert "cannot be used now" in toast.inner_text()
    assert status(page) == before
    # A move the server refuses (sent as a tampered page would): a message, nothing changes.
    page.evaluate(
        "move => window.__seat.socket.send(JSON.stringify("
        "{type: 'action', move, action: 'draw display 9'}))",
        before["move"],  # type: ignore[index]
    )
    page.wait_for_function(
        "() => document.querySelector('#toast').textContent.startsWith('Refused')"
    )
    assert "Refused" in toast.inner_text()
    page.evaluate(
        "move => window.__seat.socket.send(JSON.stringify("
        "{type: 'action', move: move - 1, action: 'draw deck'}))",
        before["move"],  # type: ignore[index]
    )
    page.wait_for_function("() => /moved on/.test(document.querySelector('#toast').textContent)")
    my_turn_or_over(page)
    assert status(page) == before
    assert page.locator(".hand-card").evaluate_all("els => els.map(e => e.dataset.card)") == hand
    page.close()


_FOCUS = """() => { const el = document.activeElement;
  return {tag: el.tagName.toLowerCase(), id: el.id, action: el.dataset.action || null,
          key: el.dataset.key || null, inDecision: !!el.closest('#decision')}; }"""


def test_keyboard_alone_plays_and_the_focus_stays_on_the_decision(browser: Any, site: str) -> None:
    page = _quick_game(browser, site, DESKTOP, 4)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    rng = random.Random(5)
    while my_turn_or_over(page) == "turn" and status(page)["phase"] != "play":  # type: ignore[index]
        take_turn(page, rng)
    before = status(page)
    page.locator(".hand-card.usable").first.focus()
    page.keyboard.press("Enter")
    # Choosing a card moves the focus to the first of its moves, listed in the decision.
    focus = page.evaluate(_FOCUS)
    assert focus["inDecision"] and focus["action"].startswith("play "), focus
    # A digit chooses a listed move (its preview shows) but plays nothing until Enter.
    page.keyboard.press("2")
    focus = page.evaluate(_FOCUS)
    assert focus["key"] == "2" and focus["action"].startswith("play "), focus
    assert not any('"type":"action"' in frame for frame in sent), sent
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => {{ const s = ({_STATUS})(); return s && s.move !== {before['move']}; }}"  # type: ignore[index]
    )
    # After every move the focus is back on the decision, never the page's body: a Tab or two
    # reaches the next move.
    for _ in range(3):
        if my_turn_or_over(page) == "over":
            break
        focus = page.evaluate(_FOCUS)
        assert focus["id"] == "decision" or focus["inDecision"], focus
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('#decision, #hand')")
        s = status(page)
        if s["phase"] == "play":  # type: ignore[index]
            # Every move listed: more than nine (four cards, three perches) are reached by
            # typing two digits, then Enter.
            page.click("#show-all")
            count = page.locator("button.option").count()
            assert count > 9
            page.keyboard.type(str(count))
            assert page.evaluate(_FOCUS)["key"] == str(count)
            page.keyboard.press("Enter")
        else:
            page.locator("#decision button.option").first.focus()
            page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => {{ const s = ({_STATUS})(); return s && s.move !== {s['move']}; }}"  # type: ignore[index]
        )
    page.close()


def test_bot_moves_are_told_step_by_step_before_the_board_changes(browser: Any, site: str) -> None:
    page = browser.new_page(viewport=DESKTOP)
    # Every step the banner shows: its text, the seat and the bird its sentence names (the
    # server's parts: a seat's name, a bird drawn as a small card), the move the board showed
    # meanwhile, the bird seen landing, and the status line under it.
    page.add_init_script(
        """
        window.told = [];
        new MutationObserver(() => {
          const banner = document.querySelector('#banner');
          const shown = document.querySelector('.table-page');
          const landed = document.querySelector('.arriving');
          if (banner && shown && shown.dataset.move) {
            const who = banner.querySelector('.who');
            const bird = banner.querySelector('.mini');
            const line = document.querySelector('#status-line');
            window.told.push({text: banner.textContent, seat: who ? Number(who.dataset.seat) : null,
              name: who && who.textContent,
              bird: bird && bird.dataset.card, move: Number(shown.dataset.move),
              landed: landed && landed.dataset.card, status: line && line.textContent});
          }
        }).observe(document, {subtree: true, childList: true, characterData: true});
        """
    )
    page.goto(f"{site}/?pace=60")
    page.fill("#name", "Dora")
    page.select_option("#quick-players", "2")
    page.select_option("#quick-bot", "random")
    page.click("#quick-start")
    page.wait_for_url(re.compile(r"/play/"))
    rng = random.Random(6)
    # Play until the page has told a whole bot turn step by step (a few of ours at most). A play
    # that was already made when the page opened comes in the first state, told without steps.
    whole_bot_turn = """() => {
      const told = window.told;
      const played = told.findIndex((t) => t.seat === 1 && t.text.includes(' plays ') && t.landed);
      return played >= 0 && told.slice(played).some((t) => /^Turn \\d+: Dora\\.$/.test(t.text));
    }"""
    for _ in range(12):
        if my_turn_or_over(page) == "over" or page.evaluate(whole_bot_turn):
            break
        take_turn(page, rng)
    told: list[dict[str, Any]] = page.evaluate("() => window.told")
    # The bot's seat is the second: "Bot 2" (seats count from 1), the sentence's seat part.
    assert any(t["seat"] == 1 for t in told)
    assert all(t["name"] == "Bot 2" for t in told if t["seat"] == 1)
    bot_lines = [t for t in told if t["seat"] == 1 and t["text"].startswith("Bot 2 ")]
    # While a play is told step by step, the played bird (the sentence's small card) is seen
    # landing in its row, and no other bird ever lands with its sentence (one told without
    # steps, from the first state, shows none).
    plays = [t for t in bot_lines if " plays " in t["text"]]
    landings: dict[str, bool] = {}
    for sentence in {t["text"] for t in plays}:
        birds = {t["bird"] for t in plays if t["text"] == sentence}
        assert len(birds) == 1 and None not in birds, (sentence, birds)
        seen = {t["landed"] for t in plays if t["text"] == sentence}
        assert seen <= birds | {None}, (sentence, seen)
        landings[sentence] = bool(seen & birds)
    assert any(landings.values()), landings
    # No card code in what people read: the bird is a small card, named in words for
    # assistive technology.
    assert not any(re.search(r"\b(?:BL|BU|CH|GR|SP|YE)[1-6][mf]\b", t["text"]) for t in told)
    kinds = {t["text"].split()[2] for t in bot_lines}
    # The bot's play and its draw, each told on its own while the board still showed the move
    # before (the board moves on once the steps are told); meanwhile the status line says the
    # move is being shown, never that the bot is still choosing the bird it has played.
    assert "plays" in kinds and kinds & {"draws", "takes"}
    final = status(page)["move"]  # type: ignore[index]
    assert all(t["move"] < final for t in bot_lines)
    assert not any(t["status"] == "Bot 2 is choosing a bird to play." for t in plays)
    assert any(t["status"] == "Showing Bot 2's move step by step…" for t in plays)
    # Each step told is a sentence of the game log.
    log = page.locator("#log li").all_text_contents()
    assert all(t["text"] in log for t in bot_lines)
    page.close()


def test_an_open_table_is_listed_in_the_lobby_and_joined_there(browser: Any, site: str) -> None:
    made = httpx.post(
        f"{site}/api/tables",
        json={"seats": ["human", "human", "easy"], "name": "Finn", "public": True},
    )
    assert made.status_code == 201, made.text
    table = made.json()["table"]
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{site}/?pace=0")
    page.fill("#name", "Eve")
    entry = page.locator("#open-tables li", has_text=f"Table {table}")
    assert "Finn" in entry.inner_text()
    entry.locator("button", has_text="Join").click()
    page.wait_for_url(re.compile(rf"/play/{table}"))
    page.wait_for_selector("#board")
    seats = httpx.get(f"{site}/api/tables/{table}").json()["seats"]
    assert [s["name"] for s in seats] == ["Finn", "Eve", "easy"]
    assert page.locator(".player", has_text="Eve (you)").count() == 1
    no_horizontal_scroll(page)
    page.close()


_OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const things = 'main select, main input, main button, main label, main a';
  for (const el of document.querySelectorAll(things)) {
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) continue;  // not shown
    const clipped = el.tagName === 'LABEL' && el.scrollWidth > el.clientWidth + 1;
    if (box.left < 0 || box.right > width + 0.5 || clipped) {
      out.push(`${el.tagName.toLowerCase()}#${el.id || el.textContent.trim().slice(0, 24)}`
        + ` at ${Math.round(box.left)}-${Math.round(box.right)}${clipped ? ' (cut)' : ''}`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", [360, 390, 414])
def test_every_lobby_setting_is_within_reach_on_a_phone(
    browser: Any, site: str, width: int
) -> None:
    """Every dropdown, checkbox, button and label of the lobby (and of the rules page) sits
    inside a phone's width and no label is cut: a phone user can open any table."""
    page = browser.new_page(viewport={"width": width, "height": 740})
    for path in ("/", "/?lang=cs", "/?lang=de", "/rules?rules=overview"):
        page.goto(f"{site}{path}")
        page.wait_for_selector("main h1, main .rules")
        assert page.evaluate(_OUTSIDE) == [], f"{path} at {width} px"
        no_horizontal_scroll(page)
    page.close()


#: The longest display name the server takes, with no space to break a line at.
LONG_NAME = "W" * 32
#: Whatever sticks out past the right edge of the window (the page cannot scroll sideways, so
#: it would be cut off).
_STICKING_OUT = """() => [...document.querySelectorAll('main *')]
  .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${el.textContent.slice(0, 30)}`)"""


def test_a_long_name_without_spaces_wraps_on_every_page_of_a_phone(
    browser: Any, server: Any
) -> None:
    """A name is the person's own: 32 letters without a space break where they must, in the
    lobby's list, the join form, the banner, the players, the score sheet and its explanation,
    the replay and My games, and push nothing past a phone's edge."""
    key = secrets.token_urlsafe(32)
    listed = server.table(["human", "human", "easy"], name=LONG_NAME, public=True)["table"]
    made = server.quick(3, key, name=LONG_NAME, seed=3)
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(f"localStorage.setItem('piepmatz.player', {json.dumps(key)});")
    page = context.new_page()

    def fits(path: str, ready: str) -> None:
        page.goto(server.site + path)
        page.wait_for_selector(ready, timeout=PATIENCE)
        assert page.evaluate(_STICKING_OUT) == [], path
        no_horizontal_scroll(page)

    fits("/", f"#open-tables li:has-text('{listed}')")
    fits(f"/play/{listed}", "#join-name")
    # Mid-game, the banner tells the person's last move by their name.
    server.advance(made, {"draw"})
    fits(f"/play/{made['table']}?pace=0", f"#banner:has-text('{LONG_NAME}')")
    server.finish(made)
    fits(f"/play/{made['table']}?pace=0", ".scores")
    page.click(".explained details[data-seat='0'] summary")
    assert page.evaluate(_STICKING_OUT) == [], "the score explained"
    fits(f"/replay/{made['table']}", "#deal-check")
    fits("/games", f"#games li[data-table='{made['table']}']")
    context.close()
