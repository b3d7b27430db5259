// Accounts and players' pages: the header's "Sign in" / "Create account" or the username with
// "Sign out"; the account page (/account: create one, sign in, change the password, delete the
// account); a player's page (/players/PAGE: the rating and its rated games). The server's rules
// are in docs/online.md ("Accounts", "Ratings"); this file only asks and shows.
import { api, bearer, clear, h, main, toast, whoAmI } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { blockPlayerButton } from "./moderation.js";

const PLAYER = "piepmatz.player";

/** Who this browser's key is (GET /api/account); null when the server does not answer. */
/** The rating as shown, with "provisional" while it is. */
export function ratingWords(rating, provisional) {
  return provisional ? _("{rating} (provisional)", { rating }) : String(rating);
}

/** The header's account links: the username with "Sign out", else "Sign in". */
export async function accountHeader() {
  const box = h("span", { class: "account", id: "account-box" });
  const me = await whoAmI();
  if (!me) return box;
  // The rating beside the name, once a rated game gave one.
  const rating = me.rated_games ? h("span", { class: "tag", id: "header-rating", title: _("your rating") }, String(me.rating)) : null;
  if (me.username) {
    box.append(
      h("a", { href: "/account", id: "account-link" }, me.username),
      " ",
      rating || "",
      " ",
      h("button", { type: "button", class: "link", id: "sign-out", onclick: signOut }, _("Sign out")));
  } else if (me.accounts === "passwords") {
    box.append(h("a", { href: "/account", id: "account-link" }, _("Sign in")), " ", rating || "");
  } else {
    box.append(h("a", { href: "/account", id: "account-link" }, _("Your rating")), " ", rating || "");
  }
  return box;
}

/** Sign out: the server forgets this key, the browser too (the next visit makes a new one). */
async function signOut() {
  try {
    await api("POST", "/api/account/sign-out", undefined, bearer());
  } catch (error) {
    toast(_("Could not sign out: {reason}", { reason: error.message }));
    return;
  }
  localStorage.removeItem(PLAYER);
  location.assign("/");
}

function field(id, label, attrs) {
  return [h("label", { for: id }, label), h("input", { id, name: id, required: true, ...attrs })];
}

/** A form that sends what ``send`` makes of its inputs, and says what went wrong; ``note`` is
said above the inputs. */
function form(id, title, inputs, button, send, note = null) {
  const el = h("form", { class: "panel", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    note ? h("p", { class: "muted" }, note) : null,
    h("div", { class: "fields" }, inputs),
    h("button", { type: "submit", class: "primary" }, button));
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(el).entries());
    try {
      await send(values);
    } catch (error) {
      toast(error.message);
    }
  });
  return el;
}

const USERNAME = { autocomplete: "username", minlength: 3, maxlength: 24, pattern: "[A-Za-z0-9][A-Za-z0-9_.\\-]{2,23}" };
const PASSWORD = { type: "password", minlength: 8, maxlength: 256 };

