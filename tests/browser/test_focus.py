"""Where the focus goes and what is read out, in real Chromium pages against a real server: the
language switch, the end of a game, the log as one Tab stop, the resign question, the lesson's
refused move, a hint, a rule's link, "List every move", the header's focus ring, the table's
heading in words; and the replay of a game that ended without a score sheet.

Each test reads the accessibility tree and the focus (``document.activeElement``, roles and
accessible names, the announcer's lines), never the wording of the docs."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from playwright.sync_api import expect
from websockets.sync.client import connect

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PATIENCE = 30_000
#: The table page shows the last state it received and tells nothing more.
SHOWN = """() => { const s = window.__seat && window.__seat.state;
  const shown = document.querySelector('.table-page');
  return !!(s && shown && shown.getAttribute('aria-busy') === 'false'
    && shown.dataset.move === String(s.move)); }"""
#: ... and it is the seat's decision, its previews come.
READY = f"""() => ({SHOWN})() && window.__seat.state.legal.length > 0
  && window.__seat.last.preview?.move === window.__seat.state.move"""


def seat_page(
    browser: Any, server: Any, made: dict[str, Any], size: dict[str, int] = DESKTOP
) -> Any:
    page = browser.new_page(viewport=size)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems
    page.goto(server.url(made["link"]))
    page.wait_for_function(SHOWN, timeout=PATIENCE)
    return page


def focused(page: Any) -> dict[str, Any]:
    """What has the focus: its tag, id, role, name and text."""
    return page.evaluate(
        """() => { const el = document.activeElement;
          return { tag: el.tagName, id: el.id, role: el.getAttribute('role'), lang: el.lang,
            label: el.getAttribute('aria-label'), text: el.textContent.trim(),
            inLog: !!el.closest('#log'), inLanguages: !!el.closest('#language') }; }"""
    )


def said(page: Any) -> list[str]:
    return page.get_by_role("log", name="announcements").locator("p").all_inner_texts()


def send(site: str, made: dict[str, Any], message: dict[str, Any]) -> None:
    """Send ``message`` on a connection of ``made``'s seat, after its hello is answered."""
    with connect(site.replace("http", "ws") + f"/ws/{made['table']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        while json.loads(ws.recv(timeout=30))["type"] != "welcome":
            pass
        ws.send(json.dumps(message))
        # The table answers (a state or a table message) before the connection closes.
        while json.loads(ws.recv(timeout=30))["type"] not in {"state", "table", "error"}:
            pass


def ending_of(site: str, table: str) -> dict[str, Any] | None:
    ending: dict[str, Any] | None = httpx.get(f"{site}/api/tables/{table}").json()["ending"]
    return ending


def test_the_language_switch_keeps_the_focus_and_arrows_switch_nothing(
    browser: Any, site: str
) -> None:
    page = browser.new_page(viewport=PHONE, locale="en-GB")
    page.goto(f"{site}/")
    page.wait_for_selector("#quick-start", timeout=PATIENCE)
    languages = page.get_by_role("group", name="Language")
    english = languages.get_by_role("button", name="English")
    expect(english).to_have_attribute("aria-current", "true")
    # Each language is named in itself, in its own language.
    expect(languages.get_by_role("button", name="Čeština")).to_have_attribute("lang", "cs")
    english.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert focused(page)["inLanguages"]
    # Enter on Čeština: the page in Czech, the focus still on the language chosen.
    languages.get_by_role("button", name="Čeština").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.documentElement.lang === 'cs'", timeout=PATIENCE)
    page.wait_for_selector("text=Hrát hned proti botům", timeout=PATIENCE)
    now = focused(page)
    assert now["inLanguages"] and now["lang"] == "cs", now
    expect(page.locator("#language button[lang=cs]")).to_have_attribute("aria-current", "true")
    # The phone's header holds it: every language in view, nothing scrolls sideways.
    for button in page.locator("#language button").all():
        box = button.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["height"] >= 44
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.close()


def test_the_headers_focus_ring_shows_on_the_green(browser: Any, site: str) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/")
    page.wait_for_selector("#quick-start", timeout=PATIENCE)
    page.keyboard.press("Tab")  # the brand, the header's first link
    colours = page.evaluate(
        """() => { const el = document.activeElement;
          return { inTop: !!el.closest('.top'), ring: getComputedStyle(el).outlineColor,
            ground: getComputedStyle(document.querySelector('.top')).backgroundColor }; }"""
    )
    assert colours["inTop"]

    def luminance(css: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
        return sum(
            w * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
            for w, c in zip((0.2126, 0.7152, 0.0722), (r, g, b), strict=True)
        )

    light, dark = sorted((luminance(colours["ring"]), luminance(colours["ground"])), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 3, colours
    page.close()


def test_the_tables_heading_says_who_plays(browser: Any, server: Any) -> None:
    made = server.quick(players=3)
    page = seat_page(browser, server, made)
    expect(page.get_by_role("heading", level=1)).to_have_text(
        re.compile(r"^Anna, Bot 2,? and Bot 3 at the table$")
    )
    # The id is still there for people to copy.
    expect(page.locator(".table-head")).to_contain_text(f"Table {made['table']}")
    page.close()


def test_the_rules_preset_is_shown_in_words(browser: Any, server: Any) -> None:
    made = server.quick(players=3)
    page = seat_page(browser, server, made)
    head = page.locator(".table-head")
    expect(head).to_contain_text("standard rules")
    # In German the preset's name is the language's own ("Regeln standard" before).
    page.get_by_role("group", name="Language").get_by_role("button", name="Deutsch").click()
    expect(head).to_contain_text("Standardregeln")
    expect(head).not_to_contain_text("standard")
    assert page.problems == []
    page.close()


def test_the_end_of_a_game_is_said_once_and_takes_the_focus(browser: Any, server: Any) -> None:
    made = server.quick(players=2)
    page = seat_page(browser, server, made)
    server.finish(made)
    page.wait_for_function(
        f"() => ({SHOWN})() && window.__seat.state.result !== null", timeout=PATIENCE
    )
    result = page.evaluate("() => window.__seat.state.result")
    mine = next(r for r in result["players"] if r["player"] == 0)
    # (The log's own last sentence may say "The game is over." too.)
    ended = [line for line in said(page) if "Your total" in line]
    assert len(ended) == 1, said(page)
    assert ended[0].startswith("The game is over. ")
    assert f"Your total: {mine['total']} points, place " in ended[0]
    assert "wins" in ended[0]
    heading = page.get_by_role("heading", name=re.compile("wins|Shared win"))
    expect(heading).to_be_focused()
    assert page.problems == []
    page.close()


def test_the_resign_question_focuses_the_safe_answer(browser: Any, server: Any) -> None:
    made = server.quick(players=2)
    page = seat_page(browser, server, made)
    resign = page.get_by_role("button", name="Resign", exact=True)
    # Asked: "No, play on" has the focus; Escape says no, and the focus is back on Resign.
    resign.click()
    expect(page.get_by_role("button", name="No, play on")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Yes, resign")).to_have_count(0)
    expect(resign).to_be_focused()
    resign.click()
    page.get_by_role("button", name="No, play on").click()
    expect(resign).to_be_focused()
    # Yes: resigned, and the focus on how the game ended.
    resign.click()
    page.get_by_role("button", name="Yes, resign").click()
    heading = page.get_by_role("heading", name="You resigned: Bot 2 wins.")
    expect(heading).to_be_visible(timeout=PATIENCE)
    assert page.problems == []
    page.close()


def test_a_resignation_is_said_and_takes_the_focus(browser: Any, server: Any) -> None:
    made = server.quick(players=2)
    page = seat_page(browser, server, made)
    send(server.site, made, {"type": "resign"})
    heading = page.get_by_role("heading", name="You resigned: Bot 2 wins.")
    expect(heading).to_be_focused(timeout=PATIENCE)
    ended = [line for line in said(page) if line.startswith("The game is over.")]
    assert ended == ["The game is over. You resigned: Bot 2 wins."], said(page)
    assert page.problems == []
    page.close()


def test_the_log_is_one_tab_stop_whose_lines_the_arrows_move_between(
    browser: Any, server: Any
) -> None:
    made = server.quick(players=2)
    page = seat_page(browser, server, made)
    # Some moves, by the seat's first legal ones: a log of some lines.
    for state, act in server._seat(made):
        if state["legal"]:
            if state["move"] >= 8:
                break
            act(state["legal"][0])
    page.wait_for_function(f"() => ({READY})() && window.__seat.state.move >= 8", timeout=PATIENCE)
    log = page.get_by_role("log", name="game log")
    lines = log.locator("li")
    assert lines.count() > 3
    stops = "() => [...document.querySelectorAll('#log, #log *')].filter((el) => el.tabIndex >= 0)"
    assert page.evaluate(f"{stops}.length") == 1
    # The Tab stop is the last line; ↑, Home and End move between the lines.
    log.locator("[tabindex='0']").focus()
    last = focused(page)
    assert last["inLog"]
    page.keyboard.press("ArrowUp")
    above = focused(page)
    assert above["inLog"] and above["text"] != last["text"]
    page.keyboard.press("Home")
    assert focused(page)["text"] == lines.first.inner_text().strip()
    page.keyboard.press("End")
    assert focused(page)["text"] == last["text"]
    # Still one Tab stop: where the focus is.
    assert page.evaluate(f"{stops}.map((el) => el === document.activeElement)") == [True]
    # Enter on a line that opens shows the rule behind it.
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    expect(log.locator("details[open] .why-answer").first).not_to_be_empty(timeout=PATIENCE)
    assert page.problems == []
    page.close()


def test_list_every_move_focuses_the_first_move(browser: Any, server: Any) -> None:
    made = server.quick(players=2)
    page = seat_page(browser, server, made)
    server.advance(made, {"play"})
    page.wait_for_function(
        f"() => ({READY})() && window.__seat.state.view.phase === 'play'", timeout=PATIENCE
    )
    page.get_by_role("button", name="List every move").click()
    moves = page.get_by_role("list", name="your legal moves").get_by_role("button")
    expect(moves.first).to_be_focused()
    page.close()


def test_the_lesson_keeps_the_focus_after_a_refusal_and_a_card_put_back(
    browser: Any, site: str
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/tutorial")
    settled = (
        "() => document.querySelector('.tutorial-page')?.getAttribute('aria-busy') === 'false'"
    )
    page.wait_for_function(settled, timeout=PATIENCE)
    # A card chosen, then put back with Escape: the focus stays in the lesson's decision.
    page.locator(".hand-card.usable").first.click()
    expect(page.locator("#decision button.option").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator(".hand-card.selected")).to_have_count(0)
    assert focused(page)["tag"] != "BODY"
    # Another bird than the lesson's: refused, and the refusal has the focus.
    page.locator(".hand-card.usable:not(.lesson-target)").first.click()
    page.locator("#decision button.option").first.click()
    page.wait_for_function(settled, timeout=PATIENCE)
    expect(page.get_by_role("alert").filter(has_text="Not this move")).to_be_focused()
    page.close()


def test_a_rules_link_moves_the_focus_to_the_rule(browser: Any, site: str) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/rules?rules=standard#rule-T1")
    page.wait_for_selector("article.rules h1", timeout=PATIENCE)
    page.wait_for_function("() => document.activeElement.id === 'rule-T1'", timeout=PATIENCE)
    page.close()


def test_a_replay_without_a_score_sheet_says_how_the_game_ended(browser: Any, server: Any) -> None:
    # Aborted at the deal: two people, no move made.
    made = server.table(["human", "human"])
    joined = httpx.post(
        f"{server.site}/api/tables/{made['table']}/join",
        json={"name": "Ben", "token": made["invites"][0]["token"]},
    )
    joined.raise_for_status()
    send(server.site, made, {"type": "abort"})
    send(server.site, joined.json(), {"type": "abort"})
    assert (ending_of(server.site, made["table"]) or {}).get("how") == "aborted"
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.site}/replay/{made['table']}")
    expect(page.locator("#where")).to_have_text(
        "No move was played: the game ended at the deal.", timeout=PATIENCE
    )
    expect(page.get_by_role("heading", name="The game was aborted: no winner.")).to_be_visible()
    assert errors == []

    # Resigned at two players after some moves: the moves, and who resigned.
    made = server.quick(players=2)
    server.advance(made, {"draw"})
    send(server.site, made, {"type": "resign"})
    assert (ending_of(server.site, made["table"]) or {}).get("how") == "resigned"
    page.goto(f"{server.site}/replay/{made['table']}")
    expect(page.get_by_role("heading", name="Anna resigned: Bot 2 wins.")).to_be_visible(
        timeout=PATIENCE
    )
    assert errors == []
    page.close()


def test_the_replays_position_line_names_who_moved(browser: Any, server: Any) -> None:
    # A game with a bird added to a collection (a random game may have none): never "your
    # collection" in a replay, whoever added it.
    for seed in range(1, 20):
        made = server.quick(players=2)
        server.finish(made, seed=seed)
        replay = httpx.get(f"{server.site}/api/tables/{made['table']}/replay").json()
        kinds = [f["choice"]["kind"] if f["choice"] else None for f in replay["frames"]]
        if "collect" in kinds:
            break
    frames = replay["frames"]
    at = kinds.index("collect")
    mover = frames[at - 1]["state"]["current_player"]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.site}/replay/{made['table']}")
    where = page.locator("#where")
    expect(where).to_contain_text("Move", timeout=PATIENCE)
    page.keyboard.press("Home")
    for _ in range(at):
        page.keyboard.press("ArrowRight")
    name = "Anna" if mover == 0 else "Bot 2"
    expect(where).to_have_text(re.compile(rf"^Move {at} of \d+: {name} adds .+ to the collection$"))
    page.close()


def test_the_replays_keys_leave_a_scrolling_box_alone(browser: Any, server: Any) -> None:
    made = server.quick(players=2)
    server.finish(made)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{server.site}/replay/{made['table']}")
    where = page.locator("#where")
    expect(where).to_contain_text("Move", timeout=PATIENCE)
    page.keyboard.press("End")
    end = where.inner_text()
    # The keys are the scrolling box's own there: the replay stays where it is.
    page.get_by_role("region", name="what this move did").focus()
    for key in ("ArrowLeft", "Home"):
        page.keyboard.press(key)
        expect(where).to_have_text(end)
    # Elsewhere they step through the game as before.
    page.get_by_role("toolbar", name="replay controls").get_by_role("button").first.focus()
    page.keyboard.press("ArrowLeft")
    expect(where).not_to_have_text(end)
    page.close()


def test_a_hint_is_said_once_and_named_on_the_suggestion(browser: Any, server: Any) -> None:
    made = server.quick(players=2, hints=True)
    page = seat_page(browser, server, made)
    page.wait_for_function(READY, timeout=PATIENCE)
    page.keyboard.press("h")
    page.wait_for_selector("#hint-box", timeout=PATIENCE)
    page.wait_for_function(SHOWN, timeout=PATIENCE)
    hints = [line for line in said(page) if line.startswith("Hint from the ")]
    assert len(hints) == 1, said(page)
    named = page.locator('[aria-label$=", the hint\'s suggestion"]')
    expect(named.first).to_be_visible()
    # Every suggestion a screen reader meets (a card's face inside its button is hidden).
    assert page.locator(".hinted[aria-label]:not([aria-hidden=true])").count() == named.count()
    page.close()
