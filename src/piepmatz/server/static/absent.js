// The table page's parts for people who are away, resign or abort (docs/protocol.md, "Paces,
// absent players, resign and abort"): the notice and button that take a seat back from its
// stand-in bot, the Resign and Abort buttons (each asked first), and how a game ended. Each
// draws from the page's store and acts through the page's connection.
import { botLevel } from "./cards.js";
import { clear, h } from "./dom.js";
import { _ } from "./i18n.js";
import { endingWords } from "./tablewords.js";

/** How the game ended (from the last `state`, else the `table` message), or null. */
export function ending(page) {
  return page.store.state?.ending || page.store.info?.ending || null;
}

/** Why the stand-in plays this tab's person's seat in a game going on (`time`, `away`: they
may take it back; `resigned`: to the end), or null when the person plays it. */
export function standingIn(page) {
  const seat = page.store.seat;
  const absent = seat === null ? null : page.store.info.seats[seat]?.absent;
  return absent && !ending(page) && page.store.info.status === "playing" ? absent : null;
}

/** In place of the decision: why a bot plays for this person, and the way back. */
export function renderStoodIn(page) {
  const info = page.store.info;
  const absent = info.seats[page.store.seat].absent;
  if (absent === "resigned") {
    clear(page.decisionEl).append(h("p", { class: "waiting", role: "status" },
      _("You resigned: the {bot} bot plays your seat to the end.", { bot: botLevel(info.stand_in || "medium") })));
    return;
  }
  clear(page.decisionEl).append(h("div", { class: "stood-in", role: "status" },
    h("h2", {}, absent === "time" ? _("Your time ran out") : _("You were away too long")),
    h("p", {}, _("The {bot} bot plays for you until you take your seat back.", { bot: botLevel(info.stand_in || "medium") })),
    h("button", { type: "button", class: "primary", id: "take-back", onclick: () => page.send({ type: "back" }) }, _("Take my seat back"))));
}

/** Resign and abort, under the decision: for the people at a game still going on. Each is
asked first (neither can be taken back), with the safe answer focused. */
export function renderSeatControls(page) {
  const box = clear(page.controlsEl);
  const { info, seat } = page.store;
  if (ending(page) || info.status === "over") return;
  const mine = seat === null ? null : info.seats[seat];
  const asked = info.abort || [];
  if (info.abortable) {
    if (asked.length) {
      box.append(h("p", { id: "abort-asked", role: "status" }, _("Asked to abort the game: {names}. It is aborted once every person at the table asks.", {
        names: asked.map((p) => page.nameOf(p)).join(", "),
      })));
    }
    if (mine && mine.absent !== "resigned" && !asked.includes(seat)) {
      box.append(confirmed(page, "abort", {
        label: _("Abort the game"),
        title: _("In the first round a game may be aborted: it then ends with no winner."),
        question: _("Abort this game?"),
        what: _("Once every person at the table asks, it ends with no winner. Asking cannot be taken back."),
        yes: _("Yes, abort"),
      }));
    }
  }
  if (!mine || info.status !== "playing" || mine.absent === "resigned") return;
  const ends = info.resign !== "play_on" && info.players === 2;
  box.append(confirmed(page, "resign", {
    label: _("Resign"),
    question: _("Resign this game?"),
    what: ends ? _("The game ends at once and {name} wins.", { name: info.seats.filter((s) => s.seat !== seat).map((s) => page.nameOf(s.seat)).join(", ") })
      : _("The {bot} bot plays your seat to the end; you cannot take it back.", { bot: botLevel(info.stand_in || "medium") }),
    yes: _("Yes, resign"),
  }));
}

/** The button that sends `type` (`#type`), or, once pressed, its question: `#type-yes` sends
it, `#type-no` (focused, so that Enter pressed once more sends nothing) or Escape goes back. */
function confirmed(page, type, words) {
  if (page.store.confirming !== type) {
    return h("button", { type: "button", id: type, title: words.title, onclick: () => {
      page.store.confirming = type;
      page.render();
      document.getElementById(`${type}-no`)?.focus();
    } }, words.label);
  }
  const cancel = () => {
    page.store.confirming = null;
    page.render();
    document.getElementById(type)?.focus();
  };
  return h("div", { class: "confirm", role: "group", "aria-labelledby": `${type}-question`, onkeydown: (event) => {
    if (event.key !== "Escape") return;
    event.stopPropagation(); // the table's Escape (put a chosen card back) is not meant
    cancel();
  } },
    h("p", { id: `${type}-question` }, h("b", {}, words.question), " ", words.what),
    h("button", { type: "button", class: "danger", id: `${type}-yes`, onclick: () => {
      page.store.confirming = null;
      page.send({ type });
      page.render();
    } }, words.yes),
    h("button", { type: "button", id: `${type}-no`, onclick: cancel }, _("No, play on")));
}

/** How the game ended, for the score sheet's place: who resigned and who won, or that it was
aborted; what the stand-ins played for whom. Null while the game goes on. */
export function endingBox(page) {
  const found = ending(page);
  if (!found) return null;
  const [how, ...notes] = endingWords(found, (p) => page.nameOf(p), page.store.seat);
  return h("div", { class: "ending", id: "ending", role: "status" },
    // A heading: the focus comes here when the game ends without a score sheet.
    h("h2", { class: "how", id: "ending-title", tabindex: -1 }, how), notes.map((line) => h("p", {}, line)));
}
