// "Find a game" in the lobby (docs/protocol.md, "Find a game"): the number of players and the
// pace, then the wait (how long, how many others wait for the same game), "Play with bots now"
// once the server's wait is over, and "Cancel". Once the server seats the player, the page sits
// down at the seat reserved for them (a join with the player key and a new part of the deal) and
// goes to the table. The seek lives on the server; this browser remembers that it seeks, so that
// the lobby opened again (a reload, another tab) picks up where it is, and a lobby that never
// sought asks the server nothing.
import { api, bearer, clear, dealPart, h, playerKey, toast } from "./dom.js";
import { duration, paceNote, paceWords } from "./clock.js";
import { _, ngettext } from "./i18n.js";

/** Seconds between two questions to the server while waiting (?poll=SECONDS sets another). */
const POLL = Number(new URLSearchParams(location.search).get("poll")) || 2;


/** This browser's mark that it seeks a game (localStorage: every tab sees it). */
const SEEKING = "piepmatz:seeking";

/** Sit down at the seat found (``answer``: table, seat, token) and go to the table. */
function go(answer) {
  localStorage.removeItem(SEEKING);
  localStorage.setItem(`piepmatz:seat:${answer.table}`, JSON.stringify(answer));
  location.assign(`/play/${answer.table}${location.search}#seat=${answer.seat}&token=${answer.token}`);
}

/** The "Find a game" panel of the lobby: ``myName()`` gives the display name (or null, having
said why), ``paces`` the server's paces. Returns the panel and what stops its questions. */
export function findGame(myName, paces) {
  const timed = paces.filter((p) => p.kind !== "untimed"); // no clock: only alone with bots
  const players = h("select", { id: "seek-players", name: "seek-players" },
    [2, 3, 4].map((n) => h("option", { value: String(n) }, ngettext("{count} player", "{count} players", n))));
  const fallback = timed.some((p) => p.name === "live") ? "live" : timed[0]?.name;
  const pace = h("select", { id: "seek-pace", name: "seek-pace" },
    timed.map((p) => h("option", { value: p.name, selected: p.name === fallback, title: paceNote(p) }, paceWords(p))));
  const body = h("div", { id: "seek-body" });
  // Said to screen readers when it changes: how many others wait, or that a table was found.
  const news = h("p", { id: "seek-news", role: "status" });
  const section = h("section", { class: "panel", id: "seek", "aria-labelledby": "seek-title" },
    h("h2", { id: "seek-title" }, _("Find a game")),
    h("p", { class: "muted" }, _("Play with other people waiting: a rated game, with people near your rating where many wait.")),
    body, news);
  let timer = null;
  const stop = () => {
    clearTimeout(timer);
    timer = null;
  };

  const sitDown = async (where) => {
    stop();
    news.textContent = _("A table is ready: sitting down…");
    try {
      go(await api("POST", `/api/tables/${where.table}/join`, { name: where.name, deal_part: dealPart(), player: playerKey() }));
    } catch (error) {
      toast(_("Could not sit down: {reason}", { reason: error.message }));
      idle();
    }
  };

  const withBots = async () => {
    stop();
    try {
      go(await api("POST", "/api/seek/bots", { deal_part: dealPart() }, bearer()));
    } catch (error) {
      toast(_("Could not start: {reason}", { reason: error.message }));
      ask();
    }
  };

  const cancel = async () => {
    stop();
    try {
      await api("DELETE", "/api/seek", undefined, bearer());
    } catch (error) {
      if (error.status !== 404) toast(_("Could not cancel: {reason}", { reason: error.message }));
    }
    localStorage.removeItem(SEEKING);
    news.textContent = "";
    idle();
  };

  // The waiting view is built once per wait and only its words change afterwards, so that a
  // keyboard's focus on a button stays where it is while the page asks again.
  let view = null;
  const waiting = (where) => {
    if (!view) {
      view = {
        wait: h("p", { id: "seek-wait" }),
        note: h("p", { class: "muted", id: "seek-note" }),
        bots: h("button", { type: "button", class: "primary", id: "seek-bots", hidden: true, onclick: withBots }, _("Play with bots now")),
      };
      clear(body).append(view.wait, view.note,
        h("div", { class: "buttons" }, view.bots, h("button", { type: "button", id: "seek-cancel", onclick: cancel }, _("Cancel"))));
    }
    const ready = where.waited >= where.bots_after;
    const game = ngettext("{count} player", "{count} players", where.players);
    const chosen = paces.find((p) => p.name === where.pace);
    view.wait.textContent = _("Looking for a game ({game}, {pace}): waiting for {time}.", {
      game, pace: chosen ? paceWords(chosen) : where.pace, time: duration(where.waited) });
    view.note.textContent = _("After {time} you may fill the empty seats with bots.", { time: duration(where.bots_after) });
    view.note.hidden = ready;
    view.bots.hidden = !ready;
    const others = where.others
      ? ngettext("{count} other person is waiting for this game.", "{count} other people are waiting for this game.", where.others)
      : _("Nobody else is waiting for this game yet.");
    if (news.textContent !== others) news.textContent = others;
  };

  /** Ask the server where the seek stands, and again in a moment while it waits. */
  const ask = async () => {
    let where;
    try {
      where = await api("GET", "/api/seek", undefined, bearer());
    } catch (error) {
      if (error.status === 404) {
        localStorage.removeItem(SEEKING);
        if (view) {
          // Waiting, and the server knows of no seek now: it was left unasked too long, or
          // given up in another tab.
          toast(_("Your search ended: {reason}", { reason: error.message }));
          news.textContent = "";
          idle();
        }
      } else {
        timer = setTimeout(ask, POLL * 1000); // the server is away for a moment: ask again
      }
      return;
    }
    if (where.status === "seated") return sitDown(where);
    waiting(where);
    timer = setTimeout(ask, POLL * 1000);
  };

  const idle = () => {
    stop();
    view = null;
    clear(body).append(
      timed.length ? h("div", { class: "fields" },
        h("label", { for: "seek-players" }, _("Players")), players,
        h("label", { for: "seek-pace" }, _("Pace")), pace) : null,
      h("button", { type: "button", class: "primary", id: "seek-start", disabled: !timed.length, onclick: async () => {
        const name = myName();
        if (!name) return;
        try {
          const where = await api("POST", "/api/seek", { players: Number(players.value), pace: pace.value, name }, bearer());
          localStorage.setItem(SEEKING, "1");
          if (where.status === "seated") return sitDown(where);
          waiting(where);
          timer = setTimeout(ask, POLL * 1000);
        } catch (error) {
          toast(_("Could not look for a game: {reason}", { reason: error.message }));
        }
      } }, _("Find a game")));
  };

  idle();
  if (localStorage.getItem(SEEKING)) ask(); // a seek made earlier (another tab, before a reload) carries on
  return { section, stop };
}
