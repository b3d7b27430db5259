// The rules page: the shipped rules text in the page's language, marked for the preset (and
// flags) in play, each rule with an anchor (#rule-T3.1) that the game's pages link to.
import { api, clear, h, main, rulesHref, setRulesLink } from "./dom.js";
import { _, presetNames, serverLanguage } from "./i18n.js";
import { presetWords } from "./tablewords.js";
import { bird, birdLabel, feeder } from "./cards.js";
import { drawScores } from "./board.js";

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

/** A feeder card of the guide's pictures by what it is (the server names a seed by its eggs). */
const SEED = (eggs) => `S${eggs}a`;
const PEST = { crow: "CRa", squirrel: "SQa" };

/** One of the guide's pictures, drawn with the game's own cards: a perch's row, the seed column,
or the scoring example (each player's birds and seeds, the sheet, every number explained). */
function picture(p) {
  if (p.kind === "row") {
    return h("figure", { class: "guide-picture guide-row" },
      h("div", { class: "row-cards" }, h("span", { class: "at-perch" }, bird(p.perch)), h("span", { class: "ground" }, p.ground.map((c) => bird(c)))),
      h("figcaption", {}, _("At the perch: {bird}. On the ground: {birds}.", { bird: birdLabel(p.perch), birds: p.ground.map(birdLabel).join(", ") })));
  }
  if (p.kind === "column") {
    return h("figure", { class: "guide-picture guide-column" },
      h("ol", { class: "slots", "aria-label": _("seed column, position 1 next to the feeder") }, p.seeds.map((s, i) => h("li", { class: "slot" },
        h("span", { class: "pos", "aria-hidden": "true" }, String(i + 1)), feeder(SEED(s.eggs)), s.pest ? feeder(PEST[s.pest]) : null))),
      h("figcaption", {}, _("The seed column: position 1 is next to the feeder.")));
  }
  const model = { seats: p.players.map((player) => ({ kind: "human", name: player.name })), me: null };
  return h("figure", { class: "guide-picture guide-score", id: "guide-score" },
    h("div", { class: "score-players" }, p.players.map((player) => h("section", { class: "score-player", "aria-label": player.name },
      h("h3", {}, player.name),
      h("div", { class: "cards" }, player.birds.map((c) => bird(c))),
      h("div", { class: "cards" }, player.seeds.map((eggs) => feeder(SEED(eggs)))),
      h("ul", { class: "explained-lines" }, player.explained.map((line) => h("li", {}, line)))))),
    drawScores(model, p.sheet, "standard"),
    h("figcaption", {}, p.verdict));
}

/** The player's guide (GET /api/guide): its text, and its pictures drawn with the game's cards;
its links go to the rules below (#rule-T2.1). */
async function playersGuide() {
  const guide = await api("GET", `/api/guide${serverLanguage() ? `?lang=${serverLanguage()}` : ""}`);
  const article = h("article", { class: "guide panel", id: "guide", lang: guide.lang },
    h("p", { class: "lesson-offer" }, h("a", { class: "button primary", href: "/tutorial" }, _("Learn by playing: the guided first game"))));
  for (const block of guide.blocks) {
    if (block.picture) {
      article.append(picture(block.picture));
      continue;
    }
    // The server's HTML is made from the guide shipped in the package (no user data in it).
    const part = h("div", { class: "guide-text" });
    part.innerHTML = block.html;
    article.append(part);
  }
  return article;
}

export async function showRules(spec) {
  document.title = _("Piepmatz — rules ({rules})", { rules: presetWords(spec) });
  setRulesLink(spec);
  const [rules, guide] = await Promise.all([
    api("GET", `/api/rules?spec=${encodeURIComponent(spec)}${serverLanguage() ? `&lang=${serverLanguage()}` : ""}`), playersGuide()]);
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
  // A wide table of the guide scrolls in its box too.
  guide.querySelectorAll(".guide-text table").forEach((table, i) => {
    // The corner above the row names heads nothing: a plain cell, not an empty header.
    for (const corner of table.querySelectorAll("thead th:empty")) corner.replaceWith(h("td"));
    const box = h("div", { class: "table-scroll", role: "region", tabindex: 0, "aria-label": _("Table {number} of the guide", { number: i + 1 }) });
    table.replaceWith(box);
    box.append(table);
  });
  clear(main()).append(guide, h("p", {}, _("Other rule set:"), " ",
    presetNames().map((name, i) => [i ? " · " : null, h("a", { href: rulesHref(name) }, presetWords(name))])), body);
  // A link to one rule: shown at the top of the window, and marked (again when the address
  // names another rule of the page).
  const mark = () => {
    for (const el of body.querySelectorAll(".target")) el.classList.remove("target");
    const target = location.hash.startsWith("#rule-") ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (!target) return;
    target.classList.add("target");
    target.scrollIntoView({ block: "start" });
    // The focus goes there too: Tab and a screen reader carry on from the rule, not the top.
    target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
  };
  mark();
  window.addEventListener("hashchange", mark);
  return () => window.removeEventListener("hashchange", mark);
}
