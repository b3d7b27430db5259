// Cards drawn with CSS: each species has its colour AND its own code and badge shape, so the
// game reads without colour; value and sex are printed large enough for a phone.
import { h } from "./dom.js";
import { _, birdOf, feederOf, ngettext, speciesName, speciesShort } from "./i18n.js";

// A species' name in the page's language is speciesName(code), from the server (core/cards.py).
export const SPECIES = {
  BL: { shape: "●" },
  BU: { shape: "■" },
  CH: { shape: "◆" },
  GR: { shape: "▲" },
  SP: { shape: "⬢" },
  YE: { shape: "✚" },  // not ★: that marks a majority
};
export const SPECIES_CODES = Object.keys(SPECIES);

/** A bot's level in words (the level's name is the server's id: easy, medium, hard, random). */
export function botLevel(kind) {
  return { easy: _("easy"), medium: _("medium"), hard: _("hard"), random: _("random"), greedy: _("greedy") }[kind] || kind;
}

export function birdLabel(code) {
  const b = birdOf(code);
  const words = { species: speciesName(b.species), value: b.value };
  return b.sex === "m" ? _("{species} {value} male", words) : _("{species} {value} female", words);
}

/** A bird card's spoken name, everything its face shows: "Blackbird 5, male, 3 eggs". */
export function cardName(code) {
  const b = birdOf(code);
  const words = { species: speciesName(b.species), value: b.value };
  return b.sex === "m" ? ngettext("{species} {value}, male, {count} egg", "{species} {value}, male, {count} eggs", b.eggs, words)
    : ngettext("{species} {value}, female, {count} egg", "{species} {value}, female, {count} eggs", b.eggs, words);
}

/** A bird card; ``code`` null draws a face-down card. */
export function bird(code, attrs = {}) {
  if (!code) return h("span", { class: "card back", role: "img", "aria-label": _("hidden bird"), ...attrs });
  const b = birdOf(code);
  return h(
    "span",
    {
      class: `card bird sp-${b.species} ${b.sex === "m" ? "male" : "female"}`,
      role: "img",
      "aria-label": cardName(code),
      title: cardName(code),
      dataset: { card: code },
      ...attrs,
    },
    h("span", { class: "badge", "aria-hidden": "true" }, speciesShort(b.species).toUpperCase()),
    h("span", { class: "value", "aria-hidden": "true" }, String(b.value)),
    h("span", { class: "foot", "aria-hidden": "true" },
      h("span", { class: "sex" }, b.sex === "m" ? "♂" : "♀"), h("span", { class: "shape" }, SPECIES[b.species].shape)),
  );
}

/** A bird in running text (a log sentence, the banner, a button's words): a small card in the
species' colour with its shape, value and sex, read out and shown on hover in words. */
export function miniBird(code, attrs = {}) {
  const b = birdOf(code);
  return h("span", { class: `mini sp-${b.species} ${b.sex === "m" ? "male" : "female"}`, role: "img", "aria-label": cardName(code),
    title: cardName(code), dataset: { card: code }, ...attrs },
  h("span", { "aria-hidden": "true" }, `${SPECIES[b.species].shape}${b.value}${b.sex === "m" ? "♂" : "♀"}`));
}

/** A feeder card in words: a seed and its eggs, a crow or a squirrel. */
export function feederLabel(code) {
  const card = feederOf(code);
  if (card.kind === "crow") return _("crow");
  if (card.kind === "squirrel") return _("squirrel");
  return ngettext("seed, {count} egg", "seed, {count} eggs", card.eggs);
}

export function feeder(code, attrs = {}) {
  if (!code) return h("span", { class: "chip back", role: "img", "aria-label": _("hidden seed"), ...attrs }, "?");
  const card = feederOf(code);
  if (card.kind !== "seed") {
    const crow = card.kind === "crow";
    return h(
      "span",
      { class: `chip pest ${crow ? "crow" : "squirrel"}`, role: "img", "aria-label": feederLabel(code),
        title: feederLabel(code), dataset: { card: code }, ...attrs },
      h("span", { "aria-hidden": "true" }, crow ? _("Crow") : _("Squirrel")),
    );
  }
  const eggs = card.eggs;
  return h(
    "span",
    { class: `chip seed eggs${eggs}`, role: "img", "aria-label": feederLabel(code),
      title: feederLabel(code), dataset: { card: code }, ...attrs },
    h("span", { "aria-hidden": "true" }, "●".repeat(eggs)),
  );
}

/** The words for an action, from its fields as the server sends them (``choices`` in a state,
``choice`` in a replay's frame): kind, cards, number. ``display`` (the display's birds, when
known) names the bird a draw from the display takes. */
export function actionLabel(choice, display = null) {
  if (!choice) return "";
  const [first, second] = choice.cards;
  switch (choice.kind) {
    case "play": return _("Play {bird} to perch {perch}", { bird: birdLabel(first), perch: choice.number });
    case "collect": return _("Add {bird} to your collection", { bird: birdLabel(first) });
    case "pass": return _("Add no bird");
    case "draw deck": return _("Draw from the bird deck");
    case "draw display": {
      const taken = display?.[choice.number - 1];
      return taken ? _("Take {bird} from the display", { bird: birdLabel(taken) }) : _("Take display card {slot}", { slot: choice.number });
    }
    case "crow": return _("Let the crow take {bird}", { bird: birdLabel(first) });
    case "keep": return _("Keep {bird} and {other}", { bird: birdLabel(first), other: birdLabel(second) });
    default: return choice.action;
  }
}

/** A move someone made, as a sentence that names them (a replay's position line): "Bot 2 adds
Yellowhammer 1 male to the collection"; never "your", which is the page's own seat's word. */
export function moveWords(choice, name, display = null) {
  if (!choice) return "";
  const [first, second] = choice.cards;
  switch (choice.kind) {
    case "play": return _("{name} plays {bird} to perch {perch}", { name, bird: birdLabel(first), perch: choice.number });
    case "collect": return _("{name} adds {bird} to the collection", { name, bird: birdLabel(first) });
    case "pass": return _("{name} adds no bird", { name });
    case "draw deck": return _("{name} draws from the bird deck", { name });
    case "draw display": {
      const taken = display?.[choice.number - 1];
      return taken ? _("{name} takes {bird} from the display", { name, bird: birdLabel(taken) })
        : _("{name} takes display card {slot}", { name, slot: choice.number });
    }
    case "crow": return _("{name} lets the crow take {bird}", { name, bird: birdLabel(first) });
    case "keep": return _("{name} keeps {bird} and {other}", { name, bird: birdLabel(first), other: birdLabel(second) });
    default: return `${name}: ${choice.action}`;
  }
}

/** The birds an action names (a display bird it takes included), to draw beside its words. */
export function actionCards(choice, display = null) {
  if (!choice) return [];
  if (choice.kind === "draw display") {
    const taken = display?.[choice.number - 1];
    return taken ? [taken] : [];
  }
  return choice.cards.filter((code) => birdOf(code));
}
