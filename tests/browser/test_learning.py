"""Learning the game in the browser (issue 44): the guided first game completed by following its
own prompts alone (the highlighted element and the instruction, never a list of moves) in every
language, on a phone and on a desktop; a refused move says why and changes nothing; a lesson left
is taken up again; every log line opens to its rule; the score sheet explains each number; the
rules page opens with the player's guide; the lobby offers the lesson to a newcomer."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 360, "height": 740}
PATIENCE = 30_000
#: A card in the engine's notation (BL5m): a person never reads one.
CODE = re.compile(r"\b(?:BL|BU|CH|GR|SP|YE)[1-6][mf]\b")
#: The lesson has drawn the server's last answer and waits for the learner.
SETTLED = "() => document.querySelector('.tutorial-page')?.getAttribute('aria-busy') === 'false'"


def learner(browser: Any, size: dict[str, int], lang: str) -> Any:
    """A new visitor's page in ``lang`` at ``size``; its script errors are kept."""
    context = browser.new_context(viewport=size)
    context.add_init_script(f"localStorage.setItem('piepmatz:lang', {json.dumps(lang)})")
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems
    page.vacated = []
    return page


def done(page: Any) -> int:
    return int(page.evaluate("document.querySelector('.tutorial-page').dataset.done"))


def follow(page: Any, shots: dict[int, Path] | None = None) -> list[int]:
    """Do what the lesson asks until it is over: read the instruction, click the highlighted
    element. Returns the step reached after each click (a chosen hand card stays on its step)."""
    reached = []
    for _ in range(60):
        page.wait_for_function(SETTLED, timeout=PATIENCE)
        if page.locator("#first-game").is_visible():
            return reached
        instruction = page.locator("#lesson-do").inner_text()
        assert instruction.strip() and not CODE.search(instruction), instruction
        step = done(page)
        # A perch emptied by a chase that waits for the crow's victim is drawn empty (T2.1d).
        if page.locator(".row .at-perch .card.empty").count():
            page.vacated.append(step)
            strength = page.locator(".row", has=page.locator(".at-perch .card.empty"))
            expect(strength.locator(".strength b").last).to_have_text("–")
        if shots and step in shots and not page.locator(".hand-card.selected").count():
            page.screenshot(path=str(shots.pop(step)), full_page=True)
        target = page.locator(".lesson-target:visible").first
        expect(target).to_be_visible()
        target.click()
        page.wait_for_function(SETTLED, timeout=PATIENCE)
        reached.append(done(page))
        if done(page) > step:
            # What happened is told in the page's words, the board's birds as small cards.
            told = page.locator("#lesson-told")
            expect(told).not_to_be_empty()
            assert not CODE.search(told.inner_text())
            assert page.locator("#lesson-refused").is_hidden()
    raise AssertionError("the lesson never ended")


@pytest.mark.parametrize(
    ("lang", "size"), [("en", DESKTOP), ("cs", PHONE), ("de", DESKTOP)], ids=["en", "cs", "de"]
)
def test_the_lesson_is_completed_by_following_its_prompts(
    browser: Any, site: str, artefacts: Path, lang: str, size: dict[str, int]
) -> None:
    steps = httpx.get(f"{site}/api/tutorial").json()["steps"]
    page = learner(browser, size, lang)
    page.goto(f"{site}/tutorial")
    page.wait_for_selector("#lesson-do", timeout=PATIENCE)
    assert page.evaluate("document.documentElement.lang") == lang
    shots = {0: "first-play", 4: "chase", 7: "crow"} if lang == "en" else {}
    reached = follow(page, {n: artefacts / f"tutorial-{name}.png" for n, name in shots.items()})
    # Every step was met, one after another, each in one or two clicks.
    assert set(range(1, steps + 1)) <= set(reached) <= set(range(steps + 1))
    assert reached == sorted(reached)
    assert len(reached) <= 2 * steps
    assert page.vacated == [7], "the crow's step shows the chased perch empty"
    assert page.evaluate("localStorage.getItem('piepmatz:tutorial')") == str(steps)
    # The end: the score sheet, each score explained on request.
    expect(page.locator(".scores")).to_be_visible()
    explain = page.locator(".explained details").first
    explain.locator("summary").click()
    lines = explain.locator("li")
    expect(lines.first).to_be_visible()
    assert re.search(r"\d", lines.last.inner_text())
    # ... and a first real game against the easy bot.
    page.click("#first-game")
    page.wait_for_url(re.compile(r"/play/[\w-]+"), timeout=PATIENCE)
    table = re.search(r"/play/([\w-]+)", page.url).group(1)  # type: ignore[union-attr]
    seats = httpx.get(f"{site}/api/tables/{table}").json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "easy"]
    assert page.problems == []
    page.context.close()


