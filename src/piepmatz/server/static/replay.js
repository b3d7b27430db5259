// The replay page: every position of a finished game, every hand shown, both ways.
import { api, clear, h, main, setRulesLink } from "./dom.js";
import { drawBoard, drawScores, fromState, logNames } from "./board.js";
import { actionLabel } from "./cards.js";
import { _, language } from "./i18n.js";

/** Show the replay; returns what stops its keys, for a redraw in a new language. */
export async function showReplay(tableId) {
  document.title = _("Piepmatz — replay of table {table}", { table: tableId });
  const data = await api("GET", `/api/tables/${tableId}/replay?lang=${language()}`);
  const frames = data.frames;
  // Who was connected is no part of a replay.
  const seats = data.seats.map((s) => ({ ...s, connected: null }));
  setRulesLink(data.rules);
  let at = frames.length - 1;
  const names = (text) => logNames(text, seats);
  const boardEl = h("div", { id: "board" });
  const logEl = h("ol", { class: "log", id: "replay-log", "aria-label": _("what this move did") });
  const where = h("p", { id: "where", "aria-live": "polite" });
  const show = () => {
    const frame = frames[at];
    const model = fromState(frame.state, seats, frame.majority);
    where.textContent = frame.action
      ? _("Move {move} of {moves}: {action}", { move: at, moves: frames.length - 1, action: actionLabel(frame.action) })
      : _("Move {move} of {moves}: the deal", { move: at, moves: frames.length - 1 });
    clear(boardEl).append(drawBoard(model));
    if (at === frames.length - 1) boardEl.append(drawScores(model, data.record.result));
    clear(logEl).append(...frame.log.map((line) => h("li", {}, names(line))));
  };
  const step = (to) => {
    at = Math.max(0, Math.min(frames.length - 1, to));
    show();
  };
  const controls = h("div", { class: "buttons replay-controls", role: "toolbar", "aria-label": _("replay controls") },
    h("button", { type: "button", id: "first", onclick: () => step(0), "aria-label": _("the deal") }, _("|◀ Start")),
    h("button", { type: "button", id: "back", onclick: () => step(at - 1), "aria-label": _("one move back"), "aria-keyshortcuts": "ArrowLeft" }, _("◀ Back")),
    h("button", { type: "button", id: "forward", onclick: () => step(at + 1), "aria-label": _("one move forward"), "aria-keyshortcuts": "ArrowRight" }, _("Forward ▶")),
    h("button", { type: "button", id: "last", onclick: () => step(frames.length - 1), "aria-label": _("the end") }, _("End ▶|")));
  const keys = new AbortController();
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") step(at - 1);
    else if (event.key === "ArrowRight") step(at + 1);
    else if (event.key === "Home") step(0);
    else if (event.key === "End") step(frames.length - 1);
  }, { signal: keys.signal });
  clear(main()).append(h("div", { class: "replay" },
    h("h1", {}, _("Replay of table {table}", { table: tableId })), controls, where,
    h("section", { class: "panel" }, h("h2", {}, _("This move")), logEl), boardEl));
  show();
  return () => keys.abort();
}
