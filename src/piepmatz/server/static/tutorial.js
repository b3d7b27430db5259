// The guided first game (/tutorial): a fixed deal against a scripted bot, drawn with the table's
// own board, hand and decision. The server keeps nothing: the page remembers how many of the
// lesson's steps are done and asks for the lesson from there (GET /api/tutorial?done=N); each
// move goes to the server, which plays the step's move or refuses any other with the sentence
// that explains the rule (POST /api/tutorial). Every text comes from the server or the web
// catalogue; nothing here is a rule.
import { api, clear, dealPart, h, main, playerKey, savedName, toast } from "./dom.js";
import { actionLabel } from "./cards.js";
import { _ } from "./i18n.js";
import { drawBoard, drawScores, fromView, seatName, sentence } from "./board.js";
import { choiceAt, focusKey, optionKey, renderDecision, renderHand, restoreFocus } from "./decision.js";
import { rememberTable } from "./invites.js";
import { logLine, rovingLog } from "./why.js";

/** How many of the lesson's steps this browser has done (a lesson left is taken up again). */
const DONE = "piepmatz:tutorial";
/** The rules the lesson is played by (its script is a game of the published rules). */
const RULES = "standard";

export async function showTutorial() {
  const page = new TutorialPage();
  await page.start();
  return () => page.leave();
}

class TutorialPage {
  constructor() {
    // The same fields as the table page's store, so that the table's hand and decision draw it.
    this.store = {
      info: { rules: RULES, status: "playing", hints: false, seats: [] },
      seat: 0,
      state: null,
      selected: null,
      showAll: false,
      pending: false,
      previews: new Map(),
      hint: null,
      hinting: false,
      telling: null,
    };
    this.previewing = false; // the lesson's moves have no previews
    this.lesson = null; // the server's last answer
    this.left = false;
    this.keys = new AbortController();
  }

  leave() {
    this.left = true;
    this.keys.abort();
  }

