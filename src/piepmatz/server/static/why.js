// "Why?" in the log: every line of a game's log opens (a click, or Enter on it) to the rule that
// made it happen, in words, with a link to that rule on the rules page. The rules in words come
// from the server once per rule set and language (GET /api/why), when a line is first opened.
import { api, h, ruleLink } from "./dom.js";
import { _, language } from "./i18n.js";

const tables = new Map();

/** The rule behind each kind of log entry under ``spec``, in the page's language (asked once). */
function whyTable(spec) {
  const key = `${language()} ${spec}`;
  if (!tables.has(key)) {
    const asked = api("GET", `/api/why?spec=${encodeURIComponent(spec)}`);
    // A failed answer is asked again the next time a line is opened.
    asked.catch(() => tables.delete(key));
    tables.set(key, asked);
  }
  return tables.get(key);
}

/** A line of the log: the sentence (text, or a sentence's nodes) that opens to its rule.
``event`` is the log entry's event (its kind; the end's reason); without one (a player's
stand-in or return) the line is only its sentence. */
export function logLine(line, event, spec) {
  const kind = event?.kind;
  if (!kind) return h("li", {}, line);
  const answer = h("div", { class: "why-answer" });
  const item = h("details", { class: "why" }, h("summary", { title: _("Why? Open this line for the rule behind it.") }, line), answer);
  item.addEventListener("toggle", async () => {
    if (!item.open || answer.childNodes.length) return;
    try {
      const table = await whyTable(spec);
      const found = kind === "end_triggered" ? table.end[event.reason] : table.kinds[kind];
      if (answer.childNodes.length) return;
      answer.append(...(found ? [h("b", {}, _("Why?")), " ", found.text, " ", ruleLink(spec, found.rule, _("The rule"))]
        : [_("This line follows from the lines before it.")]));
    } catch (error) {
      answer.append(_("The rule could not be loaded: {reason}", { reason: error.message }));
    }
  });
  return h("li", { class: `ev-${kind}` }, item);
}

/** The log as one Tab stop (a roving tabindex): Tab reaches its last line, ↑/↓ move between
lines, Home/End go to the first and the last, Enter or Space opens a line's "Why?". Hundreds of
lines were as many Tab stops. Lines added later take the Tab stop while the focus is elsewhere. */
export function rovingLog(list) {
  // A line's focusable part: its summary where it opens, else the line itself.
  const stop = (li) => li.querySelector(":scope > details > summary") || li;
  const lines = () => [...list.children].filter((li) => !li.hidden);
  const settle = () => {
    const all = lines();
    const current = all.find((li) => stop(li).contains(document.activeElement));
    for (const li of all) stop(li).tabIndex = -1;
    const keep = current || all.at(-1);
    if (keep) stop(keep).tabIndex = 0;
  };
  new MutationObserver(settle).observe(list, { childList: true });
  list.addEventListener("keydown", (event) => {
    const all = lines();
    const at = all.findIndex((li) => li.contains(event.target));
    if (at < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: all.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const line = all[Math.max(0, Math.min(all.length - 1, to))];
    for (const li of all) stop(li).tabIndex = -1;
    stop(line).tabIndex = 0;
    stop(line).focus();
  });
  settle();
  return list;
}