def test_a_refused_move_says_why_and_changes_nothing_and_a_lesson_is_resumed(
    browser: Any, site: str
) -> None:
    page = learner(browser, DESKTOP, "en")
    page.goto(f"{site}/tutorial")
    page.wait_for_function(SETTLED, timeout=PATIENCE)
    board = page.inner_html("#board")
    hand = page.locator(".hand-card").evaluate_all("(els) => els.map((e) => e.dataset.card)")
    # Another bird than the highlighted one, to a perch: the server's sentence, nothing changed.
    page.locator(".hand-card.usable:not(.lesson-target)").first.click()
    option = page.locator("#decision button.option").first
    action = option.get_attribute("data-action")
    option.click()
    page.wait_for_function(SETTLED, timeout=PATIENCE)
    refused = httpx.post(f"{site}/api/tutorial", json={"done": 0, "action": action}).json()
    assert refused["accepted"] is False
    # The server's sentence, its birds drawn as small cards.
    alert = page.get_by_role("alert")
    expect(alert).to_be_visible()
    for part in refused["message"]:
        if "bird" in part:
            expect(alert.locator(f'.mini[data-card="{part["bird"]}"]')).to_have_count(1)
        else:
            expect(alert).to_contain_text(part["text"].strip())
    assert done(page) == 0 and page.evaluate("localStorage.getItem('piepmatz:tutorial')") == "0"
    assert page.inner_html("#board") == board
    assert (
        page.locator(".hand-card").evaluate_all("(els) => els.map((e) => e.dataset.card)") == hand
    )
    # The step's move (its highlighted card, then its perch), then the lesson left and opened
    # again: it goes on from the step reached, its log drawn again.
    page.locator(".lesson-target").first.click()
    page.locator(".lesson-target:visible").first.click()
    page.wait_for_function(
        f"() => ({SETTLED})() && document.querySelector('.tutorial-page').dataset.done === '1'"
    )
    log = page.locator("#log li").count()
    assert log > 0
    page.goto(f"{site}/")
    page.goto(f"{site}/tutorial")
    page.wait_for_function(SETTLED, timeout=PATIENCE)
    assert done(page) == 1 and page.locator("#log li").count() == log
    expect(page.locator("#lesson-told")).to_contain_text("Welcome back")
    # Its log's lines open to their rules, by keyboard too.
    why = httpx.get(f"{site}/api/why?spec=standard").json()
    first = page.locator("#log li").first
    kind = first.get_attribute("class").removeprefix("ev-")  # type: ignore[union-attr]
    first.locator("summary").focus()
    page.keyboard.press("Enter")
    answer = first.locator(".why-answer")
    expect(answer).to_contain_text(why["kinds"][kind]["text"])
    link = answer.locator("a.rule-link")
    assert link.get_attribute("href") == f"/rules?rules=standard#rule-{why['kinds'][kind]['rule']}"
    # The keyboard: the ringed move's number chooses it, Enter plays it.
    number = page.locator("#decision button.option.lesson-target").get_attribute("data-key")
    page.keyboard.press(number)  # type: ignore[arg-type]
    expect(page.locator("#decision button.option.lesson-target")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => ({SETTLED})() && document.querySelector('.tutorial-page').dataset.done === '2'"
    )
    # Started again from the first step.
    page.click("#lesson-restart")
    page.wait_for_function(
        f"() => ({SETTLED})() && document.querySelector('.tutorial-page').dataset.done === '0'"
    )
    assert page.locator("#log li").count() < log or log == 0
    assert page.problems == []
    page.context.close()


