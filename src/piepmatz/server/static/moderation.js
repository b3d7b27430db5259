// Moderation among strangers (docs/browser.md, "Mute, block, report"): at a table, a small menu
// per other person's seat mutes their chat (a WebSocket message: the server stops sending their
// lines to this player, on every device), blocks them (never paired again, muted at every
// table) or reports them; the table may be reported as a whole. "My games" lists the blocks,
// each removable. The page never sees another player's id: seats are named by number.
import { api, bearer, clear, deadEnd, h, toast, whoAmI } from "./dom.js";
import { _, reportReasons } from "./i18n.js";

/** The words of moderation, in one place (a function: the page's language may change). */
const words = () => ({
  people: _("People at this table"),
  menu: (name) => _("Options for {name}", { name }),
  mute: (name) => _("Mute {name}'s chat", { name }),
  unmute: (name) => _("Hear {name}'s chat again", { name }),
  muted: _("muted"),
  block: (name) => _("Block {name}", { name }),
  blockThis: _("Block this player"),
  blockNote: _("You will not be paired with them again, and you will not see their chat at any table."),
  blocked: (name) => _("{name} is blocked: you will not be paired with them again, and you will not see their chat. Your blocks are listed on My games.", { name }),
  report: (name) => _("Report {name}", { name }),
  reportTable: _("Report this table"),
  reportTitle: (name) => (name ? _("Report {name} to the server's operator", { name }) : _("Report this table to the server's operator")),
  reason: _("Why"),
  note: _("In your own words (optional)"),
  send: _("Send report"),
  cancel: _("Cancel"),
  sent: _("Report sent. The operator will look at this table's game and chat; nothing changes at the table."),
  refused: (reason) => _("Refused: {reason}", { reason }),
  blocks: _("Players you blocked"),
  noBlocks: _("You have blocked nobody."),
  unblock: (name) => _("Unblock {name}", { name }),
  unblocked: (name) => _("{name} is no longer blocked.", { name }),
  since: (date) => _("since {date}", { date }),
  someone: _("someone"),
});

/** A report's reason in words (the list itself comes from the server). */
function reasonWords(reason) {
  return {
    abuse: _("Insults or harassment in the chat"),
    cheating: _("Cheating: playing together against others, or with help"),
    stalling: _("Holding the game up on purpose"),
    spam: _("Spam or advertising"),
    other: _("Something else"),
  }[reason] || reason;
}


/** The panel under the chat: the other people at the table, each with a menu (a disclosure:
keyboard reachable, named by the person), and the report form when one is open. ``page`` is
the table page (its store: info, seat, muted; its send()). */
export function peoplePanel(page) {
  const { info, seat: mine } = page.store;
  if (!info || mine === null) return null;
  const w = words();
  const muted = page.store.muted || new Set();
  const others = info.seats
    .map((s, seat) => ({ ...s, seat }))
    .filter((s) => s.seat !== mine && s.kind === "human" && s.name);
  const items = others.map((s) => {
    const name = page.nameOf(s.seat);
    const isMuted = muted.has(s.seat);
    return h("li", { dataset: { seat: String(s.seat) } },
      h("details", { class: "seat-menu" },
        h("summary", { "aria-label": w.menu(name) }, name, isMuted ? h("span", { class: "tag muted-tag" }, " ", w.muted) : null),
        h("div", { class: "buttons", role: "group", "aria-label": w.menu(name) },
          h("button", { type: "button", class: "mute", onclick: () => page.send({ type: "mute", seat: s.seat, muted: !isMuted }) },
            isMuted ? w.unmute(name) : w.mute(name)),
          h("button", { type: "button", class: "block", title: w.blockNote, onclick: () => block(page, s.seat, name) }, w.block(name)),
          h("button", { type: "button", class: "report", onclick: () => openReport(page, s.seat) }, w.report(name)))));
  });
  return h("div", { class: "people", id: "people" },
    others.length ? h("h3", { id: "people-title" }, w.people) : null,
    others.length ? h("ul", { class: "people-list", "aria-labelledby": "people-title" }, items) : null,
    page.store.reporting !== undefined ? reportForm(page) : h("button", { type: "button", id: "report-table", onclick: () => openReport(page, null) }, w.reportTable));
}

