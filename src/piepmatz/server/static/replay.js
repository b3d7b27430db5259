// The replay page: every position of a finished game, every hand shown, both ways.
import { api, clear, deadEnd, h, main, setRulesLink } from "./dom.js";
import { drawBoard, drawScores, fromState, seatName, seatWho, sentence } from "./board.js";
import { actionLabel, botLevel, moveWords } from "./cards.js";
import { _, ngettext, serverLanguage } from "./i18n.js";
import { checkDeal } from "./deal.js";
import { endingWords, number, percent } from "./tablewords.js";

/** The words of the review, in one place (a function: the page's language may change). */
const reviewText = () => ({
  title: _("Review"),
  intro: _("The search grades one player's decisions from that player's view at the time, never from hidden cards."),
  button: (name) => _("Review {name}", { name }),
  computing: (done, total) => _("Reviewing: {done} of {total} decisions searched…", { done, total }),
  failed: (message) => _("The review failed: {reason}", { reason: message }),
  summary: (s) => ngettext(
    "Accuracy {accuracy} ({good} of {count} decision best or good); {loss} points of lead lost in all.",
    "Accuracy {accuracy} ({good} of {count} decisions best or good); {loss} points of lead lost in all.",
    s.decisions, { accuracy: percent(s.accuracy), good: s.grades.best + s.grades.good, loss: number(s.loss, 1) }),
  budget: (r) => ngettext("{count} search iteration per option.", "{count} search iterations per option.", r.iterations, { count: number(r.iterations) }),
  // TRANSLATORS: headings of the review's table of decisions by their kind (play, draw, ...).
  kinds: [_("Kind"), _("Decisions"), _("Points lost")],
  // TRANSLATORS: headings of the review's table, one row a decision: its move number, its kind,
  // the move played, its grade, the best move, the points of lead it lost against the best, and
  // the change of the win chance it made.
  columns: [_("Move"), _("Kind"), _("Played"), _("Grade"), _("Best"), _("Lost"), _("Win Δ")],
  same: _("(the same)"),
  thisMove: (d, choices, display) => _("Grade: {grade}. Best: {best}; {loss} points of lead lost, win chance {change}.", {
    grade: gradeName(d.grade), best: actionLabel(choices[d.best], display), loss: number(d.loss, 1), change: signedPercent(d.win_change),
  }),
});
/** What the replay says of the deal's check (deal.js), by its outcome. */
const dealText = () => ({
  title: _("The deal"),
  verified: _("Verified: the server's secret matches the commitment shown when the table opened, and every person's part went into the seed."),
  commitment: _("Not verified: the server's secret does not match its commitment."),
  parts: _("Not verified: a person at this table added no part to the seed."),
  seed: _("Not verified: the seed is not the one the parts give."),
  chosen: _("The only person at this table chose the seed."),
  none: _("This game's record does not say how its deal was made."),
  unavailable: _("This page cannot check the deal (the browser allows it over https only): run piepmatz verify on the record."),
});
/** Milliseconds between two questions about a review being computed. */
const POLL = 500;

