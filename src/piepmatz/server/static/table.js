// The table page: one WebSocket per seat (docs/protocol.md). The server decides everything;
// this page shows the seat's view, offers exactly the legal actions it was sent, with the
// server's preview of each, and tells the events step by step.
import { api, clear, dealPart, h, main, playerKey, rulesHref, savedName, setRulesLink, toast } from "./dom.js";
import { actionLabel, botLevel, cardName } from "./cards.js";
import { _, language, ngettext, serverLanguage } from "./i18n.js";
import { drawBoard, fromView, seatName, sentence } from "./board.js";
import { PACE, STEPS, highlight, sleep } from "./animate.js";
import { Clock, paceWords } from "./clock.js";
import { endingBox, ending, renderSeatControls, renderStoodIn, standingIn } from "./absent.js";
import { choiceAt, focusKey, markHint, optionKey, renderDecision, renderHand, restoreFocus, renderWaiting } from "./decision.js";
import { rememberTable, showJoin } from "./invites.js";
import { badLink, missingTable, noSeat } from "./deadends.js";
import { announcement, endingWords, hintText, presetShort, prompt, refusal, winnersWords } from "./tablewords.js";
import { logLine, rovingLog } from "./why.js";
import { banned, peoplePanel } from "./moderation.js";

/** Show the table; returns what stops it (its socket and keys), for a redraw in a new language. */
export async function showTable(tableId) {
  const page = new TablePage(tableId);
  await page.start();
  return () => page.leave();
}

class TablePage {
  constructor(id) {
    this.id = id;
    /** Everything the page shows comes from here; render() draws it, and only it. */
    this.store = {
      info: null, // the table message: who sits where
      seat: null, // this tab's seat, null for a spectator
      token: null,
      state: null, // the last state message shown
      queue: [], // state messages still to tell, in order
      busy: false, // a move is being told step by step
      pending: false, // this seat's move is on its way
      previews: new Map(), // what each legal action would do, by action
      selected: null, // the hand card chosen to play
      showAll: false, // every legal move listed, not only the chosen card's
      hint: null, // the hint message for the decision shown
      hinting: false, // a hint is being worked out
      byKey: false, // the token is this browser's player key (a player's own table, no link)
      welcomed: false, // the server took the token
      clock: null, // the shown state's clocks, counted down (clock.js)
      confirming: null, // "resign" or "abort": its button was pressed, and "Resign this game?" is asked
      connected: false, // the server answered this connection's hello (welcome)
      fromLink: false, // the token came with the link, and the server has not taken it yet
      remembered: null, // the seat this browser kept for this table before ({seat, token})
      telling: null, // the seat whose move is being told step by step
    };
    // The connection, and the page's parts (made by layout()).
    this.ws = null;
    this.retries = 0;
    this.closing = false;
    this.keys = new AbortController();
    this.ticker = null; // counts the running clock down once a second
    this.pageEl = this.headEl = this.bannerEl = this.decisionEl = this.controlsEl = this.handEl = this.boardEl = null;
    this.logEl = this.chatEl = this.lostEl = this.sayEl = this.peopleEl = null;
  }

  leave() {
    this.closing = true;
    this.keys.abort();
    clearInterval(this.ticker);
    if (this.ws) this.ws.close();
  }

