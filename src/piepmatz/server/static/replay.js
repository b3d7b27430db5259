// The replay page: every position of a finished game, every hand shown, both ways.
import { api, clear, h, main, setRulesLink } from "./dom.js";
import { drawBoard, drawScores, fromState, logNames } from "./board.js";
import { actionLabel } from "./cards.js";

export async function showReplay(tableId) {
  document.title = `Piepmatz — replay of table ${tableId}`;
  const data = await api("GET", `/api/tables/${tableId}/replay`);
  const frames = data.frames;
  // Who was connected is no part of a replay.
  const seats = data.seats.map((s) => ({ ...s, connected: null }));
  setRulesLink(data.rules);
  let at = frames.length - 1;
  const names = (text) => logNames(text, seats);
  const boardEl = h("div", { id: "board" });
  const logEl = h("ol", { class: "log", id: "replay-log", "aria-label": "what this move did" });
  const where = h("p", { id: "where", "aria-live": "polite" });
  const show = () => {
    const frame = frames[at];
    const model = fromState(frame.state, seats, frame.majority);
    where.textContent = `Move ${at} of ${frames.length - 1}${frame.action ? `: ${actionLabel(frame.action)}` : ": the deal"}`;
    clear(boardEl).append(drawBoard(model));
    if (at === frames.length - 1) boardEl.append(drawScores(model, data.record.result));
    clear(logEl).append(...frame.log.map((line) => h("li", {}, names(line))));
  };
  const step = (to) => {
    at = Math.max(0, Math.min(frames.length - 1, to));
    show();
  };
  const controls = h("div", { class: "buttons replay-controls", role: "toolbar", "aria-label": "replay controls" },
    h("button", { type: "button", id: "first", onclick: () => step(0), "aria-label": "the deal" }, "|◀ Start"),
    h("button", { type: "button", id: "back", onclick: () => step(at - 1), "aria-label": "one move back", "aria-keyshortcuts": "ArrowLeft" }, "◀ Back"),
    h("button", { type: "button", id: "forward", onclick: () => step(at + 1), "aria-label": "one move forward", "aria-keyshortcuts": "ArrowRight" }, "Forward ▶"),
    h("button", { type: "button", id: "last", onclick: () => step(frames.length - 1), "aria-label": "the end" }, "End ▶|"));
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") step(at - 1);
    else if (event.key === "ArrowRight") step(at + 1);
    else if (event.key === "Home") step(0);
    else if (event.key === "End") step(frames.length - 1);
  });
  clear(main()).append(h("div", { class: "replay" },
    h("h1", {}, `Replay of table ${tableId}`), controls, where,
    h("section", { class: "panel" }, h("h2", {}, "This move"), logEl), boardEl));
  show();
}
