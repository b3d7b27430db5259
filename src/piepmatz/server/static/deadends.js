// The pages a table's address can lead to instead of the table: no such table, a link that is
// no seat's, a finished game or a full table seen by someone without a seat. Each says what
// happened and offers the way on (the lobby, the seat this browser remembers, the replay).
import { deadEnd } from "./dom.js";
import { _ } from "./i18n.js";
import { seatName } from "./board.js";
import { showJoin } from "./invites.js";
import { endingWords, winnersWords } from "./tablewords.js";

const lobby = () => ({ text: _("Lobby"), href: `/${location.search}`, id: "to-lobby" });
const myGames = () => ({ text: _("My games"), href: `/games${location.search}`, id: "to-games" });
const replay = (id) => ({ text: _("Replay this game"), href: `/replay/${id}${location.search}`, id: "to-replay" });

function names(page) {
  const seats = page.store.info.seats;
  return (p) => seatName({ seats }, p);
}

/** Something went wrong showing a page: what, in the server's words, and the way on. A fault
of the page itself (no answer of the server's) is not shown in the script's words, which
would mean nothing to a player: it goes to the console. */
export function problem(error) {
  document.title = _("Something went wrong — Piepmatz");
  const said = error?.status ? String(error.message) : null;
  if (!said) console.error(error);
  deadEnd(_("This page cannot be shown"), [said || _("Something went wrong on this page. Try again, or go back to the lobby.")], [lobby(), myGames()]);
}

/** The address names no table this server has. */
export function missingTable(id) {
  document.title = _("No such table — Piepmatz");
  deadEnd(_("There is no table {table}", { table: id }),
    [_("The address may be mistyped or cut short, or the table was opened on another server.")],
    [lobby(), myGames()]);
}

/** The link's token is no seat's (nor the spectators') at this table. */
export function badLink(page) {
  const { info, remembered } = page.store;
  document.title = _("This link does not work — Piepmatz");
  deadEnd(_("This link opens no seat at table {table}", { table: page.id }), [
    _("The link may be mistyped or cut short. Ask whoever sent it for the link again."),
    info.status === "over" ? _("The game at this table is over.") : null,
    remembered ? _("This browser still has its own seat at this table.") : null,
  ], [
    remembered ? { text: _("Open my seat"), href: `/play/${page.id}${location.search}`, id: "my-seat" } : null,
    info.status === "over" ? replay(page.id) : null,
    lobby(), myGames(),
  ]);
}

/** Someone with no seat here (no link, and the browser's player key sits nowhere at this
table): the join form where a seat is free, else what became of the game. */
export function noSeat(page) {
  const info = page.store.info;
  const free = info.seats.some((s) => s.kind === "human" && !s.name);
  if (info.status === "waiting" && free) return showJoin(page, null);
  if (info.status === "over") return gameOver(page);
  document.title = _("Table {table} is full — Piepmatz", { table: page.id });
  const nameOf = names(page);
  return deadEnd(_("Table {table} is full", { table: page.id }), [
    _("{names} play at this table; only the people it invited can play or watch.", { names: info.seats.map((s) => nameOf(s.seat)).join(", ") }),
  ], [lobby(), myGames()]);
}

/** A finished game, for someone who had no seat at it: how it ended, and its replay. */
export function gameOver(page) {
  const info = page.store.info;
  document.title = _("Game over at table {table} — Piepmatz", { table: page.id });
  const nameOf = names(page);
  const winners = (info.ending?.winners || []).map(nameOf);
  const won = info.ending?.how === "played_out" && winners.length
    ? winnersWords(winners) : null;
  return deadEnd(_("The game at table {table} is over", { table: page.id }),
    [...(info.ending ? endingWords(info.ending, nameOf) : []), won],
    [replay(page.id), lobby(), myGames()]);
}