  async start() {
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.has("token")) {
      // The link carries the token once: it leaves the address bar at once, so that history,
      // bookmarks and a copied address do not hand the seat on. The tab keeps it aside until
      // the server takes it: a mistyped link never replaces the seat the browser remembers.
      sessionStorage.setItem(this.linkKey(), JSON.stringify({ seat: hash.has("seat") ? Number(hash.get("seat")) : null, token: hash.get("token") }));
      history.replaceState(null, "", location.pathname + location.search);
    }
    const key = `piepmatz:seat:${this.id}`;
    const link = JSON.parse(sessionStorage.getItem(this.linkKey()) || "null");
    const stored = JSON.parse(sessionStorage.getItem(key) || localStorage.getItem(key) || "null");
    this.store.remembered = stored?.token ? stored : null;
    try {
      this.store.info = await api("GET", `/api/tables/${this.id}`);
    } catch (error) {
      if (error.status === 404) return missingTable(this.id);
      throw error;
    }
    setRulesLink(this.store.info.rules);
    if (link?.token) {
      Object.assign(this.store, { token: link.token, seat: link.seat, fromLink: true });
    } else if (stored?.token) {
      Object.assign(this.store, { token: stored.token, seat: stored.seat ?? null });
    } else {
      // No link: at a player's own table the browser's player key is the seat's credential.
      // The page is drawn once the server says which seat it is (else it says why not).
      this.byKey();
      return;
    }
    // An invite to a seat still free: the join form (the server checks the token then).
    const { seat, info } = this.store;
    if (this.store.fromLink && seat !== null && !info.seats[seat]?.name && info.status === "waiting") return showJoin(this, this.store.token);
    this.layout();
    this.connect();
  }

  /** Where the tab keeps a link's token until the server takes it. */
  linkKey() {
    return `piepmatz:link:${this.id}`;
  }

  /** Say hello with this browser's player key: the credential at the player's own tables. */
  byKey() {
    Object.assign(this.store, { token: playerKey(), seat: null, byKey: true, fromLink: false });
    this.connect();
  }

  /** The link's token is no seat's here (deadends.js). */
  linkRefused() {
    return badLink(this);
  }

  /** No seat here for this person: the join form where one is free, else why not. */
  seatless() {
    return noSeat(this);
  }

  /** The server did not take the token: say why and offer the way on (deadends.js); a seat the
  browser remembered that is no longer one is forgotten, and the player key tried instead. */
  refused() {
    this.closing = true;
    this.ws.close();
    if (this.store.byKey) return this.seatless();
    if (this.store.fromLink) {
      sessionStorage.removeItem(this.linkKey());
      return this.linkRefused();
    }
    const key = `piepmatz:seat:${this.id}`;
    sessionStorage.removeItem(key);
    localStorage.removeItem(key);
    this.store.remembered = null;
    this.closing = false;
    this.byKey();
  }

  /** This tab's seat (or spectator place) and token, for a reload. */
  keep() {
    sessionStorage.setItem(`piepmatz:seat:${this.id}`, JSON.stringify({ seat: this.store.seat, token: this.store.token }));
  }

  /** A taken seat is remembered by the browser too, for a later visit from the lobby. */
  remember() {
    if (this.store.byKey) return; // the player key is kept already
    this.keep();
    if (this.store.seat !== null) localStorage.setItem(`piepmatz:seat:${this.id}`, JSON.stringify({ seat: this.store.seat, token: this.store.token }));
  }

  layout() {
    this.boardEl = h("div", { id: "board", class: "board-wrap" });
    this.handEl = h("section", { id: "hand", class: "hand-area", "aria-label": _("your hand") });
    // The decision takes the focus when it is this seat's and back after every move (tabindex
    // -1: by script only). What happens is read out by the announcer below, not by the parts
    // that are redrawn (a redraw would be read out again).
    this.decisionEl = h("section", { id: "decision", class: "decision", tabindex: -1, "aria-label": _("your move") });
    this.lostEl = h("p", { id: "connection-lost", class: "connection-lost", role: "status", hidden: true });
    this.controlsEl = h("div", { id: "seat-controls", class: "buttons seat-controls" });
    this.bannerEl = h("p", { id: "banner", class: "banner" }, "");
    // One polite live region reads out each told step, every other player's move and this
    // seat's decision with its options, in the page's language (screen readers only).
    this.sayEl = h("div", { id: "announcer", class: "visually-hidden", role: "log", "aria-live": "polite", "aria-label": _("announcements") });
    this.headEl = h("div", { class: "table-head" });
    // The log and the chat scroll inside their boxes: the chat's box takes the focus, so that a
    // keyboard scrolls it; the log is one Tab stop whose lines the arrows move between (why.js).
    // The log is read on demand (the announcer reads each step as told).
    this.logEl = rovingLog(h("ol", {}));
    this.chatEl = h("ol", {});
    this.chatOffEl = h("p", { class: "muted", id: "chat-off", hidden: true }, _("The chat is turned off on this server."));
    const logBox = h("div", { id: "log", class: "log", role: "log", "aria-live": "off", "aria-label": _("game log") }, this.logEl);
    this.peopleEl = h("div", { class: "people-wrap" }); // moderation.js: mute, block, report
    const chatBox = h("div", { id: "chat", class: "chat", role: "log", tabindex: 0, "aria-label": _("table chat") }, this.chatEl);
    const chatInput = h("input", { id: "chat-input", maxlength: 500, placeholder: _("Say something to the table"), "aria-label": _("chat message"), autocomplete: "off" });
    const chatForm = this.store.seat === null ? h("p", { class: "muted" }, _("Spectators read the chat."))
      : h("form", { class: "chat-form", onsubmit: (event) => {
        event.preventDefault();
        const text = chatInput.value.trim();
        if (text) this.send({ type: "chat", text });
        chatInput.value = "";
      } }, chatInput, h("button", { type: "submit" }, _("Send")));
    this.pageEl = h("div", { class: "table-page" },
      h("div", { class: "play-col" }, this.headEl, this.bannerEl, this.sayEl, this.lostEl, h("div", { class: "seat-area" }, this.decisionEl, this.handEl), this.boardEl, this.controlsEl),
      h("aside", { class: "side-col" },
        h("section", { class: "panel", id: "log-panel", "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, _("Game log")), logBox),
        h("section", { class: "panel", "aria-labelledby": "chat-title" }, h("h2", { id: "chat-title" }, _("Chat")), chatBox, chatForm,
          this.chatOffEl, this.peopleEl)));
    this.chatParts = [chatBox, chatForm];
    clear(main()).append(this.pageEl);
    document.addEventListener("keydown", (event) => this.key(event), { signal: this.keys.signal });
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  /** The clocks shown count down: each timer's text again, from the shown state's clock. */
  tick() {
    if (!this.store.clock || !this.boardEl) return;
    for (const el of this.boardEl.querySelectorAll("[role=timer]")) {
      const text = this.store.clock.text(Number(el.dataset.seat));
      if (text !== null) el.textContent = text;
    }
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The server tells this connection's events in the page's language.
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${this.id}${serverLanguage() ? `?lang=${serverLanguage()}` : ""}`);
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token: this.store.token }));
    ws.onmessage = (event) => {
      this.retries = 0; // the server answers: the next loss starts the backoff again
      this.receive(JSON.parse(event.data));
    };
    ws.onclose = (event) => {
      if (this.closing || this.ws !== ws) return;
      this.banner(_("Connection lost: reconnecting…"));
      if (this.store.connected) {
        // Shown at once, and nothing may be clicked until the server answers again.
        this.store.connected = false;
        this.render();
      }
      // 1012 (Service Restart): the server is stopping on purpose and another process takes
      // over, so come back within a second, spread out. Otherwise exponential backoff with
      // jitter (0.5 s doubling up to 10 s), so that the pages of a restarted server do not all
      // come back in the same instant.
      const restart = event.code === 1012;
      const delay = restart ? 250 + Math.random() * 750
        : Math.min(10000, 500 * 2 ** this.retries) * (0.5 + Math.random() / 2);
      if (!restart) this.retries += 1;
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
        this.store.seat = message.seat;
        this.store.welcomed = true;
        // A server whose chat is off takes no line and sends none: no box to write in.
        this.store.chat = message.chat !== false;
        // Someone who has sat at a table is not offered the guided first game in the lobby.
        if (message.seat !== null) localStorage.setItem("piepmatz:played", "1");
        this.store.connected = true;
        if (this.store.fromLink) {
          // The server took the link's token: now it is this tab's seat, kept for a reload.
          sessionStorage.removeItem(this.linkKey());
          this.store.fromLink = false;
          this.remember();
        }
        if (!this.pageEl) this.layout(); // said hello with the player key: now the seat is known
        for (const part of this.chatParts) part.hidden = !this.store.chat;
        this.chatOffEl.hidden = this.store.chat;
        this.render();
        this.renderPeople();
        break;
      case "table": {
        const offered = message.rematch && !this.store.info?.rematch && message.rematch.by !== this.store.seat;
        this.store.info = message;
        // Another person asked to play again: said once (the end's button joins them).
        if (offered && this.store.seat !== null) this.say(_("{name} wants to play again.", { name: this.nameOf(message.rematch.by) }));
        this.render();
        this.renderPeople();
        break;
      }
      case "muted":
        // The server sends no more lines of these seats; those shown already are hidden.
        this.store.muted = new Set(message.seats);
        for (const li of this.chatEl.children) li.hidden = this.store.muted.has(Number(li.dataset.seat));
        this.renderPeople();
        break;
      case "state":
        message.receivedAt = Date.now(); // the clocks count down from here
        this.store.queue.push(message);
        this.drain();
        break;
      case "stand_in":
      case "returned": {
        // Who the stand-in plays for comes with the next table message too: shown at once here.
        const seat = this.store.info.seats[message.seat];
        if (seat) seat.absent = message.type === "stand_in" ? message.reason : null;
        const line = announcement({ bot: this.store.info.stand_in, ...message }, this.nameOf(message.seat), message.seat === this.store.seat);
        this.addLog(line, null);
        this.banner(line);
        this.say(line);
        this.render();
        break;
      }
      case "preview":
        if (this.store.state && message.move === this.store.state.move) {
          this.store.previews = new Map(message.previews.map((p) => [p.action, p]));
          this.render();
        }
        break;
      case "chat":
        this.chatEl.append(h("li", { dataset: { seat: String(message.seat) }, hidden: this.store.muted?.has(message.seat) }, h("b", {}, `${message.name}: `), message.text));
        this.chatEl.parentElement.scrollTop = this.chatEl.parentElement.scrollHeight;
        break;
      case "hint":
        if (this.store.state && message.move === this.store.state.move) {
          this.store.hint = message;
          this.store.hinting = false;
          this.render();
          // Said once, as it comes (the hint's box is drawn again with every redraw).
          this.say(`${hintText().title(message.bot, actionLabel(this.choiceOf(message.action), this.store.state.view.display))} ${hintText().estimate(message)}`);
        }
        break;
      case "bot_replaced":
        toast(_("{name} ({bot}) could not move: the {fallback} bot played this move for it.", {
          name: this.nameOf(message.seat), bot: botLevel(message.bot), fallback: botLevel(message.fallback),
        }), "info");
        break;
      case "error":
        if (message.code === "bad_token" && !this.store.welcomed) {
          // The token is no seat's here: the page says so and offers the way on.
          this.refused();
          return;
        }
        if (message.code === "banned") {
          // The operator banned this player (the reason is in the message): the server closes
          // the connection, and the page says why instead of knocking again.
          this.leave();
          banned(refusal(message));
          return;
        }
        this.store.pending = false;
        if (message.code.startsWith("hint") || message.code === "hints_off") this.store.hinting = false;
        toast(_("Refused: {reason}", { reason: refusal(message) }));
        if (message.code === "stale") this.send({ type: "sync" });
        this.render();
        break;
      default:
        break;
    }
  }

  /** Show the state messages in order, each one's events step by step. */
  async drain() {
    if (this.store.busy) return;
    this.store.busy = true;
    this.markStatus();
    while (this.store.queue.length) {
      const message = this.store.queue.shift();
      const full = message.events_from === 0;
      if (full) clear(this.logEl);
      const animate = !full && PACE > 0 && this.store.state !== null;
      for (let i = 0; i < message.log.length; i++) {
        const event = message.events[i];
        this.addLog(this.told(message, i), event);
        if (!full) this.say(this.told(message, i));
        if (animate && STEPS.has(event.kind)) {
          this.banner(this.told(message, i));
          // The status line tells whose move is being told, not the decision before it.
          if (event.player !== undefined && event.player !== null) this.tellStatus(event.player);
          highlight(event);
          await sleep(PACE);
        }
      }
      this.store.telling = null;
      if (message.log.length) this.banner(this.told(message, message.log.length - 1));
      if (this.store.state?.move !== message.move) {
        this.store.hint = null;
        this.store.hinting = false;
      }
      this.store.state = message;
      this.store.clock = message.clock ? new Clock(message.clock, message.receivedAt, this.store.info?.pace?.kind) : null;
      this.store.previews = new Map();
      this.store.selected = null;
      this.store.showAll = false;
      this.store.pending = false;
      this.render();
      if (message.legal.length && !standingIn(this) && !ending(this)) this.yourMove();
      // No previews while the stand-in plays this seat: it moves before anyone could read them.
      if (message.legal.length && !standingIn(this)) this.send({ type: "preview", move: message.move });
    }
    this.store.busy = false;
    this.markStatus();
  }

  /** This seat's decision has come: it takes the focus (unless the person is in the chat or the
  header) and is read out with its options. */
  yourMove() {
    if (this.focusFree() && !this.decisionEl.contains(document.activeElement)) this.decisionEl.focus();
    const { view } = this.store.state;
    const choices = this.legal().map((action) => this.choiceOf(action)).filter(Boolean);
    const options = view.phase === "play"
      ? _("Birds you can play: {birds}.", { birds: [...new Set(choices.map((c) => c.cards[0]))].map(cardName).join("; ") })
      : _("Your moves: {moves}.", { moves: choices.map((c, i) => `${i + 1}: ${actionLabel(c, view.display)}`).join("; ") });
    this.say([_("Your move."), prompt(view.phase), options].filter(Boolean).join(" "));
  }

  /** Whether the page may move the focus: not while the person is in the chat or the header. */
  focusFree() {
    const active = document.activeElement;
    return !active || active === document.body || active === main() || this.pageEl.querySelector(".play-col").contains(active);
  }

  /** Say on the page what it shows: the move, and whether it is still telling a move or
  waiting for its own move's answer (aria-busy), for assistive technology and for scripts. */
  markStatus() {
    if (!this.pageEl) return;
    const state = this.store.state;
    this.pageEl.setAttribute("aria-busy", String(this.store.busy || this.store.pending || this.store.queue.length > 0));
    if (!state) return;
    Object.assign(this.pageEl.dataset, {
      move: String(state.move), phase: state.view.phase, over: String(state.result !== null || !!ending(this)), toMove: String(state.legal.length > 0),
    });
  }

  /** Sentence ``i`` of a state message's log, drawn from its parts (board.sentence). */
  told(message, i) {
    return sentence(message.log_parts?.[i], message.log[i], this.store.seat);
  }

  /** While a move is told step by step, the status line says whose it is. */
  tellStatus(p) {
    this.store.telling = p;
    const line = this.decisionEl?.querySelector("#status-line");
    if (line) line.textContent = this.tellingWords();
  }

  /** Whose move is being told, as the status line says it (null when none is). */
  tellingWords() {
    const p = this.store.telling;
    if (p === null) return null;
    return p === this.store.seat ? _("Showing your move step by step…") : _("Showing {name}'s move step by step…", { name: this.nameOf(p) });
  }

  /** A seat by its person's name ("Anna (you)"), or the bot's. */
  nameOf(seat) {
    return seatName({ seats: this.store.info?.seats || [], me: this.store.seat }, seat);
  }

  /** The other people at the table, each with a menu to mute, block or report them
  (moderation.js); drawn when who sits here or what is muted changes, keeping a menu open and
  the focus where they were. */
  renderPeople() {
    if (!this.peopleEl) return;
    const open = [...this.peopleEl.querySelectorAll("details[open]")].map((d) => d.closest("li")?.dataset.seat);
    const focused = this.peopleEl.contains(document.activeElement) ? document.activeElement : null;
    const where = focused && { seat: focused.closest("li")?.dataset.seat, cls: focused.className, id: focused.id };
    clear(this.peopleEl).append(peoplePanel(this) || "");
    for (const seat of open) {
      const details = this.peopleEl.querySelector(`li[data-seat="${seat}"] details`);
      if (details) details.open = true;
    }
    if (where) {
      const again = where.id ? document.getElementById(where.id)
        : this.peopleEl.querySelector(`li[data-seat="${where.seat}"] ${where.cls ? `.${where.cls.split(" ")[0]}` : "summary"}`);
      again?.focus();
    }
  }

  /** A line of the log; a game's event opens to the rule behind it (why.js). */
  addLog(line, event) {
    this.logEl.append(logLine(line, event, this.store.info?.rules || "standard"));
    while (this.logEl.children.length > 400) this.logEl.firstChild.remove();
    this.logEl.parentElement.scrollTop = this.logEl.parentElement.scrollHeight;
  }

  /** Read ``line`` out (text, or a sentence's nodes: a bird by its spoken name) through the
  announcer; the last few lines stay, for a screen reader's review of what was said. */
  say(line) {
    const parts = (Array.isArray(line) ? line : [line]).map((part) => (part instanceof Node ? part.cloneNode(true) : part));
    if (!this.sayEl || !parts.length) return;
    this.sayEl.append(h("p", {}, parts));
    while (this.sayEl.children.length > 20) this.sayEl.firstChild.remove();
  }

  /** The banner: the sentence being told (text, or a sentence's nodes). */
  banner(line) {
    clear(this.bannerEl).append(...(Array.isArray(line) ? line : [line]));
  }

  model() {
    const model = fromView(this.store.state.view, this.store.info.seats, this.store.state);
    model.standIn = this.store.info.stand_in;
    model.over = !!ending(this) || this.store.state.result !== null;
    model.clock = (p) => this.clockTag(p);
    model.lost = this.lost();
    return model;
  }

  /** Seat ``p``'s clock as a timer that tick() counts down, or null where it has none shown. */
  clockTag(p) {
    const clock = this.store.clock;
    const text = clock && !ending(this) ? clock.text(p) : null;
    if (text === null) return null;
    const running = clock.running(p);
    return h("span", { class: `tag clock${running ? " running" : ""}`, role: "timer", dataset: { seat: String(p) },
      "aria-label": running ? _("{name}'s clock, running", { name: this.nameOf(p) }) : _("{name}'s clock", { name: this.nameOf(p) }) },
    text);
  }

  renderHead() {
    const info = this.store.info;
    const parts = [
      // The id is kept here, beside the heading in words: people copy and quote it.
      _("Table {table}", { table: this.id }),
      ngettext("{count} player", "{count} players", info.players),
      presetShort(info.rules),
      this.store.seat === null ? _("spectating") : _("seat {number}", { number: this.store.seat + 1 }),
      this.store.state ? _("turn {turn}", { turn: this.store.state.view.turn }) : null,
      info.pace ? paceWords(info.pace) : null,
      info.spectators ? ngettext("{count} watching", "{count} watching", info.spectators) : null,
    ];
    clear(this.headEl).append(...[
      h("h1", {}, this.title()),
      h("span", { class: "muted" }, " " + parts.filter(Boolean).join(" · ")),
      this.store.seat !== null && info.status !== "over"
        ? h("span", { class: `tag hints-${info.hints ? "on" : "off"}`, id: "hints-tag", title: info.hints ? hintText().onTitle : hintText().offTitle },
          info.hints ? hintText().on : hintText().off)
        : null,
      this.store.state?.view.end_triggered && !this.store.state.result
        ? h("span", { class: "tag last-round", title: _("the end is triggered: play goes on until everybody has had the same number of turns") }, _("Last round"))
        : null,
      info.rated ? h("span", { class: "tag rated", id: "rated-tag", title: _("this game counts for the players' ratings") }, _("Rated")) : null,
      info.rated ? this.ratingsLine() : null,
      h("a", { class: "rules-inline", href: rulesHref(info.rules), target: "_blank", rel: "noopener" }, _("Rules of this game")),
      h("a", { class: "to-log", href: "#log-panel" }, _("Log and chat")),
    ].filter(Boolean));
  }

  /** The page's heading in words: who sits at the table ("Anna, Ben and Bot 3 at the table"),
  the list joined the page language's way. */
  title() {
    const seats = this.store.info.seats;
    const names = seats.map((seat, p) => seatName({ seats }, p));
    return _("{names} at the table", { names: new Intl.ListFormat(language(), { type: "conjunction" }).format(names) });
  }

  /** A rated table's seats with their ratings (asked once; a bot's is fixed), each person's
  linked to their page. */
  ratingsLine() {
    // Asked when the page opens, again once everyone sat down (a seat taken after the page
    // opened has no rating yet) and once the game is over (the server rates it just after
    // storing its end).
    const status = this.store.info.status;
    const over = status === "over";
    if (this.store.ratingsAsked !== status) {
      this.store.ratingsAsked = status;
      setTimeout(() => api("GET", `/api/tables/${this.id}/ratings`).then((answer) => {
        this.store.ratings = answer.seats;
        if (this.headEl) this.renderHead();
      }).catch(() => {}), over ? 1500 : 0);
    }
    if (!this.store.ratings) return null;
    const seats = this.store.ratings.filter((s) => s.rating !== null).map((s) => [
      s.page ? h("a", { href: `/players/${s.page}` }, this.nameOf(s.seat)) : this.nameOf(s.seat), " ", String(s.rating)]);
    return h("span", { class: "muted", id: "seat-ratings" }, " ", _("Ratings:"), " ",
      seats.flatMap((s, i) => (i ? [", ", ...s] : s)));
  }

  /** Draw the page from the store: the one place that does, after every change to it. The
  focus stays on what had it, else (after a move) goes back to the decision. */
  render() {
    if (!this.pageEl) return; // not drawn yet: the server has not said which seat this is
    const focus = focusKey(this);
    this.draw();
    this.markConnection();
    restoreFocus(this, focus);
    this.noteEnd();
  }

  /** The game ended while this page showed it (played out, resigned, aborted): said once, who
  won and the reader's own total and place, and the result's heading takes the focus. A game
  that was over when the page opened (or redrawn in another language) is not said again. */
  noteEnd() {
    const found = ending(this);
    const result = this.store.state?.result || null;
    if (!found && !result) {
      if (this.store.state && this.store.info.status === "playing") this.store.watching = true;
      return;
    }
    // A game played out is said with its score sheet, which comes with the last state.
    if (!this.store.watching || this.store.endSaid || (found?.how === "played_out" && !result)) return;
    this.store.endSaid = true;
    // A resignation or an abort: its sentence says who won, if anyone.
    const lines = found && found.how !== "played_out" ? endingWords(found, (p) => this.nameOf(p), this.store.seat).slice(0, 1) : [];
    if (result) {
      lines.push(`${winnersWords(result.winners.map((p) => this.nameOf(p)))}.`);
      const mine = result.players.find((r) => r.player === this.store.seat);
      // The place in E5's order, the total then the birds, as the server's scoring ranks them.
      const place = mine && 1 + result.players.filter((r) => r.total > mine.total || (r.total === mine.total && r.birds > mine.birds)).length;
      if (mine) lines.push(_("Your total: {total} points, place {place} of {count}.", { total: mine.total, place, count: result.players.length }));
    }
    this.say([_("The game is over."), ...lines].join(" "));
    if (this.focusFree()) (this.pageEl.querySelector("#result-title") || this.pageEl.querySelector("#ending-title"))?.focus();
  }

  draw() {
    this.renderHead();
    renderSeatControls(this);
    if (!this.store.state) {
      if (this.store.info.status === "waiting") renderWaiting(this);
      else if (ending(this)) clear(this.decisionEl).append(endingBox(this), h("a", { class: "button", href: "/" }, _("Lobby")));
      return;
    }
    // A tab in the background still says when it is this seat's move, or that a bot plays it.
    const stoodIn = standingIn(this);
    document.title = this.lost() ? _("Not connected — Piepmatz")
      : stoodIn === "time" || stoodIn === "away" ? _("A bot plays for you — Piepmatz")
        : this.store.state.legal.length && !stoodIn && !ending(this) ? _("▶ Your move — Piepmatz") : _("Piepmatz — table {table}", { table: this.id });
    const model = this.model();
    const pick = stoodIn || this.lost() ? () => null : (where, key) => this.pick(where, key);
    clear(this.boardEl).append(drawBoard(model, pick));
    renderHand(this);
    if (stoodIn) renderStoodIn(this);
    else renderDecision(this, model);
    // The decision keeps its height while the game goes on: the board below does not jump.
    this.decisionEl.classList.toggle("steady", !model.over && this.store.info.status === "playing");
    markHint(this);
    this.markStatus();
  }

  /** The connection was lost and is not back yet (the page was drawn from an earlier one). */
  lost() {
    return this.store.welcomed && !this.store.connected;
  }

  /** Disconnected: said on the page, and every control of the game off until the server is
  back (a click could not reach it). */
  markConnection() {
    const lost = this.lost();
    this.pageEl.dataset.connected = String(!lost);
    this.lostEl.hidden = !lost;
    this.lostEl.textContent = lost ? _("Not connected: reconnecting… The table waits until the connection is back.") : "";
    if (!lost) return;
    for (const el of this.pageEl.querySelectorAll(".play-col button, .play-col input, .play-col select, .chat-form input, .chat-form button")) el.disabled = true;
  }

  /** Ask for a hint on this seat's decision (the server refuses when hints are off). */
  askHint() {
    if (standingIn(this)) return;
    if (!this.store.info?.hints || !this.store.state?.legal.length || this.store.pending || this.store.hinting || this.store.hint) return;
    if (this.send({ type: "hint", move: this.store.state.move })) {
      this.store.hinting = true;
      this.render();
    }
  }

  /** The seat's legal actions, none while its move is on its way or a stand-in plays it. */
  legal() {
    return this.store.pending || standingIn(this) ? [] : this.store.state.legal;
  }

  /** The seat's legal actions as fields (kind, cards, number), as the server sends them. */
  choices() {
    return this.store.pending || standingIn(this) ? [] : this.store.state.choices;
  }

  choiceOf(action) {
    return this.store.state?.choices.find((c) => c.action === action);
  }

  choice(action, extra = {}) {
    const preview = this.store.previews.get(action);
    return {
      label: `${actionLabel(this.choiceOf(action), this.store.state?.view.display)}${preview ? `: ${preview.headline}` : ""}`,
      preview: preview?.headline,
      onclick: () => this.act(action),
      data: { action },
      ...extra,
    };
  }

  /** What a click on a thing of the board would do now (see drawBoard), or null. */
  pick(where, key) {
    if (where === "collection" && this.store.state.view.player === null) return null;
    const found = choiceAt(this.choices(), this.store.selected, where, key);
    if (!found) return null;
    return this.choice(found.action, where === "perch" ? { text: _("Play here") } : {});
  }

  act(action) {
    if (this.store.pending || !this.store.state.legal.includes(action)) return toast(_("That move is not possible now."));
    if (this.send({ type: "action", move: this.store.state.move, action })) {
      this.store.pending = true;
      this.banner(_("You: {action}…", { action: actionLabel(this.choiceOf(action), this.store.state?.view.display) }));
      this.render();
    }
  }

  /** Keys: digits choose a listed move (Enter plays it), h asks for a hint, Escape puts the
  chosen card back. */
  key(event) {
    if (event.target.closest?.("input, textarea")) return;
    if (event.key === "Escape" && this.store.selected) {
      this.store.selected = null;
      this.render();
      return;
    }
    if ((event.key === "h" || event.key === "H") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      this.askHint();
      return;
    }
    // A digit chooses a listed move (its preview shows), Enter plays it: never at once.
    if (/^[0-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey && optionKey(this, event.key)) event.preventDefault();
  }

  async playAgain() {
    const info = this.store.info;
    const seats = info.seats;
    const name = seats[this.store.seat]?.name || savedName() || _("You");
    const hints = !!seats[this.store.seat]?.hints;
    try {
      const humans = seats.filter((s) => s.kind === "human");
      const again = info.rematch && localStorage.getItem(`piepmatz:seat:${info.rematch.table}`);
      if (again) {
        // Seated there already (asked in another tab, or came back here): that seat.
        const { seat, token } = JSON.parse(again);
        this.leaveFor(`/play/${info.rematch.table}#seat=${seat}&token=${token}`);
        return;
      }
      // Alone against bots: a quick game the same; with people, the table they all play
      // again at (the first to ask opens it, with the same seats; the others are told).
      const made = humans.length === 1
        ? await api("POST", "/api/quick", { rules: info.rules, name, hints, deal_part: dealPart(), player: playerKey(), pace: info.pace?.name, players: seats.length, bot: seats.find((s) => s.kind !== "human").kind })
        : await api("POST", `/api/tables/${this.id}/rematch`, { token: this.store.token, hints, deal_part: dealPart(), player: playerKey() });
      rememberTable(made);
      const link = new URL(made.link);
      this.leaveFor(link.pathname + link.search + link.hash);
    } catch (error) {
      toast(_("Could not open a new table: {reason}", { reason: error.message }));
    }
  }

  /** Go to another page, this table's connection closed on purpose (not to be reopened). */
  leaveFor(path) {
    this.closing = true;
    this.ws.close();
    location.assign(path);
  }
}
