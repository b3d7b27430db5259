// "My games" (/games): the tables this browser's player key sits at (GET /api/games), those
// waiting for the player's move first, then the other running ones, then the finished games
// with their replays. It asks again every 20 s (?poll=SECONDS sets another interval), says in
// the title how many tables wait for the player, and raises the browser's notification when
// another one does while the tab is open (once the player allowed notifications).
import { api, clear, h, main, playerKey, toast, whoAmI } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { paceWords } from "./clock.js";
import { seatName, seatWho } from "./board.js";
import { blocksSection } from "./moderation.js";

/** Seconds between two questions (the address may ask for another interval: ?poll=1). */
const POLL = Number(new URLSearchParams(location.search).get("poll")) || 20;

/** The words of the page, in one place (a function: the page's language may change). */
const words = () => ({
  title: _("My games"),
  intro: _("The tables this browser played at. Keep this page open to hear when it is your move."),
  yourTurn: _("Your turn"),
  others: _("Waiting for others"),
  finished: _("Finished"),
  none: _("Nothing here yet: open a table in the lobby."),
  noneNow: _("None right now."),
  waiting: _("waiting for people to join"),
  open: _("Go to the table"),
  replay: _("Replay"),
  allow: _("Notify me when it is my move"),
  allowed: _("Notifications are on while this page is open."),
  blocked: _("This browser blocks notifications from this page."),
  failed: (reason) => _("Could not load your games: {reason}", { reason }),
});

/** The page's title: how many tables wait for the player's move, first. */
function titleFor(count) {
  return count ? _("({count}) My games — Piepmatz", { count }) : _("My games — Piepmatz");
}

/** A game's players in words, the player's own seat marked. */
function playersOf(game) {
  // Each seat's kind and name where the server sends them (a bot by its number and level),
  // else the names.
  if (game.seats) return game.seats.map((_s, seat) => seatWho(game.seats, seat, game.seat)).join(", ");
  return game.players.map((name, seat) => (seat === game.seat ? _("{name} (you)", { name }) : name)).join(", ");
}

/** How a finished game ended, in a few words. */
function endedAs(game) {
  const e = game.ending;
  if (!e) return "";
  const name = (seat) => (game.seats ? seatName({ seats: game.seats }, seat) : game.players[seat] ?? "");
  if (e.how === "aborted") return _("aborted, no winner");
  const winners = (e.winners || []).map(name).join(", ");
  if (e.how === "resigned") return _("{loser} resigned, {winner} won", { loser: name(e.seat), winner: winners });
  if ((e.winners || []).includes(game.seat)) return (e.winners || []).length > 1 ? _("shared win: {names}", { names: winners }) : _("you won");
  return _("{names} won", { names: winners });
}

/** One table of the list, as a list item with its link. */
function entry(game, paces) {
  const pace = typeof game.pace === "string" ? paces.get(game.pace) || { name: game.pace } : game.pace;
  const facts = [
    playersOf(game),
    pace ? paceWords(pace) : null,
    game.status === "waiting" ? words().waiting : ngettext("{count} move played", "{count} moves played", game.move || 0),
    game.status === "over" ? endedAs(game) : null,
    game.absent && game.status !== "over" ? _("a bot plays for you") : null,
  ].filter(Boolean).join(" · ");
  const link = game.status === "over"
    ? h("a", { class: "button", href: `/replay/${game.table}${location.search}` }, words().replay)
    : h("a", { class: `button${game.your_turn ? " primary" : ""}`, href: `/play/${game.table}${location.search}` }, words().open);
  return h("li", { dataset: { table: game.table } },
    h("span", {}, h("b", {}, _("Table {table}", { table: game.table })), " ", h("span", { class: "muted" }, facts)), link);
}

function section(id, title, games, paces, empty) {
  return h("section", { class: "panel", "aria-labelledby": id },
    h("h2", { id }, `${title} (${games.length})`),
    games.length ? h("ul", { class: "games" }, games.map((g) => entry(g, paces))) : h("p", { class: "muted" }, empty));
}

/** The button that asks the browser to allow notifications, or what it said. */
function notifications(redraw) {
  if (!("Notification" in window)) return null;
  if (Notification.permission === "granted") return h("p", { class: "muted", id: "notify-state" }, words().allowed);
  if (Notification.permission === "denied") return h("p", { class: "muted", id: "notify-state" }, words().blocked);
  return h("button", { type: "button", id: "notify", onclick: async () => {
    await Notification.requestPermission();
    redraw();
  } }, words().allow);
}

/** Show "My games"; returns what stops its polling, for a redraw in a new language. */
export async function showGames() {
  document.title = titleFor(0);
  const key = playerKey();
  let paces = new Map();
  try {
    paces = new Map((await api("GET", "/api/paces")).map((p) => [p.name, p]));
  } catch {
    // a pace is then shown by its name
  }
  const listEl = h("div", { id: "games" });
  const notifyEl = h("div", { class: "notify" });
  const blocksEl = h("div", {}); // the players blocked, each removable (moderation.js)
  let seen = null; // the tables that waited for the player's move at the last answer
  let data = null;
  const draw = () => {
    clear(notifyEl).append(notifications(draw) || "");
    if (!data) return;
    const mine = data.playing.filter((g) => g.your_turn);
    const others = data.playing.filter((g) => !g.your_turn);
    document.title = titleFor(mine.length);
    clear(listEl).append(...(data.playing.length || data.finished.length ? [
      section("your-turn", words().yourTurn, mine, paces, words().noneNow),
      section("others", words().others, others, paces, words().noneNow),
      section("finished", words().finished, data.finished, paces, words().noneNow),
    ] : [h("p", { class: "muted" }, words().none)]));
  };
  const load = async () => {
    try {
      data = await api("GET", "/api/games", undefined, { authorization: `Bearer ${key}` });
    } catch (error) {
      toast(words().failed(error.message));
      return;
    }
    const waiting = data.playing.filter((g) => g.your_turn);
    if (seen !== null && "Notification" in window && Notification.permission === "granted") {
      for (const game of waiting.filter((g) => !seen.has(g.table))) {
        const note = new Notification(_("Your move at table {table}", { table: game.table }), { body: playersOf(game), tag: `piepmatz-${game.table}` });
        note.onclick = () => {
          window.focus();
          location.assign(`/play/${game.table}${location.search}`);
        };
      }
    }
    seen = new Set(waiting.map((g) => g.table));
    draw();
  };
  // The way to these games from another device: an account (a browser's key stays in it).
  const elsewhereEl = h("p", { class: "muted", id: "other-device" });
  clear(main()).append(h("div", { class: "my-games" },
    h("h1", {}, words().title),
    h("p", { class: "muted" }, words().intro),
    elsewhereEl, notifyEl, listEl, blocksEl));
  draw();
  const elsewhere = async () => {
    const me = await whoAmI();
    if (me?.username) {
      elsewhereEl.append(_("You are signed in as {name}: sign in with it on another device, and these games are yours there too.", { name: me.username }));
    } else if (me?.accounts === "passwords") {
      elsewhereEl.append(_("Playing on another device too? Create an account here and sign in with it there: these games are yours there too."),
        " ", h("a", { href: `/account${location.search}`, id: "to-account" }, _("Create account")));
    }
  };
  // The list does not wait for the account's question: both are asked at once.
  await Promise.all([load(), elsewhere()]);
  blocksEl.append(await blocksSection());
  const timer = setInterval(load, POLL * 1000);
  return () => clearInterval(timer);
}
