// The table page: one WebSocket per seat (docs/protocol.md). The server decides everything;
// this page shows the seat's view, offers exactly the legal actions it was sent, with the
// server's preview of each, and tells the events step by step.
import { api, clear, copyText, dealPart, h, main, savedName, saveName, setRulesLink, toast } from "./dom.js";
import { actionLabel, bird, birdLabel, botLevel } from "./cards.js";
import { _, language, ngettext } from "./i18n.js";
import { drawBoard, drawScores, fromView, logNames, seatName } from "./board.js";

/** Milliseconds per step of an animation; ``?pace=0`` (tests) shows everything at once. */
const PACE = Number(new URLSearchParams(location.search).get("pace") ?? localStorage.getItem("piepmatz:pace") ?? 700);
/** Events worth a pause of their own; the rest are told in the log without one. */
const STEPS = new Set(["play", "chase", "take_seed", "take_blind", "take_pest", "collect_perch", "crow",
  "crow_nothing", "squirrel", "promote", "collect", "draw_display", "draw_deck", "end_triggered", "reveal"]);

function prompt(phase) {
  return {
    play: _("Play a bird: choose a card of your hand, then a perch."),
    collect: _("No chase: you may add a bird from your hand to your collection (T2.2)."),
    crow: _("The crow: choose a bird of your most numerous species to lose (T2.1d)."),
    draw: _("Draw: take a display card or the top of the bird deck (T3.1)."),
    "last hand": _("Last hand: choose the two birds that join your collection (E3)."),
  }[phase];
}

/** The words of hints, in one place (a function: the page's language may change). */
const hintText = () => ({
  button: _("Hint (H)"),
  thinking: _("Thinking…"),
  title: (bot, move) => _("Hint from the {bot} bot: {move}", { bot: botLevel(bot), move }),
  estimate: (h) => _("Expected lead {lead} ± {lead_spread} points, win chance {win} ± {win_spread} (from your view only, {worlds} sampled worlds).", {
    lead: signed(h.lead), lead_spread: number(h.lead_spread, 1), win: percent(h.win), win_spread: percent(h.win_spread), worlds: number(h.worlds),
  }),
  on: _("Hints on"),
  onTitle: _("every person at this table allowed hints: press H or the Hint button on your move"),
  off: _("Hints off"),
  offTitle: _("hints are on only when every person at the table allows them"),
  allow: _("Allow hints (the hard bot's suggestion for your move, when you ask)"),
  allowNote: _("Hints are on only if every person at the table allows them."),
  refused: _("Hints are off at this table: someone there did not allow them."),
});

/** Show the table; returns what stops it (its socket and keys), for a redraw in a new language. */
export async function showTable(tableId) {
  const page = new TablePage(tableId);
  await page.start();
  return () => page.leave();
}

class TablePage {
  constructor(id) {
    this.id = id;
    this.info = null;
    this.state = null; // the last state message shown
    this.previews = new Map();
    this.selected = null;
    this.pending = false;
    this.queue = [];
    this.busy = false;
    this.seat = null;
    this.token = null;
    this.logLines = [];
    this.closing = false;
    this.keys = new AbortController();
    this.hint = null; // the hint message for the decision shown
    this.hinting = false; // a hint is being worked out
  }

  leave() {
    this.closing = true;
    this.keys.abort();
    if (this.ws) this.ws.close();
  }

  async start() {
    const hash = new URLSearchParams(location.hash.slice(1));
    const key = `piepmatz:seat:${this.id}`;
    const stored = JSON.parse(sessionStorage.getItem(key) || localStorage.getItem(key) || "null");
    this.token = hash.get("token") || stored?.token || null;
    this.seat = hash.has("seat") ? Number(hash.get("seat")) : hash.get("token") ? null : stored?.seat ?? null;
    if (hash.has("token")) {
      // The link carries the token once: the tab's storage keeps it, and it leaves the address
      // bar, so that history, bookmarks and a copied address do not hand the seat on.
      this.keep();
      history.replaceState(null, "", location.pathname + location.search);
    }
    this.info = await api("GET", `/api/tables/${this.id}`);
    setRulesLink(this.info.rules);
    if (!this.token) return this.showJoin(null);
    if (this.seat !== null && !this.info.seats[this.seat]?.name) return this.showJoin(this.token);
    this.remember();
    this.layout();
    this.connect();
  }

