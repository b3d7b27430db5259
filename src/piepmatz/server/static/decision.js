// The seat's side of the table page: the hand, the decision with its options, previews and
// hint, and the waiting screen. Each draws from the page's state and acts through the page.
import { actionCards, actionLabel, bird, birdLabel, botLevel, cardName, miniBird } from "./cards.js";
import { clear, h, ruleLink, toast } from "./dom.js";
import { _ } from "./i18n.js";
import { drawScores, seatName } from "./board.js";
import { inviteButtons } from "./invites.js";
import { ending, endingBox } from "./absent.js";
import { hintText, phaseWords, prompt, promptRule } from "./tablewords.js";

/** A table waiting for people: nothing is dealt yet (the deal waits for every person's part). */
export function renderWaiting(page) {
  const box = clear(page.decisionEl);
  const info = page.store.info;
  const free = info.seats.filter((s) => s.kind === "human" && !s.name).map((s) => s.seat);
  const waiting = free.map((seat) => _("seat {number}", { number: seat + 1 }));
  const invites = JSON.parse(localStorage.getItem(`piepmatz:invites:${page.id}`) || "null");
  // A seat a bot took has no invite to send any more.
  const open = invites && { ...invites, invites: invites.invites.filter((invite) => free.includes(invite.seat)) };
  box.append(h("h2", {}, _("Waiting for {seats} to join", { seats: waiting.join(", ") })),
    open ? inviteButtons(open) : h("p", {}, _("The game starts when every person's seat is taken.")));
  // Someone who does not come need not hold the game up: a seated person may give their seat
  // to the table's stand-in bot (a rated table's seats are people's).
  if (page.store.seat !== null && !info.rated) {
    const bot = info.stand_in || "medium";
    box.append(h("div", { class: "buttons", id: "seat-bots" }, free.map((seat) => h("button", {
      type: "button", dataset: { seat: String(seat) },
      onclick: () => page.send({ type: "seat_bot", seat, bot }),
    }, _("Let the {bot} bot play seat {number}", { bot: botLevel(bot), number: seat + 1 })))));
  }
  if (page.store.info.commitment) {
    box.append(h("p", { class: "muted", id: "commitment", title: page.store.info.commitment }, _("The server's part of the deal is sealed: {commitment}", { commitment: `${page.store.info.commitment.slice(0, 16)}…` })));
  }
}

export function renderHand(page) {
  clear(page.handEl);
  // A spectator has no hand and no move of their own: the regions say what they hold.
  page.handEl.hidden = page.store.seat === null;
  page.decisionEl.setAttribute("aria-label", page.store.seat === null ? _("whose move it is") : _("your move"));
  const hand = page.store.state.view.hand;
  if (page.store.seat === null || (page.store.state.result && !hand.length)) return;
  const choices = page.choices();
  // A list, so that a screen reader tells how many cards and which one of them is read.
  page.handEl.append(h("h2", {}, _("Your hand")), h("div", { class: "cards hand", role: "list" }, hand.map((code) => {
    const usable = choices.some((c) => c.cards.includes(code) && c.kind !== "keep");
    return h("span", { role: "listitem" }, h("button", {
      type: "button",
      class: `hand-card${page.store.selected === code ? " selected" : ""}${usable ? " usable" : ""}`,
      "aria-pressed": page.store.selected === code ? "true" : "false",
      "aria-label": usable ? cardName(code) : _("{bird} (not playable now)", { bird: cardName(code) }),
      dataset: { card: code },
      onclick: () => clickHand(page, code),
    }, bird(code, { "aria-hidden": "true", role: null })));
  })));
}

/** A click on a hand card: select it to play, collect it, or say why it cannot be used now. */
function clickHand(page, code) {
  const legal = page.legal();
  const phase = page.store.state.view.phase;
  if (page.store.pending) return toast(_("Your move is on its way."));
  if (!legal.length) {
    const p = page.store.state.view.current_player;
    return toast(page.store.state.result ? _("The game is over.") : _("It is not your turn: waiting for {name}.", { name: seatName(page.model(), p) }));
  }
  if (phase === "play") {
    if (!page.choices().some((c) => c.kind === "play" && c.cards[0] === code)) return toast(_("{bird} cannot be played now.", { bird: birdLabel(code) }));
    page.store.selected = page.store.selected === code ? null : code;
    page.render();
    // The card's perches are now the decision's listed moves: the first one takes the focus
    // (on a phone the decision is then in view, above the hand).
    const target = page.decisionEl.querySelector("button.option");
    if (target && page.store.selected) target.focus();
    return;
  }
  const collect = page.choices().find((c) => c.kind === "collect" && c.cards[0] === code);
  if (collect) return page.act(collect.action);
  const what = prompt(phase) || _("wait");
  return toast(_("{bird} cannot be used now: {what}", { bird: birdLabel(code), what }));
}