def test_a_games_log_says_why_and_its_score_sheet_explains_each_number(
    browser: Any, server: Any
) -> None:
    key = secrets.token_urlsafe(32)
    made = server.quick(2, key)
    server.finish(made)
    page = learner(browser, DESKTOP, "de")
    page.goto(server.url(made["link"]))
    page.wait_for_function(server.READY, timeout=PATIENCE)
    state = page.evaluate("window.__seat.state")
    # Each player's score told number by number, on request, as the server wrote it.
    for seat, lines in enumerate(state["explained"]):
        box = page.locator(f'.explained details[data-seat="{seat}"]')
        expect(box.locator("li").first).to_be_hidden()
        box.locator("summary").click()
        assert box.locator("li").all_inner_texts() == lines
    # The log's lines: the end's reason and a chase, each opened by a click.
    why = httpx.get(
        f"{server.site}/api/why?spec=standard", headers={"accept-language": "de"}
    ).json()
    end = next(e for e in state["events"] if e["kind"] == "end_triggered")
    line = page.locator("#log li.ev-end_triggered").first
    line.locator("summary").click()
    expect(line.locator(".why-answer")).to_contain_text(why["end"][end["reason"]]["text"])
    rule = why["end"][end["reason"]]["rule"]
    assert line.locator("a.rule-link").get_attribute("href").endswith(f"#rule-{rule}")  # type: ignore[union-attr]
    # The words are the rule's, never its id.
    assert rule not in line.locator(".why-answer").inner_text().replace(
        line.locator("a.rule-link").inner_text(), ""
    )
    assert page.problems == []
    page.context.close()


def test_the_rules_page_opens_with_the_guide(browser: Any, site: str, artefacts: Path) -> None:
    guide = httpx.get(f"{site}/api/guide").json()
    score = next(
        b["picture"] for b in guide["blocks"] if b.get("picture", {}).get("kind") == "score"
    )
    page = learner(browser, PHONE, "en")
    page.goto(f"{site}/rules")
    page.wait_for_selector("article.rules h1", timeout=PATIENCE)
    # The guide comes first, the reference with the rule ids after it.
    first = page.locator("main > *").first
    expect(first).to_have_id("guide")
    assert page.evaluate(
        "document.getElementById('guide').compareDocumentPosition(document.querySelector('article.rules'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    # Its pictures are drawn with the game's cards; the scoring example with each line.
    rows = [b["picture"] for b in guide["blocks"] if b.get("picture", {}).get("kind") == "row"]
    drawn = page.locator(".guide-row").evaluate_all(
        "(rows) => rows.map((r) =>"
        " [...r.querySelectorAll('.card.bird')].map((c) => c.dataset.card))"
    )
    assert drawn == [[r["perch"], *r["ground"]] for r in rows]
    example = page.locator("#guide-score")
    for player, shown in zip(score["players"], example.locator(".score-player").all(), strict=True):
        assert shown.locator(".explained-lines li").all_inner_texts() == player["explained"]
        assert (
            shown.locator(".card.bird").evaluate_all("(c) => c.map((e) => e.dataset.card)")
            == player["birds"]
        )
    expect(example.locator("figcaption")).to_have_text(score["verdict"])
    example.screenshot(path=str(artefacts / "guide-score.png"))
    # A link of the guide goes to its rule in the reference below.
    link = page.locator('#guide a[href^="#rule-"]').first
    target = link.get_attribute("href")
    link.click()
    expect(page.locator(f'[id="{target[1:]}"]')).to_have_class(re.compile(r"\btarget\b"))  # type: ignore[index]
    expect(page.locator(f'[id="{target[1:]}"]')).to_be_in_viewport()  # type: ignore[index]
    assert page.problems == []
    page.context.close()


def test_the_lobby_offers_the_lesson_to_a_newcomer_and_every_page_how_to_play(
    browser: Any, site: str
) -> None:
    page = learner(browser, PHONE, "cs")
    page.goto(f"{site}/")
    offer = page.locator("#lesson-offer")
    expect(offer).to_be_visible(timeout=PATIENCE)
    # "No, thanks" is remembered.
    page.click("#lesson-no")
    expect(offer).to_have_count(0)
    page.reload()
    page.wait_for_selector("#quick-start", timeout=PATIENCE)
    expect(offer).to_have_count(0)
    page.context.close()
    # Taken: the lesson opens, and the lobby does not offer it again.
    page = learner(browser, DESKTOP, "en")
    page.goto(f"{site}/")
    page.click("#lesson-start")
    page.wait_for_selector("#lesson-do", timeout=PATIENCE)
    for address, ready in (("/", "#quick-start"), ("/rules", "#guide"), ("/games", "main h1")):
        page.goto(site + address)
        page.wait_for_selector(ready, timeout=PATIENCE)
        link = page.get_by_role("navigation").get_by_role("link", name="How to play")
        assert link.get_attribute("href") == "/rules#guide"
    expect(page.locator("#lesson-offer")).to_have_count(0)
    page.context.close()