/** A grade's name as players read it (the review sends the engine's word: best … blunder). */
function gradeName(grade) {
  return { best: _("best"), good: _("good"), inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") }[grade] || grade;
}

/** A kind of decision (the engine's phase name) as players read it. */
function kindName(phase) {
  // TRANSLATORS: a kind of decision in the game review (play a bird, collect, the crow, draw, last hand).
  return { play: _("play"), collect: _("collect"), crow: _("crow"), draw: _("draw"), "last hand": _("last hand") }[phase] || phase;
}

/** Show the replay; returns what stops its keys, for a redraw in a new language. */
export async function showReplay(tableId) {
  document.title = _("Piepmatz — replay of table {table}", { table: tableId });
  let data;
  try {
    data = await api("GET", `/api/tables/${tableId}/replay${serverLanguage() ? `?lang=${serverLanguage()}` : ""}`);
  } catch (error) {
    if (error.status !== 409) throw error;
    // The game goes on: its replay comes once it is over.
    deadEnd(_("The game at table {table} is still going on", { table: tableId }), [_("Its replay opens once the game is over.")], [
      { text: _("Go to the table"), href: `/play/${tableId}${location.search}`, id: "to-table" },
      { text: _("Lobby"), href: `/${location.search}`, id: "to-lobby" }]);
    return () => {};
  }
  const frames = data.frames;
  // The moves a stand-in bot made for a person (away, out of time, resigned), by move index.
  const stoodIn = new Map((data.record.stand_ins || []).map((s) => [s.move, s]));
  // Who was connected is no part of a replay.
  const seats = data.seats.map((s) => ({ ...s, connected: null }));
  setRulesLink(data.rules);
  let at = frames.length - 1;
  const boardEl = h("div", { id: "board" });
  const logEl = h("ol", { id: "replay-log" });
  // The lines scroll inside their box: the box takes the focus, so that a keyboard scrolls it.
  const logBox = h("div", { class: "log", role: "region", tabindex: 0, "aria-label": _("what this move did") }, logEl);
  const where = h("p", { id: "where", "aria-live": "polite" });
  const gradeEl = h("p", { id: "move-grade" });
  let review = null; // the review shown: one player's graded decisions
  const reviewEl = h("div", { id: "review-result" });
  const show = () => {
    const frame = frames[at];
    const model = fromState(frame.state, seats, frame.majority, frame);
    // A draw from the display names the bird it took: the display before the move.
    const display = at > 0 ? frames[at - 1].state.display : null;
    // Who moved: the one deciding in the position before (a replay has no seat of its own).
    const mover = at > 0 ? nameOf(frames[at - 1].state.current_player) : null;
    where.textContent = frames.length === 1 ? _("No move was played: the game ended at the deal.")
      : frame.action
        ? _("Move {move} of {moves}: {action}", { move: number(at), moves: number(frames.length - 1), action: moveWords(frame.choice, mover, display) })
        : _("Move {move} of {moves}: the deal", { move: number(at), moves: number(frames.length - 1) });
    const standIn = stoodIn.get(at - 1);
    if (standIn) where.textContent += " " + _("The {bot} bot played it for {name}.", { bot: botLevel(standIn.bot), name: nameOf(standIn.seat) });
    clear(boardEl).append(drawBoard(model));
    if (at === frames.length - 1) boardEl.append(theEnd(model));
    clear(logEl).append(...frame.log.map((line, i) => h("li", {}, sentence(frame.log_parts?.[i], line))));
    // Frame ``at`` follows the action with index ``at - 1``: its grade, if it was reviewed.
    const graded = review?.decisions.find((d) => d.index === at - 1);
    gradeEl.textContent = graded ? reviewText().thisMove(graded, review.choices, frames[graded.index].state.display) : "";
    for (const row of reviewEl.querySelectorAll("tr.decision-row")) {
      row.classList.toggle("current", Number(row.dataset.index) === at - 1);
    }
  };
  const nameOf = (p) => seatName({ seats }, p);
  /** The end: the score sheet of a game played out; else how it ended (a resignation, an
  abort), which has no score sheet. */
  const theEnd = (model) => {
    if (data.record.result) return drawScores(model, data.record.result, data.rules);
    const [how, ...notes] = data.record.ending ? endingWords(data.record.ending, nameOf) : [];
    return h("section", { class: "scores ending", id: "ending", "aria-labelledby": "ending-title" },
      h("h2", { id: "ending-title" }, how || _("The game ended with no score.")), notes.map((line) => h("p", {}, line)));
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
    // The keys are the form control's or the scrolling box's own there (and Alt+← is the
    // browser's Back).
    if (event.altKey || event.ctrlKey || event.metaKey || ownKeys(event.target)) return;
    if (event.key === "ArrowLeft") step(at - 1);
    else if (event.key === "ArrowRight") step(at + 1);
    else if (event.key === "Home") step(0);
    else if (event.key === "End") step(frames.length - 1);
  }, { signal: keys.signal });
  const progress = h("div", { id: "review-progress", "aria-live": "polite" });
  const ask = async (player) => {
    review = null;
    clear(reviewEl);
    const bar = h("progress", { max: 1, value: 0 });
    const text = h("p", {}, reviewText().computing(0, "…"));
    clear(progress).append(text, bar);
    for (;;) {
      let answer;
      try {
        answer = await api("GET", `/api/tables/${tableId}/review?player=${player}`);
      } catch (error) {
        clear(progress).append(h("p", { class: "problem" }, reviewText().failed(error.message)));
        return;
      }
      if (answer.status !== "computing") {
        clear(progress);
        review = answer;
        reviewEl.append(drawReview(answer, (index) => frames[index].state.display, (index) => step(index + 1)));
        show();
        return;
      }
      text.textContent = reviewText().computing(answer.done, answer.total);
      bar.max = Math.max(1, answer.total);
      bar.value = answer.done;
      await new Promise((resolve) => setTimeout(resolve, POLL));
    }
  };
  const reviewPanel = h("section", { class: "panel review", "aria-labelledby": "review-title" },
    h("h2", { id: "review-title" }, reviewText().title),
    h("p", { class: "muted" }, reviewText().intro),
    h("div", { class: "buttons" }, seats.map((s) => h("button", { type: "button", id: `review-${s.seat}`, onclick: () => ask(s.seat) },
      reviewText().button(seatWho(seats, s.seat))))),
    progress, reviewEl);
  const dealEl = h("p", { id: "deal-check" });
  checkDeal(data.record).then(({ outcome }) => { dealEl.textContent = dealText()[outcome]; dealEl.dataset.outcome = outcome; });
  clear(main()).append(h("div", { class: "replay" },
    h("h1", {}, _("Replay of table {table}", { table: tableId })), controls, where,
    h("section", { class: "panel" }, h("h2", {}, _("This move")), gradeEl, logBox), boardEl, reviewPanel,
    h("section", { class: "panel", "aria-labelledby": "deal-title" }, h("h2", { id: "deal-title" }, dealText().title), dealEl)));
  show();
  return () => keys.abort();
}

