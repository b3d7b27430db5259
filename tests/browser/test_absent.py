"""Paces, stand-ins, resign, abort and "My games" in real Chromium pages against a real server
(docs/protocol.md, "Paces, absent players, resign and abort" and "Players who return").

Two people sit at a table with friends, each in a browser context of their own. The server
offers fast paces so that a clock runs out, or a closed page counts as away, within seconds.
Moves that are not the point of a test are sent through the page's own connection (the tests'
hook, ``conftest.SEAT_HOOK``), as in the reconnect test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from piepmatz.server.pace import PaceRoster
from serverplay import running_server

DESKTOP = {"width": 1280, "height": 900}
#: No wait for one step takes longer than this (milliseconds).
PATIENCE = 20_000
#: ``fast``: a closed page is away after a second; ``blitz``: a person who does not move runs out
#: of time within four seconds (five more after each move of theirs).
PACES = ["fast=live:2m+5s,away=1s", "blitz=live:4s+5s,away=60s"]

#: The tests' player at a page's seat: ``stand_in`` messages its connection receives are noted,
#: and every ``state`` is shown to ``auto`` (set by ``start``): while it answers true, the seat
#: answers each of its decisions at once with its first legal action.
AUTOPLAY = """
(() => {
  const play = { auto: null, sent: -1, standIns: [], socket: null };
  window.__play = play;
  play.consider = (m) => {
    if (!play.auto || m.result || m.ending) return;
    if (!play.auto(m) || !m.legal.length || play.sent === m.move) return;
    play.sent = m.move;
    play.socket.send(JSON.stringify({ type: "action", move: m.move, action: m.legal[0] }));
  };
  play.start = (auto) => {
    play.auto = auto;
    if (window.__seat && window.__seat.state) play.consider(window.__seat.state);
  };
  const Inner = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = new Inner(url, protocols);
    if (String(url).includes("/ws/")) {
      play.socket = ws;
      ws.addEventListener("message", (event) => {
        const m = JSON.parse(event.data);
        if (m.type === "stand_in") play.standIns.push(m);
        if (m.type === "state") play.consider(m);
      });
    }
    return ws;
  };
  window.WebSocket.prototype = Inner.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
"""

#: The page shows a state and is not busy telling it.
_SHOWN = """() => {
  const s = window.__seat && window.__seat.state;
  const shown = document.querySelector('.table-page');
  return !!(s && shown && shown.getAttribute('aria-busy') === 'false'
    && shown.dataset.move === String(s.move));
}"""


@pytest.fixture(scope="module")
def paced_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that offers the fast paces beside its own."""
    database = tmp_path_factory.mktemp("absent") / "server.db"
    with running_server(
        f"sqlite+aiosqlite:///{database}", paces=PaceRoster.build(PACES)
    ) as address:
        yield f"http://{address}"


@dataclass
class Table:
    id: str
    invite: str
    anna: Any
    ben: Any


def _context(browser: Any) -> Any:
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(AUTOPLAY)
    return context


def open_in_the_lobby(context: Any, site: str, friends: int, pace: str | None = None) -> Any:
    """Anna's page, once she opened a table in the lobby for herself and ``friends`` friends
    (the stand-in: the random bot; ``pace`` one the server offers)."""
    anna = context.new_page()
    anna.goto(f"{site}/?pace=0")
    anna.get_by_label("Your display name").fill("Anna")
    form = anna.get_by_role("form", name="Open a table")
    form.get_by_label("Seats", exact=True).select_option(str(friends + 1))
    for seat in range(2, friends + 2):
        form.get_by_label(f"Seat {seat}", exact=True).select_option("human")
    # What the pace means is on the page beside it (a phone shows no title).
    choose = form.get_by_label("Pace", exact=True)
    expect(choose).to_have_accessible_description(re.compile(r"^Each move has its time;"))
    if pace is not None:  # this server's own paces are live ones
        choose.select_option(pace)
        expect(anna.locator("#pace-note")).to_contain_text("Each person has a clock.")
    form.get_by_label("Stand-in bot").select_option("random")
    form.get_by_role("button", name="Open the table").click()
    return anna


def sit_down(site: str, anna_context: Any, ben_context: Any, pace: str | None = None) -> Table:
    """Anna opens a table for herself and a friend (the stand-in: the random bot) in the lobby;
    Ben takes his seat by the invite link; both pages show the game."""
    anna = open_in_the_lobby(anna_context, site, friends=1, pace=pace)
    invite = anna.locator("button.copy[data-link*='seat=1']").get_attribute("data-link")
    assert invite
    anna.get_by_role("link", name="Go to the table").click()
    ben = ben_context.new_page()
    ben.goto(invite.replace("#", "?pace=0#", 1))
    # The invite says the table's pace before Ben sits down at it (a live clock asks time).
    paced = r"^Pace: (Live: .+ \+ .+|Turn-based: .+) a move$"
    expect(ben.locator("#join-pace")).to_have_text(re.compile(paced))
    ben.get_by_label("Your display name").fill("Ben")
    ben.get_by_role("button", name="Take my seat", exact=True).click()
    for page in (anna, ben):
        page.wait_for_function(_SHOWN, timeout=PATIENCE)
    table = re.search(r"/play/([\w-]+)", anna.url)
    assert table
    return Table(table.group(1), invite, anna, ben)


def player(page: Any, name: str) -> Any:
    """A seat on the board, by its person's name."""
    return page.get_by_role("article", name=re.compile(rf"^{name}\b"))


def test_a_person_who_leaves_is_played_by_the_stand_in_and_takes_the_seat_back(
    browser: Any, paced_site: str
) -> None:
    anna_context, ben_context = _context(browser), _context(browser)
    table = sit_down(paced_site, anna_context, ben_context, pace="fast")
    anna = table.anna
    # Each person's clock: the one whose decision it is runs.
    expect(anna.get_by_role("timer")).to_have_count(2)
    expect(anna.get_by_role("timer").first).to_have_text(re.compile(r"^\d+:\d\d$"))
    assert anna.locator("[role=timer].running").count() == 1
    assert "Live: 2 min + 5 s a move" in anna.inner_text(".table-head")

    table.ben.close()  # Ben's connection is gone; after a second he is away
    expect(player(anna, "Ben")).to_contain_text(
        "the random bot plays: away too long", timeout=PATIENCE
    )
    expect(anna.get_by_role("log", name="game log")).to_contain_text(
        "Ben has been away too long: the random bot plays for them until they come back."
    )
    # The game goes on: Anna plays her moves until the stand-in has played a turn of Ben's.
    anna.evaluate("""() => {
      const play = window.__play;
      let benToMove = false;
      play.start((m) => {
        if (m.view.current_player === 1) benToMove = true;
        if (benToMove && m.view.current_player === 0) play.benPlayed = true;
        return !play.benPlayed;
      });
    }""")
    anna.wait_for_function("() => window.__play.benPlayed === true", timeout=PATIENCE)
    # Ben's "My games" says so; opening it does not take the seat back.
    games = ben_context.new_page()
    games.goto(f"{paced_site}/games")
    expect(games.locator(f"li[data-table='{table.id}']")).to_contain_text(
        "a bot plays for you", timeout=PATIENCE
    )
    games.close()

    # Ben opens his link again: the seat is his once more, on both pages.
    ben = ben_context.new_page()
    ben.goto(table.invite.replace("#", "?pace=0#", 1))
    ben.wait_for_function(_SHOWN, timeout=PATIENCE)
    expect(anna.get_by_role("log", name="game log")).to_contain_text(
        "Ben is back and plays again.", timeout=PATIENCE
    )
    expect(player(anna, "Ben")).not_to_contain_text("away too long")
    expect(player(ben, "Ben")).not_to_contain_text("away too long")
    expect(ben.get_by_role("button", name="Take my seat back")).to_have_count(0)
    anna_context.close()
    ben_context.close()


def test_a_person_whose_time_ran_out_takes_the_seat_back_with_the_button(
    browser: Any, paced_site: str
) -> None:
    anna_context, ben_context = _context(browser), _context(browser)
    table = sit_down(paced_site, anna_context, ben_context, pace="blitz")
    anna, ben = table.anna, table.ben
    # Anna answers at once until Ben's clock runs out (he does not move).
    anna.evaluate("() => window.__play.start(() => window.__play.standIns.length === 0)")
    expect(ben.get_by_role("heading", name="Your time ran out")).to_be_visible(timeout=PATIENCE)
    expect(ben).to_have_title("A bot plays for you — Piepmatz")
    expect(player(anna, "Ben")).to_contain_text("the random bot plays: time ran out")
    # A move sent while the stand-in plays is refused in words.
    ben.evaluate(
        "() => window.__seat.socket.send(JSON.stringify({type: 'action', "
        "move: window.__seat.state.move, action: 'draw deck'}))"
    )
    expect(ben.locator("#toast")).to_have_text(
        "Refused: a bot plays for you now: take your seat back first", timeout=PATIENCE
    )
    ben.get_by_role("button", name="Take my seat back").click()
    expect(ben.get_by_role("button", name="Take my seat back")).to_have_count(0, timeout=PATIENCE)
    # With what the stand-in did meanwhile, when it moved at all.
    back = re.compile(r"You are back in your seat(\.|: the random bot made \d+ moves? for you)")
    expect(ben.get_by_role("log", name="game log")).to_contain_text(back)
    expect(anna.get_by_role("log", name="game log")).to_contain_text(
        "Ben is back and plays again.", timeout=PATIENCE
    )
    expect(player(anna, "Ben")).not_to_contain_text("time ran out")
    anna_context.close()
    ben_context.close()


def test_resigning_at_two_players_ends_the_game_for_the_other(
    browser: Any, paced_site: str
) -> None:
    anna_context, ben_context = _context(browser), _context(browser)
    table = sit_down(paced_site, anna_context, ben_context)  # turn-based: a day a move
    anna, ben = table.anna, table.ben
    expect(anna.locator("[role=timer].running")).to_have_text(re.compile(r"^2[34] h left$"))
    anna.get_by_role("button", name="Resign").click()
    expect(anna.get_by_role("group", name=re.compile("^Resign this game"))).to_have_text(
        re.compile(r"^Resign this game\? The game ends at once and Ben wins\.")
    )
    anna.get_by_role("button", name="No, play on").click()
    expect(anna.get_by_role("button", name="Yes, resign")).to_have_count(0)
    anna.get_by_role("button", name="Resign").click()
    anna.get_by_role("button", name="Yes, resign").click()
    expect(anna.locator("#ending")).to_contain_text("You resigned: Ben wins.", timeout=PATIENCE)
    expect(ben.locator("#ending")).to_contain_text(
        "Anna resigned: Ben (you) wins.", timeout=PATIENCE
    )
    for page in (anna, ben):
        expect(page.get_by_role("button", name="Resign")).to_have_count(0)
        expect(page.get_by_role("timer")).to_have_count(0)
        expect(page.get_by_role("link", name="Replay this game")).to_be_visible()
    ending = httpx.get(f"{paced_site}/api/tables/{table.id}").json()["ending"]
    assert ending["how"] == "resigned" and ending["seat"] == 0 and ending["winners"] == [1]
    anna_context.close()
    ben_context.close()


def test_both_people_abort_the_game_in_its_first_round(browser: Any, paced_site: str) -> None:
    anna_context, ben_context = _context(browser), _context(browser)
    table = sit_down(paced_site, anna_context, ben_context)
    anna, ben = table.anna, table.ben
    # Asked first, as resigning is: the safe answer has the focus, and Escape goes back too.
    anna.get_by_role("button", name="Abort the game").click()
    expect(anna.get_by_role("group", name=re.compile("^Abort this game"))).to_have_text(
        re.compile(r"^Abort this game\? Once every person at the table asks, it ends with no")
    )
    expect(anna.get_by_role("button", name="No, play on")).to_be_focused()
    anna.keyboard.press("Escape")
    expect(anna.get_by_role("button", name="Yes, abort")).to_have_count(0)
    expect(anna.get_by_role("button", name="Abort the game")).to_be_focused()
    anna.get_by_role("button", name="Abort the game").click()
    anna.get_by_role("button", name="Yes, abort").click()
    expect(ben.locator("#abort-asked")).to_have_text(
        "Asked to abort the game: Anna. It is aborted once every person at the table asks.",
        timeout=PATIENCE,
    )
    expect(anna.get_by_role("button", name="Abort the game")).to_have_count(0)
    ben.get_by_role("button", name="Abort the game").click()
    ben.get_by_role("button", name="Yes, abort").click()
    for page in (anna, ben):
        expect(page.locator("#ending")).to_contain_text(
            "The game was aborted: no winner.", timeout=PATIENCE
        )
        expect(page.get_by_role("button", name="Abort the game")).to_have_count(0)
    anna_context.close()
    ben_context.close()


#: Instead of the browser's notifications (a headless one shows none): each one made is noted,
#: and asking for permission grants it.
NOTIFICATIONS = """
window.__notes = [];
window.Notification = class {
  constructor(title, options) { window.__notes.push({ title, body: options && options.body }); }
  static requestPermission() {
    window.Notification.permission = "granted";
    return Promise.resolve("granted");
  }
};
window.Notification.permission = "default";
"""


def _play_until(page: Any, seat: int) -> None:
    """Answer this page's decisions at once until it is ``seat``'s decision."""
    page.evaluate("(seat) => window.__play.start((m) => m.view.current_player !== seat)", seat)
    page.wait_for_function(
        "(seat) => window.__seat.state.view.current_player === seat", arg=seat, timeout=PATIENCE
    )
    page.evaluate("() => { window.__play.auto = null; }")


def test_my_games_lists_the_tables_waiting_for_the_player_first(
    browser: Any, paced_site: str
) -> None:
    anna_context, ben_context = _context(browser), _context(browser)
    anna_context.add_init_script(NOTIFICATIONS)
    mine = sit_down(paced_site, anna_context, ben_context)
    _play_until(mine.ben, 0)  # Anna's move here
    theirs = sit_down(paced_site, anna_context, ben_context)
    _play_until(theirs.anna, 1)  # Ben's move there
    over = sit_down(paced_site, anna_context, ben_context)
    over.ben.evaluate("() => window.__seat.socket.send(JSON.stringify({type: 'resign'}))")
    expect(over.anna.locator("#ending")).to_contain_text("Ben resigned", timeout=PATIENCE)

    games = anna_context.new_page()
    games.goto(f"{paced_site}/games?poll=0.3")
    expect(games).to_have_title("(1) My games — Piepmatz", timeout=PATIENCE)
    listed = games.locator("li[data-table]")
    expect(listed).to_have_count(3)
    assert listed.evaluate_all("els => els.map(e => e.dataset.table)") == [
        mine.id,
        theirs.id,
        over.id,
    ]
    your_turn = games.get_by_role("region", name=re.compile("^Your turn"))
    expect(your_turn).to_contain_text(f"Table {mine.id}")
    expect(your_turn).to_contain_text("Anna (you), Ben")
    expect(your_turn).to_contain_text("Turn-based: 1 day a move")
    finished = games.get_by_role("region", name=re.compile("^Finished"))
    expect(finished).to_contain_text("Ben resigned, Anna won")
    replay = finished.get_by_role("link", name="Replay")
    assert replay.get_attribute("href").startswith(f"/replay/{over.id}")

    # Notifications allowed, Ben moves at the other table: it waits for Anna now too.
    games.get_by_role("button", name="Notify me when it is my move").click()
    expect(games.get_by_text("Notifications are on while this page is open.")).to_be_visible()
    _play_until(theirs.ben, 0)
    expect(games).to_have_title("(2) My games — Piepmatz", timeout=PATIENCE)
    notes = games.evaluate("() => window.__notes")
    assert [n["title"] for n in notes] == [f"Your move at table {theirs.id}"]

    # A player's own table opens from the list with no link kept: the player key is the seat.
    games.evaluate(
        "() => { for (const k of Object.keys(localStorage)) "
        "if (k.startsWith('piepmatz:seat:')) localStorage.removeItem(k); }"
    )
    listed.filter(has_text=f"Table {mine.id}").get_by_role("link", name="Go to the table").click()
    games.wait_for_url(re.compile(rf"/play/{mine.id}"))
    expect(player(games, "Anna")).to_contain_text("Anna (you)", timeout=PATIENCE)
    games.wait_for_function(_SHOWN, timeout=PATIENCE)
    expect(games).to_have_title("▶ Your move — Piepmatz")
    anna_context.close()
    ben_context.close()


def test_a_friend_who_does_not_come_is_given_a_bot_and_the_game_begins(
    browser: Any, paced_site: str
) -> None:
    """At a table still waiting, a seated person gives a free seat to the table's stand-in bot:
    its invite goes from the page, and the game begins once the other friend sits down."""
    context = _context(browser)
    anna = open_in_the_lobby(context, paced_site, friends=2)
    invite = anna.locator("button.copy[data-link*='seat=1']").get_attribute("data-link")
    assert invite
    anna.get_by_role("link", name="Go to the table").click()
    expect(anna.get_by_role("heading", name="Waiting for seat 2, seat 3 to join")).to_be_visible()
    expect(anna.locator("button.copy[data-link*='seat=2']")).to_have_count(1)
    anna.get_by_role("button", name="Let the random bot play seat 3").click()
    expect(anna.get_by_role("heading", name="Waiting for seat 2 to join")).to_be_visible()
    # Seat 3's invite and its button are gone; seat 2's are there.
    expect(anna.locator("button.copy[data-link*='seat=2']")).to_have_count(0)
    expect(anna.locator("button.copy[data-link*='seat=1']")).to_have_count(1)
    expect(anna.locator("#seat-bots button")).to_have_count(1)
    table = re.search(r"/play/([\w-]+)", anna.url)
    assert table
    seats = httpx.get(f"{paced_site}/api/tables/{table.group(1)}").json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "random"]
    token = invite.split("#", 1)[1].split("token=", 1)[1]
    joined = httpx.post(
        f"{paced_site}/api/tables/{table.group(1)}/join", json={"name": "Ben", "token": token}
    )
    assert joined.status_code == 200, joined.text
    anna.wait_for_function(_SHOWN, timeout=PATIENCE)
    expect(player(anna, "Bot 3")).to_be_visible()
    context.close()


def test_a_server_without_chat_shows_no_box_to_write_in(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    database = tmp_path_factory.mktemp("quiet") / "server.db"
    with running_server(f"sqlite+aiosqlite:///{database}", chat=False) as address:
        made = httpx.post(
            f"http://{address}/api/quick", json={"name": "Anna", "bot": "random"}
        ).json()
        page = browser.new_page(viewport=DESKTOP)
        page.goto(made["link"].replace("#", "?pace=0#", 1))
        expect(page.locator("#chat-off")).to_have_text("The chat is turned off on this server.")
        expect(page.locator("#chat-input")).to_be_hidden()
        expect(page.locator("#chat")).to_be_hidden()
        page.close()