  /** This tab's seat (or spectator place) and token, for a reload. */
  keep() {
    sessionStorage.setItem(`piepmatz:seat:${this.id}`, JSON.stringify({ seat: this.seat, token: this.token }));
  }

  /** A taken seat is remembered by the browser too, for a later visit from the lobby. */
  remember() {
    this.keep();
    if (this.seat !== null) localStorage.setItem(`piepmatz:seat:${this.id}`, JSON.stringify({ seat: this.seat, token: this.token }));
  }

  /** Choose a display name and take the invited seat (or a free seat of a public table). */
  showJoin(token) {
    const seatWords = (s) => {
      const who = s.kind === "human" ? s.name || _("free") : _("bot ({level})", { level: botLevel(s.kind) });
      return _("{seat}: {who}", { seat: s.seat, who });
    };
    const input = h("input", { id: "join-name", name: "name", required: true, maxlength: 32, value: savedName(), autocomplete: "nickname" });
    // Hints need every person's consent: only worth asking while nobody seated has refused.
    const othersAllow = this.info.seats.filter((s) => s.kind === "human" && s.name).every((s) => s.hints);
    const allowHints = h("input", { type: "checkbox", id: "join-hints" });
    const form = h("form", { class: "panel join", "aria-label": _("join the table"), onsubmit: async (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (!name) return toast(_("Choose a display name first."));
      try {
        const joined = await api("POST", `/api/tables/${this.id}/join`, { name, token, hints: allowHints.checked, deal_part: dealPart() });
        saveName(name);
        this.seat = joined.seat;
        this.token = joined.token;
        this.remember();
        history.replaceState(null, "", `/play/${this.id}${location.search}`);
        this.info = await api("GET", `/api/tables/${this.id}`);
        this.layout();
        this.connect();
      } catch (error) {
        toast(_("Could not join: {reason}", { reason: error.message }));
      }
    } },
    h("h1", {}, token ? _("You are invited to seat {seat} at table {table}", { seat: this.seat, table: this.id }) : _("Table {table}", { table: this.id })),
    h("p", {}, _("Rules: {rules}. Seats: {seats}", { rules: this.info.rules, seats: this.info.seats.map(seatWords).join(", ") })),
    h("label", { for: "join-name" }, _("Your display name")), input,
    othersAllow ? h("label", { class: "check" }, allowHints, ` ${hintText().allow}`) : h("p", { id: "hints-refused" }, hintText().refused),
    othersAllow ? h("p", { class: "muted" }, hintText().allowNote) : null,
    h("button", { type: "submit", class: "primary" }, token ? _("Take my seat") : _("Join")));
    clear(main()).append(form);
    input.focus();
  }