function openReport(page, seat) {
  page.store.reporting = seat;
  page.renderPeople();
  document.getElementById("report-reason")?.focus();
}

/** The report form: a reason from the server's list and the person's own words. */
function reportForm(page) {
  const w = words();
  const seat = page.store.reporting;
  const name = seat === null ? null : page.nameOf(seat);
  const reason = h("select", { id: "report-reason", required: true },
    reportReasons().map((r) => h("option", { value: r }, reasonWords(r))));
  const note = h("textarea", { id: "report-note", maxlength: 500, rows: 3 });
  const close = () => {
    delete page.store.reporting;
    page.renderPeople();
  };
  return h("form", { class: "report-form", id: "report-form", "aria-labelledby": "report-title", onsubmit: async (event) => {
    event.preventDefault();
    const body = { reason: reason.value, note: note.value.trim() || undefined, seat: seat ?? undefined };
    try {
      await api("POST", `/api/tables/${page.id}/reports`, body, bearer());
    } catch (error) {
      toast(w.refused(error.message));
      return;
    }
    toast(w.sent, "info");
    close();
  } },
  h("h3", { id: "report-title" }, w.reportTitle(name)),
  h("label", { for: "report-reason" }, w.reason), reason,
  h("label", { for: "report-note" }, w.note), note,
  h("div", { class: "buttons" },
    h("button", { type: "submit", class: "primary" }, w.send),
    h("button", { type: "button", onclick: close }, w.cancel)));
}

/** Block the player at ``seat``; their chat is muted here at once (the server mutes them at
every other table by itself). */
async function block(page, seat, name) {
  try {
    await api("POST", `/api/tables/${page.id}/blocks`, { seat }, bearer());
  } catch (error) {
    toast(words().refused(error.message));
    return;
  }
  page.send({ type: "mute", seat, muted: true });
  toast(words().blocked(name), "info");
}

/** A player's page: the button that blocks them (``pageId``: the page's id, ``username``: theirs,
if they have an account); none on your own page. */
export async function blockPlayerButton(pageId, username) {
  const me = await whoAmI();
  if (me?.page === pageId) return null;
  const w = words();
  const label = username ? w.block(username) : w.blockThis;
  return h("button", { type: "button", id: "block-player", title: w.blockNote, onclick: async () => {
    try {
      await api("POST", "/api/blocks", { page: pageId }, bearer());
    } catch (error) {
      toast(w.refused(error.message));
      return;
    }
    toast(w.blocked(username || w.someone), "info");
  } }, label);
}

/** "My games": the players this browser's player blocked, each with its Unblock button. */
export async function blocksSection() {
  const w = words();
  const listEl = h("div", {});
  const section = h("section", { class: "panel", id: "blocks", "aria-labelledby": "blocks-title" },
    h("h2", { id: "blocks-title" }, w.blocks), listEl);
  const load = async () => {
    let blocks;
    try {
      ({ blocks } = await api("GET", "/api/blocks", undefined, bearer()));
    } catch (error) {
      clear(listEl).append(h("p", { class: "muted" }, w.refused(error.message)));
      return;
    }
    clear(listEl).append(blocks.length
      ? h("ul", { class: "games" }, blocks.map((b) => {
        const name = b.name || w.someone;
        return h("li", {},
          h("span", {}, h("b", {}, name), " ", h("span", { class: "muted" }, w.since(new Date(b.since).toLocaleDateString()))),
          h("button", { type: "button", onclick: async () => {
            try {
              await api("DELETE", `/api/blocks/${b.ref}`, undefined, bearer());
            } catch (error) {
              toast(w.refused(error.message));
              return;
            }
            toast(w.unblocked(name), "info");
            await load();
          } }, w.unblock(name)));
      }))
      : h("p", { class: "muted" }, w.noBlocks));
  };
  await load();
  return section;
}

/** The operator banned this player: the table gives way to why, in the server's words. */
export function banned(reason) {
  document.title = _("Banned — Piepmatz");
  deadEnd(_("You cannot play on this server"), [reason], [{ text: _("Lobby"), href: `/${location.search}`, id: "to-lobby" }]);
}