export function renderDecision(page, model) {
  const state = page.store.state;
  const box = clear(page.decisionEl);
  if (state.result || ending(page)) {
    // How it ended (a resignation, an abort, the moves stand-ins made), then the score sheet
    // of a game that was played to its end.
    // Another person asked to play again: the button joins them, at the same seat.
    const rematch = page.store.info.rematch;
    const offered = rematch && page.store.seat !== null && rematch.by !== page.store.seat;
    box.append(h("div", {}, endingBox(page), state.result ? drawScores(model, state.result, page.store.info.rules, state.explained) : null,
      offered ? h("p", { id: "rematch-offer" }, _("{name} wants to play again.", { name: seatName(model, rematch.by) })) : null),
      h("div", { class: "buttons" },
      page.store.seat !== null ? h("button", { type: "button", class: "primary", id: "play-again", onclick: () => page.playAgain() }, offered ? _("Join them") : _("Play again")) : null,
      h("a", { class: "button", href: `/replay/${page.id}` }, _("Replay this game")),
      h("a", { class: "button", href: "/" }, _("Lobby"))));
    return;
  }
  if (page.store.info.status === "waiting") {
    renderWaiting(page);
    return;
  }
  const legal = page.legal();
  if (!legal.length) {
    const p = state.view.current_player;
    box.append(h("p", { class: "waiting", id: "status-line" }, page.store.pending ? _("Sending your move…")
      : page.tellingWords() || phaseWords(state.view.phase, seatName(model, p))));
    // The last hand (E3): your choice stays yours until everybody has chosen.
    if (state.view.own_kept?.length) box.append(h("p", { class: "cards" }, _("You keep:"), " ", state.view.own_kept.map((c) => bird(c))));
    return;
  }
  let options = legal;
  const choosing = state.view.phase === "play" && !page.store.selected && !page.store.showAll;
  if (state.view.phase === "play" && page.store.selected) {
    options = page.choices().filter((c) => c.kind === "play" && c.cards[0] === page.store.selected).map((c) => c.action);
  }
  if (choosing) options = [];
  const previewBox = h("div", { class: "preview", id: "preview", "aria-live": "polite" },
    page.store.previews.size ? "" : _("Working out what each move would do…"));
  const display = state.view.display;
  const show = (action) => {
    const p = page.store.previews.get(action);
    clear(previewBox).append(h("b", {}, actionLabel(page.choiceOf(action), display)),
      p ? h("ul", {}, h("li", {}, p.headline), p.steps.map((s) => h("li", {}, s))) : null);
  };
  const rule = promptRule(state.view.phase);
  box.append(...[
    h("h2", {}, _("Your move")),
    h("p", { class: "prompt" }, prompt(state.view.phase) || "", rule ? [" ", ruleLink(page.store.info.rules, rule, _("The rule"))] : null),
    hintBox(page),
    h("ol", { class: "options", "aria-label": _("your legal moves") }, options.map((action, i) => {
      const p = page.store.previews.get(action);
      const choice = page.choiceOf(action);
      // Keys: the option's number, then Enter (a list of more than 9 takes two digits).
      return h("li", {}, h("button", {
        type: "button", class: "option", dataset: { action, key: String(i + 1) },
        "aria-keyshortcuts": options.length < 10 ? String(i + 1) : null,
        onclick: () => page.act(action), onfocus: () => show(action), onmouseenter: () => show(action),
      }, h("span", { class: "key", "aria-hidden": "true" }, String(i + 1)),
      h("span", { class: "tiles", "aria-hidden": "true" }, actionCards(choice, display).map((code) => miniBird(code, { role: null, "aria-label": null }))),
      h("span", { class: "what" }, actionLabel(choice, display)),
      p ? h("span", { class: "headline" }, p.headline) : null));
    })),
    state.view.phase === "play" && (page.store.selected || !page.store.showAll) ? h("button", { type: "button", class: "link", id: "show-all",
      onclick: () => {
        page.store.selected = null;
        page.store.showAll = true;
        page.render();
        // The button is gone: the first of the moves it listed takes the focus.
        page.decisionEl.querySelector("button.option")?.focus();
      } }, _("List every move")) : null,
    // A page whose moves have no previews (the guided first game) shows no box waiting for them.
    choosing || page.previewing === false ? null : previewBox,
  ].filter(Boolean));
  // The first move's steps until another is pointed at.
  if (options.length && page.store.previews.size) show(options[0]);
}