/** The account page: create an account or sign in; or change the password and delete it. */
export async function showAccount() {
  document.title = _("Your account — Piepmatz");
  const me = await api("GET", "/api/account", undefined, bearer());
  const parts = [h("h1", {}, _("Your account"))];
  parts.push(h("p", { class: "muted", id: "my-rating" },
    _("Your rating: {rating}", { rating: ratingWords(me.rating, me.provisional) }), " · ",
    me.page ? h("a", { href: `/players/${me.page}`, id: "my-page" }, _("your player page")) : _("no rated games yet")));
  if (me.accounts !== "passwords" && !me.username) {
    parts.push(h("p", {}, _("This server has no accounts: this browser's key is who you are.")));
  } else if (!me.username) {
    parts.push(h("p", { class: "muted" }, _("Without an account, this browser is who you are. With one, you can sign in on another browser as the same player; your games so far stay yours.")));
    parts.push(form("sign-up", _("Create account"),
      [field("new-username", _("Username"), { ...USERNAME }), field("new-password", _("Password (at least 8 characters)"), { ...PASSWORD, autocomplete: "new-password" })],
      _("Create account"), async (v) => {
        await api("POST", "/api/account", { username: v["new-username"], password: v["new-password"] }, bearer());
        location.reload();
      }));
    parts.push(form("sign-in", _("Sign in"),
      [field("username", _("Username"), { ...USERNAME }), field("password", _("Password"), { ...PASSWORD, autocomplete: "current-password" })],
      _("Sign in"), async (v) => {
        const signed = await api("POST", "/api/account/sign-in", { username: v.username, password: v.password });
        localStorage.setItem(PLAYER, signed.key);
        location.assign("/account");
      }));
  } else {
    parts.push(h("p", {}, _("Signed in as {username}.", { username: me.username })));
    parts.push(form("change-password", _("Change password"),
      [field("old-password", _("Current password"), { ...PASSWORD, autocomplete: "current-password" }), field("next-password", _("New password"), { ...PASSWORD, autocomplete: "new-password" })],
      _("Change password"), async (v) => {
        await api("POST", "/api/account/password", { old: v["old-password"], new: v["next-password"] }, bearer());
        toast(_("Your password is changed."), "info");
      }));
  }
  parts.push(form("delete-account", _("Delete account"),
    [me.username ? field("delete-password", _("Current password"), { ...PASSWORD, autocomplete: "current-password" }) : null],
    _("Delete account"), async (v) => {
      if (!window.confirm(_("Delete your account and your data for good?"))) return;
      await api("DELETE", "/api/account", me.username ? { password: v["delete-password"] } : {}, bearer());
      localStorage.removeItem(PLAYER);
      location.assign("/");
    }, _("Your account, rating and blocks are deleted; your games stay, under the name “Former player”.")));
  clear(main()).append(h("div", { class: "account-page" }, parts));
}

/** A small chart of the ratings after each rated game, oldest first (an SVG line). */
function chart(points) {
  if (points.length < 2) return null;
  const low = Math.min(...points), high = Math.max(...points);
  const span = high - low || 1;
  const width = 240, height = 60;
  const xy = points.map((p, i) => `${(i * width / (points.length - 1)).toFixed(1)},${(height - (p - low) * height / span).toFixed(1)}`);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `-2 -2 ${width + 4} ${height + 4}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", _("Rating from {first} to {last}", { first: points[0], last: points[points.length - 1] }));
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", xy.join(" "));
  svg.append(line);
  return svg;
}

/** A player's page: their name, rating and rated games with the rating after each. */
export async function showPlayer(page) {
  const player = await api("GET", `/api/players/${encodeURIComponent(page)}`);
  const name = player.username || _("A player without an account");
  document.title = _("{name} — Piepmatz", { name });
  const history = player.history;
  const block = await blockPlayerButton(page, player.username); // moderation.js
  clear(main()).append(h("div", { class: "player-page" },
    h("h1", {}, name),
    block || "",
    h("p", { id: "player-rating" }, _("Rating: {rating}", { rating: ratingWords(player.rating, player.provisional) }),
      " · ", ngettext("{count} rated game", "{count} rated games", player.rated_games)),
    chart(history.map((e) => e.rating).reverse()),
    h("section", { class: "panel", "aria-labelledby": "rated-title" },
      h("h2", { id: "rated-title" }, _("Rated games")),
      history.length
        ? h("ol", { class: "games", id: "rated-games" }, history.map((e) => h("li", {},
          h("span", {}, _("Place {place} of {players}", { place: e.place, players: e.players }), " · ",
            _("rating after: {rating}", { rating: e.rating }), " · ", new Date(e.at).toLocaleDateString()),
          h("a", { class: "button", href: `/replay/${e.table}` }, _("Replay")))))
        : h("p", { class: "muted" }, _("No rated games yet.")))));
}
