// Telling a move step by step: the board still shows the position before, and each event's
// place flashes, a played bird lands, a leaving card fades. Nothing here is a rule: every card
// is found by the name the event gives.
import { bird } from "./cards.js";

/** Milliseconds per step of an animation; ``?pace=0`` (tests) shows everything at once. */
export const PACE = Number(new URLSearchParams(location.search).get("pace") ?? localStorage.getItem("piepmatz:pace") ?? 700);
/** Events worth a pause of their own; the rest are told in the log without one. */
export const STEPS = new Set(["play", "chase", "take_seed", "take_blind", "take_pest", "collect_perch", "crow",
  "crow_nothing", "squirrel", "promote", "collect", "draw_display", "draw_deck", "end_triggered", "reveal"]);

/**
 * Show one event on the board that is still showing the position before: the place it
 * touches flashes, a played bird lands in its row, a card that leaves fades, a promoted bird
 * is ringed. Every card is found by the name the event gives; nothing here is a rule.
 */
export function highlight(event) {
  for (const el of document.querySelectorAll(".flash")) el.classList.remove("flash");
  const marks = [];
  if (event.perch) marks.push(`.row[data-perch="${event.perch}"]`);
  if (event.position) marks.push(`.slot[data-position="${event.position}"]`);
  if (event.player !== undefined && event.player !== null) marks.push(`.player[data-seat="${event.player}"]`);
  if (event.slot) marks.push(`.display-slot:nth-child(${event.slot})`);
  for (const el of document.querySelectorAll(marks.join(","))) el.classList.add("flash");
  const seat = `.player[data-seat="${event.player}"]`;
  const mark = (selector, cls) => {
    for (const el of document.querySelectorAll(selector)) el.classList.add(cls);
  };
  switch (event.kind) {
    case "play": {
      const ground = document.querySelector(`.row[data-perch="${event.perch}"] .ground`);
      if (ground && event.bird) {
        const landing = bird(event.bird);
        landing.classList.add("arriving");
        ground.append(landing);
      }
      break;
    }
    case "take_seed":
    case "take_pest":
      if (event.position) mark(`.slot[data-position="${event.position}"] [data-card="${event.seed || event.pest}"]`, "leaving");
      break;
    case "collect_perch":
      mark(`.row [data-card="${event.bird}"]`, "leaving");
      break;
    case "promote":
      mark(`.row[data-perch="${event.perch}"] [data-card="${event.bird}"]`, "promoted");
      break;
    case "crow":
      mark(`${seat} .collection [data-card="${event.bird}"]`, "leaving");
      break;
    case "squirrel":
      for (const seed of event.seeds || []) mark(`${seat} .seeds [data-card="${seed}"]`, "leaving");
      break;
    case "draw_display":
      mark(`.display-slot:nth-child(${event.slot}) [data-card]`, "leaving");
      break;
    case "collect":
      if (event.bird) mark(`.hand [data-card="${event.bird}"]`, "leaving");
      break;
    default:
      break;
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