/** What has the focus in the game's part of ``page`` (its ``.play-col``: the table's, the
lesson's), to find it again once redrawn; null where it is elsewhere (the chat, the header). */
export function focusKey(page) {
  const el = document.activeElement;
  const col = page.pageEl.querySelector(".play-col");
  if (!el || el === page.decisionEl || !col.contains(el)) return null;
  return { tag: el.tagName, id: el.id, action: el.dataset.action, card: el.dataset.card, cls: el.classList[0] };
}

/** The focus back on what had it (``key``: focusKey's) once redrawn, else on the decision: a
redraw never drops it to the page. */
export function restoreFocus(page, key) {
  if (!key) return;
  const col = page.pageEl.querySelector(".play-col");
  if (col.contains(document.activeElement)) return; // not redrawn
  const same = [...col.querySelectorAll(key.tag)].find((el) => el.id === key.id && el.dataset.action === key.action
    && el.dataset.card === key.card && el.classList[0] === key.cls && !el.disabled);
  if (same) same.focus({ preventScroll: true });
  else page.decisionEl.focus(); // the move is made: the next decision (in view) has the focus
}

/** The digits typed for a listed move, and when the last one was. */
const typed = { digits: "", at: 0 };
/** Milliseconds within which a second digit makes a two-digit number (12 of 12 moves). */
const NEXT_DIGIT = 1500;

/** The choice a click on a thing of the board means (``where``: perch, display, deck or
collection; ``key``: its number or card), with the hand card ``selected``; or undefined. */
export function choiceAt(choices, selected, where, key) {
  const wanted = {
    perch: (c) => c.kind === "play" && c.cards[0] === selected && c.number === key,
    display: (c) => c.kind === "draw display" && c.number === key,
    deck: (c) => c.kind === "draw deck",
    collection: (c) => c.kind === "crow" && c.cards[0] === key,
  }[where];
  return wanted && choices.find(wanted);
}

/** A digit typed: the listed move of that number takes the focus, which shows its preview;
Enter (the focused button's own key) then plays it. A digit soon after another one makes a
two-digit number when the list is that long. Returns whether a move was chosen. */
export function optionKey(page, digit) {
  const buttons = page.decisionEl.querySelectorAll("button.option:not(:disabled)");
  const now = Date.now();
  let number = now - typed.at < NEXT_DIGIT ? typed.digits + digit : digit;
  if (Number(number) > buttons.length) number = digit;
  Object.assign(typed, { digits: number, at: now });
  const button = buttons[Number(number) - 1];
  if (!button) return false;
  button.focus();
  return true;
}

function hintBox(page) {
  if (!page.store.info?.hints || page.store.seat === null) return null;
  const button = h("button", { type: "button", id: "hint", "aria-keyshortcuts": "h", disabled: page.store.hinting || page.store.pending || !!page.store.hint,
    // The key is told where there is a keyboard (it is the button's aria-keyshortcuts too).
    onclick: () => page.askHint() }, page.store.hinting ? hintText().thinking : h("span", {}, hintText().button, h("span", { class: "shortcut", "aria-hidden": "true" }, " ", _("({key})", { key: "H" }))));
  const shown = page.store.hint ? h("div", { id: "hint-box", class: "hint-box", role: "status" },
    h("b", {}, hintText().title(page.store.hint.bot, actionLabel(page.choiceOf(page.store.hint.action), page.store.state.view.display))),
    h("p", {}, hintText().estimate(page.store.hint))) : null;
  return h("div", { class: "hint-area" }, button, shown);
}

/** Ring what the hint suggests: its listed move or perch, and the hand cards it names; each
one's name says so too (the ring is seen only). */
export function markHint(page) {
  if (!page.store.hint) return;
  const action = page.store.hint.action;
  const hinted = [...document.querySelectorAll(`[data-action="${CSS.escape(action)}"]`)];
  const { kind, cards } = page.choiceOf(action) || { kind: null, cards: [] };
  if (["play", "collect", "keep"].includes(kind)) {
    for (const code of cards) hinted.push(...page.handEl.querySelectorAll(`[data-card="${CSS.escape(code)}"]`));
  }
  for (const el of hinted) {
    el.classList.add("hinted");
    if (el.getAttribute("aria-hidden") === "true") continue; // a card's face inside its button
    // A listed move is named by its words (the key and the small cards are hidden from it).
    const name = el.getAttribute("aria-label") || [...el.childNodes]
      .filter((part) => part.getAttribute?.("aria-hidden") !== "true").map((part) => part.textContent).join(" ").trim();
    el.setAttribute("aria-label", _("{name}, the hint's suggestion", { name }));
  }
}