  layout() {
    this.boardEl = h("div", { id: "board", class: "board-wrap" });
    this.handEl = h("section", { id: "hand", class: "hand-area", "aria-label": _("your hand") });
    this.decisionEl = h("section", { id: "decision", class: "decision", "aria-live": "polite", "aria-label": _("your move") });
    this.bannerEl = h("p", { id: "banner", class: "banner", "aria-live": "polite" }, "");
    this.headEl = h("div", { class: "table-head" });
    this.logEl = h("ol", { id: "log", class: "log", role: "log", "aria-label": _("game log") });
    this.chatEl = h("ol", { id: "chat", class: "chat", role: "log", "aria-label": _("table chat") });
    const chatInput = h("input", { id: "chat-input", maxlength: 500, placeholder: _("Say something to the table"), "aria-label": _("chat message"), autocomplete: "off" });
    const chatForm = this.seat === null ? h("p", { class: "muted" }, _("Spectators read the chat."))
      : h("form", { class: "chat-form", onsubmit: (event) => {
        event.preventDefault();
        const text = chatInput.value.trim();
        if (text) this.send({ type: "chat", text });
        chatInput.value = "";
      } }, chatInput, h("button", { type: "submit" }, _("Send")));
    this.pageEl = h("div", { class: "table-page" },
      h("div", { class: "play-col" }, this.headEl, this.bannerEl, this.decisionEl, this.handEl, this.boardEl),
      h("aside", { class: "side-col" },
        h("section", { class: "panel" }, h("h2", {}, _("Game log")), this.logEl),
        h("section", { class: "panel" }, h("h2", {}, _("Chat")), this.chatEl, chatForm)));
    clear(main()).append(this.pageEl);
    document.addEventListener("keydown", (event) => this.key(event), { signal: this.keys.signal });
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The server tells this connection's events in the page's language.
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${this.id}?lang=${language()}`);
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token: this.token }));
    ws.onmessage = (event) => {
      this.retries = 0; // the server answers: the next loss starts the backoff again
      this.receive(JSON.parse(event.data));
    };
    ws.onclose = () => {
      if (this.closing || this.ws !== ws) return;
      this.banner(_("Connection lost: reconnecting…"));
      // Exponential backoff with jitter (0.5 s doubling up to 10 s), so that the pages of a
      // restarted server do not all come back in the same instant.
      const delay = Math.min(10000, 500 * 2 ** (this.retries || 0)) * (0.5 + Math.random() / 2);
      this.retries = (this.retries || 0) + 1;
      setTimeout(() => this.connect(), delay);
    };
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      toast(_("Not connected: wait a moment."));
      return false;
    }
    this.ws.send(JSON.stringify(message));
    return true;
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.seat = message.seat;
        break;
      case "table":
        this.info = message;
        if (this.state) this.renderAll();
        else {
          this.renderHead();
          if (message.status === "waiting") this.renderWaiting();
        }
        break;
      case "state":
        this.queue.push(message);
        this.drain();
        break;
      case "preview":
        if (this.state && message.move === this.state.move) {
          this.previews = new Map(message.previews.map((p) => [p.action, p]));
          this.renderAll();
        }
        break;
      case "chat":
        this.chatEl.append(h("li", {}, h("b", {}, `${message.name}: `), message.text));
        this.chatEl.scrollTop = this.chatEl.scrollHeight;
        break;
      case "hint":
        if (this.state && message.move === this.state.move) {
          this.hint = message;
          this.hinting = false;
          this.renderAll();
        }
        break;
      case "bot_replaced":
        toast(`Bot ${message.seat} (${message.bot}) failed: ${message.reason}; ${message.fallback} played this move for it.`);
        break;
      case "error":
        this.pending = false;
        if (message.code.startsWith("hint") || message.code === "hints_off") this.hinting = false;
        toast(_("Refused: {reason}", { reason: refusal(message) }));
        if (message.code === "stale") this.send({ type: "sync" });
        if (this.state) this.renderAll();
        break;
      default:
        break;
    }
  }

  /** Show the state messages in order, each one's events step by step. */
  async drain() {
    if (this.busy) return;
    this.busy = true;
    this.markStatus();
    while (this.queue.length) {
      const message = this.queue.shift();
      const full = message.events_from === 0;
      if (full) {
        clear(this.logEl);
        this.logLines = [];
      }
      const animate = !full && PACE > 0 && this.state !== null;
      for (let i = 0; i < message.log.length; i++) {
        const event = message.events[i];
        const line = this.names(message.log[i]);
        this.addLog(line, event.kind);
        if (animate && STEPS.has(event.kind)) {
          this.banner(line);
          this.highlight(event);
          await sleep(PACE);
        }
      }
      if (message.log.length) this.banner(this.names(message.log[message.log.length - 1]));
      if (this.state?.move !== message.move) {
        this.hint = null;
        this.hinting = false;
      }
      this.state = message;
      this.previews = new Map();
      this.selected = null;
      this.showAll = false;
      this.pending = false;
      this.renderAll();
      if (message.legal.length) this.send({ type: "preview", move: message.move });
    }
    this.busy = false;
    this.markStatus();
  }

  /** Say on the page what it shows: the move, and whether it is still telling a move or
  waiting for its own move's answer (aria-busy), for assistive technology and for scripts. */
  markStatus() {
    if (!this.pageEl) return;
    const state = this.state;
    this.pageEl.setAttribute("aria-busy", String(this.busy || this.pending || this.queue.length > 0));
    if (!state) return;
    Object.assign(this.pageEl.dataset, {
      move: String(state.move), phase: state.view.phase, over: String(state.result !== null), toMove: String(state.legal.length > 0),
    });
  }

  names(sentence) {
    return logNames(sentence, this.info?.seats || []);
  }

  addLog(line, kind) {
    this.logEl.append(h("li", { class: `ev-${kind}` }, line));
    while (this.logEl.children.length > 400) this.logEl.firstChild.remove();
    this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  banner(text) {
    this.bannerEl.textContent = text;
  }

  /**
   * Show one event on the board that is still showing the position before: the place it
   * touches flashes, a played bird lands in its row, a card that leaves fades, a promoted bird
   * is ringed. Every card is found by the name the event gives; nothing here is a rule.
   */
  highlight(event) {
    for (const el of document.querySelectorAll(".flash")) el.classList.remove("flash");
    const marks = [];
    if (event.perch) marks.push(`.row[data-perch="${event.perch}"]`);
    if (event.position) marks.push(`.slot[data-position="${event.position}"]`);
    if (event.player !== undefined && event.player !== null) marks.push(`.player[data-seat="${event.player}"]`);
    if (event.slot) marks.push(`.display-slot:nth-child(${event.slot})`);
    for (const el of document.querySelectorAll(marks.join(","))) el.classList.add("flash");
    const seat = `.player[data-seat="${event.player}"]`;
    const mark = (selector, cls) => {
      for (const el of document.querySelectorAll(selector)) el.classList.add(cls);
    };
    switch (event.kind) {
      case "play": {
        const ground = document.querySelector(`.row[data-perch="${event.perch}"] .ground`);
        if (ground && event.bird) {
          const landing = bird(event.bird);
          landing.classList.add("arriving");
          ground.append(landing);
        }
        break;
      }
      case "take_seed":
      case "take_pest":
        if (event.position) mark(`.slot[data-position="${event.position}"] [data-card="${event.seed || event.pest}"]`, "leaving");
        break;
      case "collect_perch":
        mark(`.row [data-card="${event.bird}"]`, "leaving");
        break;
      case "promote":
        mark(`.row[data-perch="${event.perch}"] [data-card="${event.bird}"]`, "promoted");
        break;
      case "crow":
        mark(`${seat} .collection [data-card="${event.bird}"]`, "leaving");
        break;
      case "squirrel":
        for (const seed of event.seeds || []) mark(`${seat} .seeds [data-card="${seed}"]`, "leaving");
        break;
      case "draw_display":
        mark(`.display-slot:nth-child(${event.slot}) [data-card]`, "leaving");
        break;
      case "collect":
        if (event.bird) mark(`.hand [data-card="${event.bird}"]`, "leaving");
        break;
      default:
        break;
    }
  }

  model() {
    return fromView(this.state.view, this.info.seats);
  }

  renderHead() {
    const info = this.info;
    const parts = [
      ngettext("{count} player", "{count} players", info.players),
      _("rules {rules}", { rules: info.rules }),
      this.seat === null ? _("spectating") : _("seat {seat}", { seat: this.seat }),
      this.state ? _("move {move}", { move: this.state.move }) : null,
      info.spectators ? ngettext("{count} watching", "{count} watching", info.spectators) : null,
    ];
    clear(this.headEl).append(...[
      h("h1", {}, _("Table {table}", { table: this.id })),
      h("span", { class: "muted" }, " " + parts.filter(Boolean).join(" · ")),
      this.seat !== null && info.status !== "over"
        ? h("span", { class: `tag hints-${info.hints ? "on" : "off"}`, id: "hints-tag", title: info.hints ? hintText().onTitle : hintText().offTitle },
          info.hints ? hintText().on : hintText().off)
        : null,
      this.state?.view.end_triggered && !this.state.result
        ? h("span", { class: "tag last-round", title: _("the end is triggered (E1): play goes on until everybody has had the same number of turns (E2)") }, _("Last round"))
        : null,
      h("a", { class: "rules-inline", href: `/rules?rules=${encodeURIComponent(info.rules)}`, target: "_blank", rel: "noopener" }, _("Rules of this game")),
    ].filter(Boolean));
  }

  renderAll() {
    this.renderHead();
    if (!this.state) return;
    // A tab in the background still says when it is this seat's move.
    document.title = this.state.legal.length ? _("▶ Your move — Piepmatz") : _("Piepmatz — table {table}", { table: this.id });
    const model = this.model();
    const pick = (where, key) => this.pick(where, key);
    clear(this.boardEl).append(drawBoard(model, pick));
    this.renderHand();
    this.renderDecision(model);
    this.markHint();
    this.markStatus();
  }

  /** Ask for a hint on this seat's decision (the server refuses when hints are off). */
  askHint() {
    if (!this.info?.hints || !this.state?.legal.length || this.pending || this.hinting || this.hint) return;
    if (this.send({ type: "hint", move: this.state.move })) {
      this.hinting = true;
      this.renderAll();
    }
  }

  /** Ring what the hint suggests: its listed move or perch, and the hand cards it names. */
  markHint() {
    if (!this.hint) return;
    const action = this.hint.action;
    for (const el of document.querySelectorAll(`[data-action="${action}"]`)) el.classList.add("hinted");
    const { kind, cards } = this.choiceOf(action) || { kind: null, cards: [] };
    if (["play", "collect", "keep"].includes(kind)) {
      for (const code of cards) {
        for (const el of this.handEl.querySelectorAll(`[data-card="${code}"]`)) el.classList.add("hinted");
      }
    }
  }

  hintBox() {
    if (!this.info?.hints || this.seat === null) return null;
    const button = h("button", { type: "button", id: "hint", "aria-keyshortcuts": "h", disabled: this.hinting || this.pending || !!this.hint,
      onclick: () => this.askHint() }, this.hinting ? hintText().thinking : hintText().button);
    const shown = this.hint ? h("div", { id: "hint-box", class: "hint-box", role: "status" },
      h("b", {}, hintText().title(this.hint.bot, actionLabel(this.choiceOf(this.hint.action)))),
      h("p", {}, hintText().estimate(this.hint))) : null;
    return h("div", { class: "hint-area" }, button, shown);
  }

  legal() {
    return this.pending ? [] : this.state.legal;
  }

  /** The seat's legal actions as fields (kind, cards, number), as the server sends them. */
  choices() {
    return this.pending ? [] : this.state.choices;
  }

  choiceOf(action) {
    return this.state?.choices.find((c) => c.action === action);
  }

  choice(action, extra = {}) {
    const preview = this.previews.get(action);
    return {
      label: `${actionLabel(this.choiceOf(action))}${preview ? `: ${preview.headline}` : ""}`,
      preview: preview?.headline,
      onclick: () => this.act(action),
      data: { action },
      ...extra,
    };
  }

  /** What a click on a thing of the board would do now (see drawBoard), or null. */
  pick(where, key) {
    if (where === "collection" && this.state.view.player === null) return null;
    const wanted = {
      perch: (c) => c.kind === "play" && c.cards[0] === this.selected && c.number === key,
      display: (c) => c.kind === "draw display" && c.number === key,
      deck: (c) => c.kind === "draw deck",
      collection: (c) => c.kind === "crow" && c.cards[0] === key,
    }[where];
    const found = wanted && this.choices().find(wanted);
    if (!found) return null;
    return this.choice(found.action, where === "perch" ? { text: _("Play here") } : {});
  }

  renderHand() {
    clear(this.handEl);
    const hand = this.state.view.hand;
    if (this.seat === null || (this.state.result && !hand.length)) return;
    const choices = this.choices();
    this.handEl.append(h("h2", {}, _("Your hand")), h("div", { class: "cards hand" }, hand.map((code) => {
      const usable = choices.some((c) => c.cards.includes(code) && c.kind !== "keep");
      return h("button", {
        type: "button",
        class: `hand-card${this.selected === code ? " selected" : ""}${usable ? " usable" : ""}`,
        "aria-pressed": this.selected === code ? "true" : "false",
        "aria-label": usable ? birdLabel(code) : _("{bird} (not playable now)", { bird: birdLabel(code) }),
        dataset: { card: code },
        onclick: () => this.clickHand(code),
      }, bird(code, { "aria-hidden": "true", role: null }));
    })));
  }

  /** A click on a hand card: select it to play, collect it, or say why it cannot be used now. */
  clickHand(code) {
    const legal = this.legal();
    const phase = this.state.view.phase;
    if (this.pending) return toast(_("Your move is on its way."));
    if (!legal.length) {
      const p = this.state.view.current_player;
      return toast(this.state.result ? _("The game is over.") : _("It is not your turn: waiting for {name}.", { name: seatName(this.model(), p) }));
    }
    if (phase === "play") {
      if (!this.choices().some((c) => c.kind === "play" && c.cards[0] === code)) return toast(_("{bird} cannot be played now.", { bird: birdLabel(code) }));
      this.selected = this.selected === code ? null : code;
      this.renderAll();
      const target = document.querySelector(".perch-pick");
      if (target && this.selected) target.focus();
      return;
    }
    const collect = this.choices().find((c) => c.kind === "collect" && c.cards[0] === code);
    if (collect) return this.act(collect.action);
    const what = prompt(phase) || _("wait");
    return toast(_("{bird} cannot be used now: {what}", { bird: birdLabel(code), what }));
  }

  act(action) {
    if (this.pending || !this.state.legal.includes(action)) return toast(_("That move is not possible now."));
    if (this.send({ type: "action", move: this.state.move, action })) {
      this.pending = true;
      this.banner(_("You: {action}…", { action: actionLabel(this.choiceOf(action)) }));
      this.renderAll();
    }
  }

  /** A table waiting for people: nothing is dealt yet (the deal waits for every person's part). */
  renderWaiting() {
    const box = clear(this.decisionEl);
    const waiting = this.info.seats.filter((s) => s.kind === "human" && !s.name).map((s) => _("seat {seat}", { seat: s.seat }));
    const invites = JSON.parse(localStorage.getItem(`piepmatz:invites:${this.id}`) || "null");
    box.append(h("h2", {}, _("Waiting for {seats} to join", { seats: waiting.join(", ") })),
      invites ? inviteButtons(invites) : h("p", {}, _("The game starts when every person's seat is taken.")));
    if (this.info.commitment) {
      box.append(h("p", { class: "muted", id: "commitment", title: this.info.commitment }, _("The server's part of the deal is sealed: {commitment}", { commitment: `${this.info.commitment.slice(0, 16)}…` })));
    }
  }

  renderDecision(model) {
    const state = this.state;
    const box = clear(this.decisionEl);
    if (state.result) {
      box.append(drawScores(model, state.result), h("div", { class: "buttons" }, 
        this.seat !== null ? h("button", { type: "button", class: "primary", id: "play-again", onclick: () => this.playAgain() }, _("Play again")) : null,
        h("a", { class: "button", href: `/replay/${this.id}` }, _("Replay this game")),
        h("a", { class: "button", href: "/" }, _("Lobby"))));
      return;
    }
    if (this.info.status === "waiting") {
      this.renderWaiting();
      return;
    }
    const legal = this.legal();
    if (!legal.length) {
      const p = state.view.current_player;
      box.append(h("p", { class: "waiting" }, this.pending ? _("Sending your move…")
        : phaseWords(state.view.phase, seatName(model, p))));
      // The last hand (E3): your choice stays yours until everybody has chosen.
      if (state.view.own_kept?.length) box.append(h("p", { class: "cards" }, _("You keep:"), " ", state.view.own_kept.map((c) => bird(c))));
      return;
    }
    let options = legal;
    const choosing = state.view.phase === "play" && !this.selected && !this.showAll;
    if (state.view.phase === "play" && this.selected) {
      options = this.choices().filter((c) => c.kind === "play" && c.cards[0] === this.selected).map((c) => c.action);
    }
    if (choosing) options = [];
    const previewBox = h("div", { class: "preview", id: "preview", "aria-live": "polite" },
      this.previews.size ? "" : _("Working out what each move would do…"));
    const show = (action) => {
      const p = this.previews.get(action);
      clear(previewBox).append(h("b", {}, actionLabel(this.choiceOf(action))),
        p ? h("ul", {}, h("li", {}, p.headline), p.steps.map((s) => h("li", {}, s))) : null);
    };
    box.append(...[
      h("h2", {}, _("Your move")),
      h("p", { class: "prompt" }, prompt(state.view.phase) || ""),
      this.hintBox(),
      h("ol", { class: "options", "aria-label": _("your legal moves") }, options.map((action, i) => {
        const p = this.previews.get(action);
        return h("li", {}, h("button", {
          type: "button", class: "option", dataset: { action },
          "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
          onclick: () => this.act(action), onfocus: () => show(action), onmouseenter: () => show(action),
        }, h("span", { class: "key", "aria-hidden": "true" }, i < 9 ? String(i + 1) : ""),
        h("span", { class: "what" }, actionLabel(this.choiceOf(action))),
        p ? h("span", { class: "headline" }, p.headline) : null));
      })),
      state.view.phase === "play" && (this.selected || !this.showAll) ? h("button", { type: "button", class: "link", id: "show-all",
        onclick: () => { this.selected = null; this.showAll = true; this.renderAll(); } }, _("List every move")) : null,
      choosing ? null : previewBox,
    ].filter(Boolean));
    // The first move's steps until another is pointed at.
    if (options.length && this.previews.size) show(options[0]);
  }

  /** Keys: 1–9 choose a listed move; Escape clears the selected card. */
  key(event) {
    if (event.target.closest?.("input, textarea")) return;
    if (event.key === "Escape" && this.selected) {
      this.selected = null;
      this.renderAll();
      return;
    }
    if ((event.key === "h" || event.key === "H") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      this.askHint();
      return;
    }
    if (/^[1-9]$/.test(event.key)) {
      const buttons = this.decisionEl.querySelectorAll("button.option");
      const button = buttons[Number(event.key) - 1];
      if (button) button.click();
    }
  }

  async playAgain() {
    const seats = this.info.seats;
    const name = seats[this.seat]?.name || savedName() || _("You");
    try {
      const humans = seats.filter((s) => s.kind === "human");
      const made = humans.length === 1
        ? await api("POST", "/api/quick", { name, players: seats.length, bot: seats.find((s) => s.kind !== "human").kind, rules: this.info.rules, hints: !!seats[this.seat]?.hints, deal_part: dealPart() })
        : await api("POST", "/api/tables", { seats: seats.map((s) => s.kind), rules: this.info.rules, name, seat: this.seat, hints: !!seats[this.seat]?.hints, deal_part: dealPart() });
      rememberTable(made);
      this.closing = true;
      this.ws.close();
      const link = new URL(made.link);
      location.assign(link.pathname + link.search + link.hash);
    } catch (error) {
      toast(_("Could not open a new table: {reason}", { reason: error.message }));
    }
  }
}

/** What the seat to play is doing, as a sentence (each one whole, for the translations). */
function phaseWords(phase, name) {
  const words = {
    play: _("{name} is choosing a bird to play."),
    collect: _("{name} may add a bird to the collection."),
    crow: _("{name} is choosing the crow's victim."),
    draw: _("{name} is drawing."),
    "last hand": _("{name} is choosing the last hand."),
  }[phase] || _("{name} is to play.");
  return words.replace("{name}", name);
}

/** Why the server refused, in the page's language: by the error's code; an illegal move's
reason comes from the server already in this connection's language. */
function refusal(message) {
  const words = {
    stale: _("the game has moved on: the page catches up"),
    not_your_turn: _("it is not your decision"),
    not_playing: _("the game is not being played now"),
    storage: _("the move could not be stored; try again"),
    spectator: _("a spectator only watches"),
    bad_token: _("this link is no seat's or spectator's at this table"),
    not_joined: _("join the table (choose a name) first"),
    no_table: _("there is no such table"),
    too_long: _("that message is too long"),
    hints_off: _("hints are off at this table: not every person allowed them"),
    hint_busy: _("your hint is being worked out: wait for it"),
    hint_failed: _("no hint could be found this time; try again"),
  }[message.code];
  return words || message.message;
}

/** Keep the invite links of a table this browser opened, for its waiting screen. */
export function rememberTable(made) {
  localStorage.setItem(`piepmatz:seat:${made.table}`, JSON.stringify({ seat: made.seat, token: made.token }));
  localStorage.setItem(`piepmatz:invites:${made.table}`, JSON.stringify({ invites: made.invites, spectate: made.spectate }));
}

export function inviteButtons(made) {
  return h("div", { class: "invites" },
    h("p", {}, _("Send each friend the link of their seat; whoever has a seat's link plays that seat.")),
    h("ul", {}, made.invites.map((invite) => h("li", {},
      h("button", { type: "button", class: "copy", dataset: { link: invite.link }, onclick: () => copyText(invite.link, _("seat {seat}'s invite link", { seat: invite.seat })) },
        _("Copy invite link for seat {seat}", { seat: invite.seat })))),
    h("li", {}, h("button", { type: "button", class: "copy", dataset: { link: made.spectate }, onclick: () => copyText(made.spectate, _("the spectator link")) }, _("Copy spectator link")))));
}

function signed(x) {
  return `${x >= 0 ? "+" : "−"}${number(Math.abs(x), 1)}`;
}

function percent(x) {
  return `${number(Math.round(100 * x))} %`;
}

/** A number written the way the page's language writes it (decimal comma in Czech and German). */
function number(x, digits = 0) {
  return x.toLocaleString(language(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
