// The page's router: one HTML page shows the lobby, a table, a replay, the rules, "My games" or
// the guided first game by address, in the language chosen (?lang=, this browser's earlier
// choice, else the browser's languages).
import { h, clear, playerKey } from "./dom.js";
import { _, language, languages, onLanguageChange, startLanguage, switchLanguage } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showReplay } from "./replay.js";
import { showRules } from "./rules.js";
import { showGames } from "./games.js";
import { showTutorial } from "./tutorial.js";
import { missingTable, problem } from "./deadends.js";
import { accountHeader, showAccount, showPlayer } from "./account.js";

let leave = null; // what the page shown needs to stop (a socket, a timer) before it is redrawn

async function route() {
  if (leave) leave();
  leave = null;
  const path = location.pathname;
  let match;
  try {
    if ((match = path.match(/^\/play\/([\w-]+)$/))) leave = await showTable(match[1]);
    else if ((match = path.match(/^\/replay\/([\w-]+)$/))) leave = await showReplay(match[1]);
    else if (path === "/rules") leave = await showRules(new URLSearchParams(location.search).get("rules") || "standard");
    else if (path === "/games") leave = await showGames();
    else if (path === "/tutorial") leave = await showTutorial();
    else if (path === "/account") leave = await showAccount();
    else if ((match = path.match(/^\/players\/([\w-]+)$/))) leave = await showPlayer(match[1]);
    else leave = await showLobby();
  } catch (error) {
    if (error.status === 404 && match && !path.startsWith("/players/")) missingTable(match[1]);
    else problem(error);
  }
}

/** The header's texts and the language switch (the page's settings). */
function header() {
  document.querySelector(".brand").setAttribute("aria-label", _("Piepmatz lobby"));
  document.querySelector(".top nav").setAttribute("aria-label", _("pages"));
  document.getElementById("lobby-link").textContent = _("Lobby");
  document.getElementById("rules-link").textContent = _("Rules");
  document.getElementById("guide-link").textContent = _("How to play");
  document.getElementById("games-link").textContent = _("My games");
  // A button per language, each in its own language: a choice made on purpose (a select
  // switched the page on its first arrow key), the focus kept on it once the page is redrawn.
  const choose = async (code) => {
    const params = new URLSearchParams(location.search);
    if (params.has("lang")) {
      params.set("lang", code);
      history.replaceState(null, "", `${location.pathname}?${params}${location.hash}`);
    }
    await switchLanguage(code);
    document.querySelector(`#language button[lang="${code}"]`)?.focus();
  };
  const group = h("div", { id: "language", class: "languages", role: "group", "aria-label": _("Language") },
    Object.entries(languages()).map(([code, name], i) => [i ? h("span", { class: "sep", "aria-hidden": "true" }, "·") : null,
      h("button", { type: "button", class: "link", lang: code, "aria-current": code === language() ? "true" : null,
        onclick: () => (code === language() ? null : choose(code)) }, name)]));
  clear(document.getElementById("settings")).append(group);
  // Who this browser is: asked of the server, so it comes a moment later.
  accountHeader().then((box) => document.getElementById("settings").prepend(box));
}

playerKey(); // this browser's player, made on its first visit
await startLanguage();
header();
onLanguageChange(async () => {
  header();
  await route();
});
// An invite link opened in a tab showing its table (only the #fragment differs, so the browser
// does not load the page again) is followed too.
window.addEventListener("hashchange", () => {
  if (location.pathname.startsWith("/play/") && new URLSearchParams(location.hash.slice(1)).has("token")) route();
});
await route();
