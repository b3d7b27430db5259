// Cards drawn with CSS: each species has its colour AND its own code and badge shape, so the
// game reads without colour; value and sex are printed large enough for a phone.
import { h } from "./dom.js";

export const SPECIES = {
  BL: { name: "Blackbird", shape: "●" },
  BU: { name: "Bullfinch", shape: "■" },
  CH: { name: "Chaffinch", shape: "◆" },
  GR: { name: "Greenfinch", shape: "▲" },
  SP: { name: "House sparrow", shape: "⬢" },
  YE: { name: "Yellowhammer", shape: "★" },
};
export const SPECIES_CODES = Object.keys(SPECIES);

/** "BL5m" → {species: "BL", value: 5, sex: "m"} */
export function parseBird(code) {
  return { species: code.slice(0, 2), value: Number(code[2]), sex: code[3] };
}

export function birdLabel(code) {
  const b = parseBird(code);
  return `${SPECIES[b.species].name} ${b.value} ${b.sex === "m" ? "male" : "female"}`;
}

/** A bird card; ``code`` null draws a face-down card. */
export function bird(code, attrs = {}) {
  if (!code) return h("span", { class: "card back", role: "img", "aria-label": "hidden bird", ...attrs });
  const b = parseBird(code);
  return h(
    "span",
    {
      class: `card bird sp-${b.species} ${b.sex === "m" ? "male" : "female"}`,
      role: "img",
      "aria-label": birdLabel(code),
      title: birdLabel(code),
      dataset: { card: code },
      ...attrs,
    },
    h("span", { class: "badge", "aria-hidden": "true" }, b.species),
    h("span", { class: "value", "aria-hidden": "true" }, String(b.value)),
    h("span", { class: "foot", "aria-hidden": "true" },
      h("span", { class: "sex" }, b.sex === "m" ? "♂" : "♀"), h("span", { class: "shape" }, SPECIES[b.species].shape)),
  );
}

/** "S2a" → a seed worth 2 eggs; "CRa" a crow; "SQa" a squirrel. */
export function feederLabel(code) {
  if (code.startsWith("CR")) return "crow";
  if (code.startsWith("SQ")) return "squirrel";
  const eggs = Number(code[1]);
  return `seed, ${eggs} egg${eggs === 1 ? "" : "s"}`;
}

export function feeder(code, attrs = {}) {
  if (!code) return h("span", { class: "chip back", role: "img", "aria-label": "hidden seed", ...attrs }, "?");
  if (code.startsWith("CR") || code.startsWith("SQ")) {
    const crow = code.startsWith("CR");
    return h(
      "span",
      { class: `chip pest ${crow ? "crow" : "squirrel"}`, role: "img", "aria-label": feederLabel(code),
        title: feederLabel(code), dataset: { card: code }, ...attrs },
      h("span", { "aria-hidden": "true" }, crow ? "Crow" : "Squirrel"),
    );
  }
  const eggs = Number(code[1]);
  return h(
    "span",
    { class: `chip seed eggs${eggs}`, role: "img", "aria-label": feederLabel(code),
      title: feederLabel(code), dataset: { card: code }, ...attrs },
    h("span", { "aria-hidden": "true" }, "●".repeat(eggs)),
  );
}

/** The words for an action of the engine's notation, for buttons and screen readers. */
export function actionLabel(text) {
  const parts = text.split(" ");
  switch (parts[0]) {
    case "play": return `Play ${birdLabel(parts[1])} to perch ${parts[2]}`;
    case "collect": return `Add ${birdLabel(parts[1])} to your collection`;
    case "pass": return "Add no bird";
    case "draw": return parts[1] === "deck" ? "Draw from the bird deck" : `Take display card ${parts[2]}`;
    case "crow": return `Let the crow take ${birdLabel(parts[1])}`;
    case "keep": return `Keep ${birdLabel(parts[1])} and ${birdLabel(parts[2])}`;
    default: return text;
  }
}