/** The review of one player: the summary, points lost by kind, and every decision graded. */
function drawReview(review, displayAt, goTo) {
  const s = review.summary;
  const kinds = Object.entries(s.categories).filter(([, c]) => c.decisions > 0);
  const words = reviewText();
  const cell = (text, cls) => h("td", cls ? { class: cls } : {}, text);
  return h("div", { id: "review" },
    h("p", { id: "review-summary" }, h("b", {}, words.summary(s)), " ", words.budget(review)),
    h("table", { class: "review-table", id: "review-kinds" },
      h("thead", {}, h("tr", {}, words.kinds.map((k) => h("th", { scope: "col" }, k)))),
      h("tbody", {}, kinds.map(([name, c]) => h("tr", {}, h("th", { scope: "row" }, kindName(name)), cell(c.decisions, "num"), cell(number(c.loss, 1), "num"))))),
    h("div", { class: "review-scroll" }, h("table", { class: "review-table", id: "review-decisions" },
      // The grade beside the move played: on a phone, where the kind (which the move's words
      // tell too) is left out, both show without scrolling sideways.
      h("thead", {}, h("tr", {}, words.columns.map((k, i) => h("th", { scope: "col", class: i === 1 ? "kind" : null }, k)))),
      h("tbody", {}, review.decisions.map((d) => h("tr", {
        class: "decision-row", tabindex: 0, dataset: { index: String(d.index) },
        onclick: () => goTo(d.index),
        onkeydown: (event) => { if (event.key === "Enter") goTo(d.index); },
      }, cell(d.index + 1, "num"), cell(kindName(d.phase), "kind"), cell(actionLabel(review.choices[d.played], displayAt(d.index))),
      h("td", {}, h("span", { class: `grade grade-${d.grade}` }, gradeName(d.grade))),
      cell(d.best === d.played ? words.same : actionLabel(review.choices[d.best], displayAt(d.index))),
      cell(number(d.loss, 1), "num"), cell(signedPercent(d.win_change), "num")))))));
}

/** Whether ``el`` (or a box it is in) uses the arrow, Home and End keys itself: a form control,
or a box that scrolls. */
function ownKeys(el) {
  if (!(el instanceof Element)) return false;
  // The boxes made to scroll by keyboard (they take the focus), whether or not they scroll now.
  if (el.closest("input, select, textarea, [contenteditable], [role=region][tabindex], .review-scroll")) return true;
  for (let box = el; box && box !== document.body && box !== document.documentElement; box = box.parentElement) {
    const style = getComputedStyle(box);
    const scrolls = (axis, overflow) => /auto|scroll/.test(overflow) && (axis === "y" ? box.scrollHeight > box.clientHeight : box.scrollWidth > box.clientWidth);
    if (scrolls("y", style.overflowY) || scrolls("x", style.overflowX)) return true;
  }
  return false;
}

function signedPercent(x) {
  const p = Math.round(100 * x);
  return `${p > 0 ? "+" : p < 0 ? "−" : "±"}${percent(Math.abs(p) / 100)}`;
}
