// The page's router: one HTML page shows the lobby, a table, a replay or the rules by address.
import { main, h, clear } from "./dom.js";
import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showReplay } from "./replay.js";
import { showRules } from "./rules.js";

const path = location.pathname;
let match;
try {
  if ((match = path.match(/^\/play\/([\w-]+)$/))) await showTable(match[1]);
  else if ((match = path.match(/^\/replay\/([\w-]+)$/))) await showReplay(match[1]);
  else if (path === "/rules") await showRules(new URLSearchParams(location.search).get("rules") || "standard");
  else await showLobby();
} catch (error) {
  clear(main()).append(h("p", { class: "problem", role: "alert" }, String(error.message || error)));
}
