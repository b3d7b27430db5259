// The rules page: the shipped rules text in the page's language, marked for the preset (and
// flags) in play, each rule with an anchor (#rule-T3.1) that the game's pages link to.
import { api, clear, h, main, rulesHref, setRulesLink } from "./dom.js";
import { _, presetNames, serverLanguage } from "./i18n.js";
import { presetWords } from "./lobby.js";

/** A rule's id where its text starts: "T3.1 Hand.", "E4. Scoring.", "T1. Play a card", "C. Cards". */
const RULE_ID = /^([CSTEV](?:\d+(?:\.\d+)?)?)[.\s]/;
/** A step of a rule (T2.1's "d. Pest effects"), named after the rule it belongs to. */
const STEP_ID = /^([a-z])\./;

/** Give each rule of the rules text its anchor, ``rule-`` and its id, from the id the text
starts the rule with (the headings and the bold rule names). */
function anchor(article) {
  let rule = null;
  for (const el of article.querySelectorAll("h1, h2, h3, h4, strong")) {
    const text = el.textContent.trim();
    const found = text.match(RULE_ID);
    const step = !found && rule && el.tagName === "STRONG" && text.match(STEP_ID);
    const id = found ? found[1] : step ? `${rule}${step[1]}` : null;
    if (!id || article.querySelector(`[id="rule-${id}"]`)) continue;
    if (found) rule = id;
    // The anchor is the rule's block (its list item or paragraph), so that it is shown whole;
    // a second rule in the same paragraph (C6 after C5) has its name as its anchor.
    const block = el.tagName === "STRONG" ? el.closest("li, p") || el : el;
    (block.id ? el : block).id = `rule-${id}`;
  }
}

export async function showRules(spec) {
  document.title = _("Piepmatz — rules ({rules})", { rules: spec });
  setRulesLink(spec);
  const rules = await api("GET", `/api/rules?spec=${encodeURIComponent(spec)}${serverLanguage() ? `&lang=${serverLanguage()}` : ""}`);
  const body = h("article", { class: "rules panel", lang: rules.lang });
  // The server's HTML is made from the rules text shipped in the package (no user data in it).
  body.innerHTML = rules.html;
  anchor(body);
  // A wide table scrolls sideways inside its box on a phone: the box takes the focus, so that a
  // keyboard scrolls it too, and says which table it is.
  body.querySelectorAll("table").forEach((table, i) => {
    const box = h("div", { class: "table-scroll", role: "region", tabindex: 0, "aria-label": _("Table {number} of the rules", { number: i + 1 }) });
    table.replaceWith(box);
    box.append(table);
  });
  clear(main()).append(h("p", {}, _("Other rule set:"), " ",
    presetNames().map((name, i) => [i ? " · " : null, h("a", { href: rulesHref(name) }, presetWords(name))])), body);
  // A link to one rule: shown at the top of the window, and marked (again when the address
  // names another rule of the page).
  const mark = () => {
    for (const el of body.querySelectorAll(".target")) el.classList.remove("target");
    const target = location.hash.startsWith("#rule-") ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (!target) return;
    target.classList.add("target");
    target.scrollIntoView({ block: "start" });
  };
  mark();
  window.addEventListener("hashchange", mark);
  return () => window.removeEventListener("hashchange", mark);
}
