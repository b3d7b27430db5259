// Invite links: kept by the browser that opened a table (for its waiting screen), offered as
// buttons that copy each seat's link, and the form that takes the seat a link is for.
import { api, clear, copyText, dealPart, h, main, playerKey, savedName, saveName, toast } from "./dom.js";
import { _ } from "./i18n.js";
import { seatWho } from "./board.js";
import { paceWords } from "./clock.js";
import { hintText, presetWords } from "./tablewords.js";

/** Keep the invite links of a table this browser opened, for its waiting screen. */
export function rememberTable(made) {
  localStorage.setItem(`piepmatz:seat:${made.table}`, JSON.stringify({ seat: made.seat, token: made.token }));
  // A seat taken at a table someone else opened (playing again) comes with no invites.
  if (made.invites) localStorage.setItem(`piepmatz:invites:${made.table}`, JSON.stringify({ invites: made.invites, spectate: made.spectate }));
}

export function inviteButtons(made) {
  return h("div", { class: "invites" },
    h("p", {}, _("Send each friend the link of their seat; whoever has a seat's link plays that seat.")),
    h("ul", {}, made.invites.map((invite) => h("li", {},
      h("button", { type: "button", class: "copy", dataset: { link: invite.link }, onclick: () => copyText(invite.link, _("seat {number}'s invite link", { number: invite.seat + 1 })) },
        _("Copy invite link for seat {number}", { number: invite.seat + 1 })))),
    h("li", {}, h("button", { type: "button", class: "copy", dataset: { link: made.spectate }, onclick: () => copyText(made.spectate, _("the spectator link")) }, _("Copy spectator link")))));
}

/** Choose a display name and take the invited seat (or a free seat of a public table). */
export function showJoin(page, token) {
  const seats = page.store.info.seats;
  const input = h("input", { id: "join-name", name: "name", required: true, maxlength: 32, value: savedName(), autocomplete: "nickname" });
  // Hints need every person's consent: only worth asking while nobody seated has refused.
  const othersAllow = page.store.info.seats.filter((s) => s.kind === "human" && s.name).every((s) => s.hints);
  const allowHints = h("input", { type: "checkbox", id: "join-hints" });
  const form = h("form", { class: "panel join", "aria-label": _("join the table"), onsubmit: async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return toast(_("Choose a display name first."));
    try {
      const joined = await api("POST", `/api/tables/${page.id}/join`, { name, token, hints: allowHints.checked, deal_part: dealPart(), player: playerKey() });
      saveName(name);
      sessionStorage.removeItem(page.linkKey());
      Object.assign(page.store, { seat: joined.seat, token: joined.token, fromLink: false, byKey: false });
      page.remember();
      history.replaceState(null, "", `/play/${page.id}${location.search}`);
      page.store.info = await api("GET", `/api/tables/${page.id}`);
      page.layout();
      page.connect();
    } catch (error) {
      if (error.status === 403 && token) {
        // The link is no seat's at this table.
        sessionStorage.removeItem(page.linkKey());
        return page.linkRefused();
      }
      if (error.status === 409) {
        // Taken meanwhile, or the game is over: say so, with the way on.
        page.store.info = await api("GET", `/api/tables/${page.id}`);
        return page.seatless();
      }
      toast(_("Could not join: {reason}", { reason: error.message }));
    }
  } },
  h("h1", {}, token ? _("You are invited to seat {number} at table {table}", { number: page.store.seat + 1, table: page.id }) : _("Table {table}", { table: page.id })),
  h("p", {}, _("Rules: {rules}. Seats: {seats}", { rules: presetWords(page.store.info.rules), seats: seats.map((s) => seatWho(seats, s.seat)).join(", ") })),
  // The pace before sitting down: a live clock asks for the time to play it through.
  h("p", { id: "join-pace" }, _("Pace: {pace}", { pace: paceWords(page.store.info.pace) })),
  h("label", { for: "join-name" }, _("Your display name")), input,
  othersAllow ? h("label", { class: "check" }, allowHints, h("span", {}, hintText().allow)) : h("p", { id: "hints-refused" }, hintText().refused),
  othersAllow ? h("p", { class: "muted" }, hintText().allowNote) : null,
  h("button", { type: "submit", class: "primary" }, token ? _("Take my seat") : _("Join")));
  clear(main()).append(form);
  input.focus();
}
