// The replay page: every position of a finished game, every hand shown, both ways.
import { api, clear, h, main, setRulesLink } from "./dom.js";
import { drawBoard, drawScores, fromState, logNames } from "./board.js";
import { actionLabel } from "./cards.js";

/** The words of the review, in one place. */
const REVIEW_TEXT = {
  title: "Review",
  intro: "The search grades one player's decisions from that player's view at the time, never from hidden cards.",
  button: (name) => `Review ${name}`,
  computing: (done, total) => `Reviewing: ${done} of ${total} decisions searched…`,
  failed: (message) => `The review failed: ${message}`,
  summary: (s) => `Accuracy ${Math.round(100 * s.accuracy)} % (${s.grades.best + s.grades.good} of ${s.decisions} decisions best or good); `
    + `${s.loss.toFixed(1)} points of lead lost in all.`,
  budget: (r) => `${r.iterations.toLocaleString("en")} search iterations per option.`,
  kinds: ["Kind", "Decisions", "Points lost"],
  columns: ["Move", "Kind", "Played", "Best", "Lost", "Win Δ", "Grade"],
  same: "(the same)",
  thisMove: (d) => `Grade: ${d.grade}. Best: ${actionLabel(d.best)}; ${d.loss.toFixed(1)} points of lead lost, win chance ${signedPercent(d.win_change)}.`,
};
/** Milliseconds between two questions about a review being computed. */
const POLL = 500;

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
  const gradeEl = h("p", { id: "move-grade" });
  let review = null; // the review shown: one player's graded decisions
  const reviewEl = h("div", { id: "review-result" });
  const show = () => {
    const frame = frames[at];
    const model = fromState(frame.state, seats, frame.majority);
    where.textContent = `Move ${at} of ${frames.length - 1}${frame.action ? `: ${actionLabel(frame.action)}` : ": the deal"}`;
    clear(boardEl).append(drawBoard(model));
    if (at === frames.length - 1) boardEl.append(drawScores(model, data.record.result));
    clear(logEl).append(...frame.log.map((line) => h("li", {}, names(line))));
    // Frame ``at`` follows the action with index ``at - 1``: its grade, if it was reviewed.
    const graded = review?.decisions.find((d) => d.index === at - 1);
    gradeEl.textContent = graded ? REVIEW_TEXT.thisMove(graded) : "";
    for (const row of reviewEl.querySelectorAll("tr.decision-row")) {
      row.classList.toggle("current", Number(row.dataset.index) === at - 1);
    }
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
  const progress = h("div", { id: "review-progress", "aria-live": "polite" });
  const ask = async (player) => {
    review = null;
    clear(reviewEl);
    const bar = h("progress", { max: 1, value: 0 });
    const text = h("p", {}, REVIEW_TEXT.computing(0, "…"));
    clear(progress).append(text, bar);
    for (;;) {
      let answer;
      try {
        answer = await api("GET", `/api/tables/${tableId}/review?player=${player}`);
      } catch (error) {
        clear(progress).append(h("p", { class: "problem" }, REVIEW_TEXT.failed(error.message)));
        return;
      }
      if (answer.status !== "computing") {
        clear(progress);
        review = answer;
        reviewEl.append(drawReview(answer, seats, (index) => step(index + 1)));
        show();
        return;
      }
      text.textContent = REVIEW_TEXT.computing(answer.done, answer.total);
      bar.max = Math.max(1, answer.total);
      bar.value = answer.done;
      await new Promise((resolve) => setTimeout(resolve, POLL));
    }
  };
  const reviewPanel = h("section", { class: "panel review", "aria-labelledby": "review-title" },
    h("h2", { id: "review-title" }, REVIEW_TEXT.title),
    h("p", { class: "muted" }, REVIEW_TEXT.intro),
    h("div", { class: "buttons" }, seats.map((s) => h("button", { type: "button", id: `review-${s.seat}`, onclick: () => ask(s.seat) },
      REVIEW_TEXT.button(s.kind === "human" ? s.name || `seat ${s.seat}` : `${s.kind} (seat ${s.seat})`)))),
    progress, reviewEl);
  clear(main()).append(h("div", { class: "replay" },
    h("h1", {}, `Replay of table ${tableId}`), controls, where,
    h("section", { class: "panel" }, h("h2", {}, "This move"), gradeEl, logEl), boardEl, reviewPanel));
  show();
}

/** The review of one player: the summary, points lost by kind, and every decision graded. */
function drawReview(review, seats, goTo) {
  const s = review.summary;
  const kinds = Object.entries(s.categories).filter(([, c]) => c.decisions > 0);
  const cell = (text, cls) => h("td", cls ? { class: cls } : {}, text);
  return h("div", { id: "review" },
    h("p", { id: "review-summary" }, h("b", {}, REVIEW_TEXT.summary(s)), " ", REVIEW_TEXT.budget(review)),
    h("table", { class: "review-table", id: "review-kinds" },
      h("thead", {}, h("tr", {}, REVIEW_TEXT.kinds.map((k) => h("th", { scope: "col" }, k)))),
      h("tbody", {}, kinds.map(([name, c]) => h("tr", {}, h("th", { scope: "row" }, name), cell(c.decisions, "num"), cell(c.loss.toFixed(1), "num"))))),
    h("div", { class: "review-scroll" }, h("table", { class: "review-table", id: "review-decisions" },
      h("thead", {}, h("tr", {}, REVIEW_TEXT.columns.map((k) => h("th", { scope: "col" }, k)))),
      h("tbody", {}, review.decisions.map((d) => h("tr", {
        class: "decision-row", tabindex: 0, dataset: { index: String(d.index) },
        onclick: () => goTo(d.index),
        onkeydown: (event) => { if (event.key === "Enter") goTo(d.index); },
      }, cell(d.index + 1, "num"), cell(d.phase), cell(actionLabel(d.played)),
      cell(d.best === d.played ? REVIEW_TEXT.same : actionLabel(d.best)),
      cell(d.loss.toFixed(1), "num"), cell(signedPercent(d.win_change), "num"),
      h("td", {}, h("span", { class: `grade grade-${d.grade}` }, d.grade))))))));
}

function signedPercent(x) {
  const p = Math.round(100 * x);
  return `${p > 0 ? "+" : p < 0 ? "−" : "±"}${Math.abs(p)} %`;
}
