// Building the page: every text goes in as a text node, never as HTML, so that display names
// and chat lines (user data) can never become markup.
import { _, language } from "./i18n.js";

/** h("div", {class: "x", onclick: f}, "text", child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function main() {
  return document.getElementById("main");
}

let toastTimer = null;
/** A message for the person (a refused click, a server error), read out by screen readers. */
export function toast(text, kind = "error") {
  const el = document.getElementById("toast");
  // A sentence from its capital: the server's reasons start in lower case, to follow a colon.
  el.textContent = text ? text[0].toUpperCase() + text.slice(1) : text;
  el.className = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 6000);
}

export async function api(method, path, body, headers = {}) {
  // The server answers (and explains a refusal) in the page's language.
  const options = { method, headers: { "accept-language": language(), ...headers } };
  if (body) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof data.detail === "string" ? data.detail
      : Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : response.statusText;
    // The status says what happened (404: no such table), the detail says it in words.
    throw Object.assign(new Error(detail), { status: response.status });
  }
  return data;
}

/** This person's part of the deal's seed: 32 random bytes in URL-safe base64. The server commits
to its own part before anyone sits down and derives the deal from every part, so that it cannot
choose the deal alone (docs/protocol.md, "A deal nobody could choose"). */
export function dealPart() {
  return randomKey();
}

/** 32 random bytes from the browser's generator, in URL-safe base64 without padding (43
characters). */
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const PLAYER = "piepmatz.player";
/** This browser's player key, made on the first visit and kept: sent as `player` when a table is
opened, joined or quick-started, it lets the page say hello at the player's own tables with no
link and lists them on "My games" (docs/protocol.md, "Players who return"). */
export function playerKey() {
  let key = localStorage.getItem(PLAYER);
  if (!key || !/^[\w-]{43}$/.test(key)) {
    key = randomKey();
    localStorage.setItem(PLAYER, key);
  }
  return key;
}

/** The header that says who this browser's player is (``Authorization: Bearer KEY``). */
export function bearer() {
  return { authorization: `Bearer ${playerKey()}` };
}

/** This player's account and rating (``GET /api/account``), or null if the server cannot say. */
export async function whoAmI() {
  try {
    return await api("GET", "/api/account", undefined, bearer());
  } catch {
    return null;
  }
}

export function savedName() {
  return localStorage.getItem("piepmatz:name") || "";
}

export function saveName(name) {
  localStorage.setItem("piepmatz:name", name);
}

/** Copy to the clipboard, falling back to a prompt where the clipboard is not allowed. */
export async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(_("Copied: {what}", { what }), "info");
  } catch {
    window.prompt(_("Copy {what}:", { what }), text);
  }
}

export function setRulesLink(spec) {
  const link = document.getElementById("rules-link");
  link.href = rulesHref(spec);
}

/** The rules page of ``spec``, at rule ``rule`` (its id, e.g. "T3.1") when one is given. */
export function rulesHref(spec, rule = null) {
  return `/rules?rules=${encodeURIComponent(spec || "standard")}${rule ? `#rule-${rule}` : ""}`;
}

/** A link to a rule on the rules page, in a new tab (the game stays open): the id is in the
address only, people read ``text``. */
export function ruleLink(spec, rule, text) {
  return h("a", { class: "rule-link", href: rulesHref(spec, rule), target: "_blank", rel: "noopener", dataset: { rule } }, text);
}

/** A page that says what happened and offers the way on: a heading, sentences, and links or
buttons (each ``{text, href}`` or ``{text, onclick}``; the first is the main one). */
export function deadEnd(title, lines, ways) {
  const page = h("section", { class: "panel dead-end", "aria-labelledby": "dead-end-title" },
    h("h1", { id: "dead-end-title" }, title),
    lines.filter(Boolean).map((line) => h("p", {}, line)),
    h("div", { class: "buttons" }, ways.filter(Boolean).map((way, i) => (way.href
      ? h("a", { class: `button${i === 0 ? " primary" : ""}`, href: way.href, id: way.id }, way.text)
      : h("button", { type: "button", class: i === 0 ? "primary" : "", id: way.id, onclick: way.onclick }, way.text)))));
  clear(main()).append(page);
  page.querySelector(".button, button")?.focus();
  return page;
}