  /** The table's keys: a listed move's number chooses it (Enter plays it), Escape puts the
  chosen card back. */
  key(event) {
    if (event.target.closest?.("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape" && this.store.selected) {
      this.store.selected = null;
      this.render();
    } else if (/^[0-9]$/.test(event.key) && optionKey(this, event.key)) event.preventDefault();
  }

  async start() {
    // Someone who has opened the lesson is not offered it again in the lobby.
    localStorage.setItem("piepmatz:played", "1");
    const kept = Number(localStorage.getItem(DONE) || 0);
    let lesson;
    try {
      lesson = await this.ask(Number.isInteger(kept) && kept > 0 ? kept : 0);
    } catch (error) {
      // A lesson remembered from another script (or a number tampered with): begin again.
      if (error.status !== 422) throw error;
      lesson = await this.ask(0);
    }
    this.layout();
    this.show(lesson);
    if (lesson.done > 0 && lesson.step) this.tell([h("p", {}, _("Welcome back: the lesson goes on where you left it."))]);
  }

  ask(done) {
    return api("GET", `/api/tutorial?done=${done}`);
  }

  layout() {
    this.titleEl = h("h1", { id: "lesson-title" });
    this.introEl = h("p", { class: "lesson-intro" });
    this.progressEl = h("p", { class: "muted", id: "lesson-progress" });
    // The step's instruction and what happened are read out when they change.
    this.doEl = h("div", { id: "lesson-do", class: "lesson-do", role: "status", "aria-live": "polite", "aria-label": _("what to do") });
    this.toldEl = h("div", { id: "lesson-told", class: "lesson-told", role: "status", "aria-live": "polite", "aria-label": _("what happened") });
    // It takes the focus after a refused move (tabindex -1: by script only).
    this.refusedEl = h("p", { id: "lesson-refused", class: "lesson-refused", role: "alert", tabindex: -1, hidden: true });
    this.decisionEl = h("section", { id: "decision", class: "decision", tabindex: -1, "aria-label": _("your move") });
    this.handEl = h("section", { id: "hand", class: "hand-area", "aria-label": _("your hand") });
    this.boardEl = h("div", { id: "board", class: "board-wrap" });
    this.logEl = rovingLog(h("ol", {})); // one Tab stop, the arrows between lines (why.js)
    const logBox = h("div", { id: "log", class: "log", role: "log", "aria-live": "off", "aria-label": _("game log") }, this.logEl);
    this.pageEl = h("div", { class: "table-page tutorial-page" },
      h("div", { class: "play-col" },
        h("div", { class: "lesson-head" }, this.titleEl, this.progressEl,
          h("button", { type: "button", class: "link", id: "lesson-restart", onclick: () => this.restart() }, _("Start the lesson again"))),
        this.introEl, this.doEl, this.refusedEl, this.toldEl,
        h("div", { class: "seat-area" }, this.decisionEl, this.handEl), this.boardEl),
      h("aside", { class: "side-col" },
        h("section", { class: "panel", id: "log-panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, _("Game log")),
          h("p", { class: "muted" }, _("Open a line of the log to see the rule behind it.")), logBox)));
    clear(main()).append(this.pageEl);
    document.addEventListener("keydown", (event) => this.key(event), { signal: this.keys.signal });
  }

  /** The lesson as the server sent it: the board, the hand, the step and the log. */
  show(lesson) {
    const shown = this.lesson ? this.lesson.state.events.length : 0;
    this.lesson = lesson;
    localStorage.setItem(DONE, String(lesson.done));
    const seats = [{ kind: "human", name: lesson.names[0] }, { kind: "easy" }];
    Object.assign(this.store, { state: lesson.state, selected: null, showAll: false, pending: false });
    this.store.info.seats = seats;
    if (shown > lesson.state.events.length || !this.logEl.children.length) clear(this.logEl);
    for (let i = this.logEl.children.length; i < lesson.state.events.length; i++) {
      this.logEl.append(logLine(sentence(lesson.state.log_parts[i], "", 0), lesson.state.events[i], RULES));
    }
    this.logEl.parentElement.scrollTop = this.logEl.parentElement.scrollHeight;
    document.title = _("Piepmatz — learn to play");
    this.render();
  }

  /** What happened: the step's words, then the bot's moves as the table tells them. */
  tell(nodes) {
    clear(this.toldEl).append(...nodes);
  }

  /** Draw the lesson; the focus stays on what had it, else goes to the decision, as at a
  table (a redraw never drops it to the page). */
  render() {
    const focus = focusKey(this);
    this.draw();
    restoreFocus(this, focus);
  }

  draw() {
    const lesson = this.lesson;
    const { step } = lesson;
    clear(this.titleEl).append(...this.parts(lesson.lesson.title));
    clear(this.introEl).append(...(lesson.done === 0 ? this.parts(lesson.lesson.intro) : []));
    this.introEl.hidden = lesson.done !== 0;
    this.progressEl.textContent = step ? _("Step {number} of {count}", { number: lesson.done + 1, count: lesson.steps }) : _("The lesson is done");
    clear(this.doEl).append(...(step ? [h("p", {}, this.parts(step.do))] : [h("p", {}, this.parts(lesson.lesson.end))]));
    const model = this.model();
    const pick = step && !this.store.pending ? (where, key) => this.pick(where, key) : () => null;
    clear(this.boardEl).append(drawBoard(model, pick));
    this.pageEl.dataset.done = String(lesson.done);
    this.pageEl.setAttribute("aria-busy", String(this.store.pending));
    if (!step) {
      this.end(model);
      return;
    }
    renderHand(this);
    renderDecision(this, model);
    this.mark();
  }

  /** Ring what the step asks for: the things to click (``lesson-target``: the hand card, then
  the perch, the display slot, the deck, the bird to lose, the listed move) and what they are
  about (``lesson-mark``: the perch's row, the birds to keep). */
  mark() {
    const { highlight } = this.lesson.step;
    const targets = [...this.pageEl.querySelectorAll(`[data-action="${CSS.escape(highlight.action)}"]`)];
    const marks = [];
    if (["play", "collect"].includes(highlight.kind) && this.store.selected !== highlight.cards[0]) {
      targets.unshift(...this.handEl.querySelectorAll(`.hand-card[data-card="${CSS.escape(highlight.cards[0])}"]`));
    }
    if (highlight.kind === "play") marks.push(...this.boardEl.querySelectorAll(`.row[data-perch="${highlight.number}"]`));
    if (highlight.kind === "keep") {
      for (const code of highlight.cards) marks.push(...this.handEl.querySelectorAll(`.hand-card[data-card="${CSS.escape(code)}"]`));
    }
    for (const el of targets) el.classList.add("lesson-target");
    for (const el of marks) el.classList.add("lesson-mark");
  }

  /** The end: the score sheet explained, and a first real game against the easy bot. */
  end(model) {
    clear(this.handEl);
    const { state } = this.lesson;
    clear(this.decisionEl).append(
      state.result ? drawScores(model, state.result, RULES, state.explained) : null,
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "first-game", onclick: () => this.firstGame() }, _("Play a first game against the easy bot")),
        h("button", { type: "button", id: "lesson-again", onclick: () => this.restart() }, _("Start the lesson again")),
        h("a", { class: "button", href: "/rules" }, _("Read how to play"))));
  }

  /** The lesson's texts: parts as the server writes them, a bird drawn as a small card. */
  parts(parts) {
    return sentence(parts, "", 0);
  }

  model() {
    return { ...fromView(this.lesson.state.view, this.store.info.seats, this.lesson.state), over: !this.lesson.step };
  }

  legal() {
    return this.store.pending || !this.lesson.step ? [] : this.lesson.state.legal;
  }

  choices() {
    return this.store.pending || !this.lesson.step ? [] : this.lesson.state.choices;
  }

  choiceOf(action) {
    return this.lesson.state.choices.find((c) => c.action === action);
  }

  tellingWords() {
    return null;
  }

  nameOf(p) {
    return seatName({ seats: this.store.info.seats, me: 0 }, p);
  }

  /** What a click on the board would do now, as at a table (board.js's ``pick``). */
  pick(where, key) {
    const found = choiceAt(this.choices(), this.store.selected, where, key);
    if (!found) return null;
    const label = actionLabel(found, this.lesson.state.view.display);
    return { label, onclick: () => this.act(found.action), data: { action: found.action }, text: where === "perch" ? _("Play here") : undefined };
  }

  /** The learner's move: the server plays it if it is the step's, else says why not. */
  async act(action) {
    if (this.store.pending || this.left) return;
    const before = this.lesson;
    this.store.pending = true;
    this.render();
    let answer;
    try {
      answer = await api("POST", "/api/tutorial", { done: before.done, action });
    } catch (error) {
      this.store.pending = false;
      this.render();
      toast(_("The move could not be sent: {reason}", { reason: error.message }));
      return;
    }
    if (this.left) return;
    const said = sentence(answer.message, "", 0);
    if (!answer.accepted) {
      // Nothing changed: the same step again, and the sentence that explains the rule.
      this.refusedEl.hidden = false;
      clear(this.refusedEl).append(h("b", {}, _("Not this move:")), " ", ...said);
      this.store.pending = false;
      this.store.selected = null;
      this.render();
      this.refusedEl.focus({ preventScroll: true });
      return;
    }
    this.refusedEl.hidden = true;
    const from = before.state.events.length;
    this.show(answer);
    // The step's words, then every line the move and the bot's turn brought, as at a table.
    const lines = answer.state.log_parts.slice(from).map((parts, i) => ({ parts, event: answer.state.events[from + i] }));
    const bot = lines.findIndex((l) => l.event.kind === "turn" && l.event.player === 1);
    const told = [h("p", { class: "after" }, said)];
    const list = (items) => h("ul", { class: "told-lines" }, items.map((l) => h("li", {}, sentence(l.parts, "", 0))));
    const mine = bot >= 0 ? lines.slice(0, bot) : lines;
    if (mine.length) told.push(list(mine));
    if (bot >= 0) told.push(h("p", { class: "bot-turn" }, this.parts(answer.lesson.bot_turn)), list(lines.slice(bot)));
    this.tell(told);
    this.decisionEl.focus({ preventScroll: true });
  }

  async restart() {
    localStorage.setItem(DONE, "0");
    this.lesson = null;
    clear(this.logEl);
    this.tell([]);
    this.refusedEl.hidden = true;
    this.show(await this.ask(0));
  }

  /** The lobby's quick game: two players, the easy bot, hints on. */
  async firstGame() {
    try {
      const made = await api("POST", "/api/quick", { name: savedName() || this.lesson.names[0], players: 2, bot: "easy", hints: true,
        deal_part: dealPart(), player: playerKey() });
      rememberTable(made);
      const link = new URL(made.link);
      location.assign(link.pathname + location.search + link.hash);
    } catch (error) {
      toast(_("Could not start: {reason}", { reason: error.message }));
    }
  }
}
