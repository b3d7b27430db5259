// The page's language. Texts are written in English in the code and marked with _() (or
// ngettext() where a number decides the form); the server hands the page the `web` catalogue of
// the chosen language (GET /api/i18n/{lang}) with its plural rule, from the same gettext
// catalogues as the Python side. A text is never built from translated pieces: placeholders
// ({name}) are filled in after translating.

const STORE = "piepmatz:lang";
let current = "en";
let messages = {};
let pluralIndex = (n) => (n !== 1 ? 1 : 0);
let names = { en: "English" };
let species = {};
let speciesShorts = {};
let presets = ["standard"];
let reasons = [];
let cards = { birds: {}, feeder: {} };
const listeners = [];

/** n => the index of the catalogue's form for n: the browser's plural category of n in the
language (Intl.PluralRules), in the order the server gives for that language's gettext forms. */
function pluralRule(lang, categories) {
  const rules = new Intl.PluralRules(lang);
  return (n) => {
    const index = categories.indexOf(rules.select(n));
    return index >= 0 ? index : categories.length - 1;
  };
}

function fill(text, params) {
  return params ? text.replace(/\{(\w+)\}/g, (all, key) => (key in params ? String(params[key]) : all)) : text;
}

/** ``message`` in the page's language, with its {placeholders} filled from ``params``. */
export function _(message, params) {
  const text = messages[message];
  return fill(typeof text === "string" && text ? text : message, params);
}

/** The form of a text that fits ``n``; ``{count}`` is ``n`` unless ``params`` say otherwise. */
export function ngettext(singular, plural, n, params) {
  const forms = messages[singular];
  const index = pluralIndex(n);
  const text = Array.isArray(forms) && forms[index] ? forms[index] : n === 1 ? singular : plural;
  return fill(text, { count: n, ...params });
}

/** A species' name in the page's language (the species' texts of the server's catalogue). */
export function speciesName(code) {
  return species[code] || code;
}

/** A species in two letters, as a card's badge shows it, in the page's language (Ko, Gi). */
export function speciesShort(code) {
  return speciesShorts[code] || code;
}

/** A bird's fields by its name (species, value, sex, eggs), from the server: no notation is read. */
export function birdOf(code) {
  return cards.birds[code];
}

/** A feeder card's fields by its name (kind: seed, crow or squirrel; eggs), from the server. */
export function feederOf(code) {
  return cards.feeder[code];
}

/** Why a table may be reported, the server's list (vocabulary.ReportReason). */
export function reportReasons() {
  return reasons;
}

/** The rules' presets the server has, by name (from the same answer as the texts). */
export function presetNames() {
  return presets;
}

export function language() {
  return current;
}

/** A number written the page language's way (Intl.NumberFormat): "2,000" and "1.5" in
English, "2 000" and "1,5" in Czech. */
export function formatNumber(x, digits = 0) {
  return new Intl.NumberFormat(current, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** A share (0-1) as the page's language writes a percentage: "32%" in English, "32 %" in
Czech and German. */
export function formatPercent(x, digits = 0) {
  return new Intl.NumberFormat(current, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** The page's language when the server has it too (for the texts the server writes), else
null: the server then answers in the browser's language. */
export function serverLanguage() {
  return current in names ? current : null;
}

/** Each language the game is written in, by code, with its name in itself. */
export function languages() {
  return names;
}

/**
 * Load the language asked for by the address (?lang=, then remembered), else the one chosen
 * before on this browser, else the server's choice from the browser's languages.
 */
export async function startLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  const lang = await loadLanguage(asked || localStorage.getItem(STORE));
  if (asked) localStorage.setItem(STORE, lang);
  return lang;
}

/**
 * Load ``lang``'s catalogue (null: the server chooses from the browser's Accept-Language);
 * an unknown language falls back to the server's choice.
 */
export async function loadLanguage(lang) {
  let response = lang ? await fetch(`/api/i18n/${encodeURIComponent(lang)}`) : null;
  if (!response || !response.ok) response = await fetch("/api/i18n");
  const data = await response.json();
  current = data.lang;
  messages = data.messages;
  pluralIndex = pluralRule(data.lang, data.plural_categories);
  names = data.languages;
  species = data.species;
  speciesShorts = data.species_short;
  presets = data.presets;
  reasons = data.report_reasons || [];
  cards = data.cards;
  document.documentElement.lang = current;
  return current;
}

/** Switch to ``lang`` now and remember it; every page part that listens redraws itself. */
export async function switchLanguage(lang) {
  localStorage.setItem(STORE, await loadLanguage(lang));
  for (const listener of listeners) await listener(current);
}

export function onLanguageChange(listener) {
  listeners.push(listener);
}
