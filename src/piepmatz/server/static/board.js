// The table drawn from a model: a player's view (the table page) or the whole state (a replay).
// Nothing here decides a rule: strengths are sums of the values shown, the majority holder comes
// from the server, and what may be clicked comes from the legal actions the server sent.
import { h, ruleLink } from "./dom.js";
import { bird, birdLabel, botLevel, feeder, miniBird, SPECIES_CODES } from "./cards.js";
import { _, birdOf, feederOf, ngettext, speciesName } from "./i18n.js";
import { absentWords, winnersWords } from "./tablewords.js";

function phaseTag(phase) {
  return {
    play: _("plays a bird"),
    collect: _("may add a bird to the collection"),
    crow: _("chooses the crow's victim"),
    draw: _("draws"),
    "last hand": _("chooses the last hand"),
    "game over": "",
  }[phase] ?? _("to play");
}

/** A model from a seat's (or a spectator's) view as the server sends it. */
export function fromView(view, seats, { strengths, mated, result }) {
  const me = view.player;
  const n = view.players;
  const ownBlind = me === null ? [] : view.own_seeds.filter((s) => !view.seeds_seen[me].includes(s));
  return {
    ...common(view, seats),
    strengths,
    mated,
    me,
    hands: range(n).map((p) => (p === me ? { cards: view.hand, size: view.hand.length }
      : { cards: null, size: view.hand_sizes[p], shown: view.shown[p] })),
    // Others' blind seeds: shown once the view reveals them (``blind_seeds``, at the end).
    blind: range(n).map((p) => (p === me ? { count: ownBlind.length, values: ownBlind }
      : { count: view.blind_counts[p], values: view.blind_seeds?.[p] ?? null })),
    result: result || null,
    chosen: view.chosen,
    bird_deck_size: view.bird_deck_size,
    feeder_deck_size: view.feeder_deck_size,
  };
}

/** A model from a whole state (the replay page): every hand and blind seed shown. */
export function fromState(state, seats, majority, { strengths, mated }) {
  const n = state.players;
  return {
    ...common(state, seats),
    strengths,
    mated,
    majority,
    me: null,
    hands: range(n).map((p) => ({ cards: state.hands[p], size: state.hands[p].length,
      kept: state.kept[p] })),
    blind: range(n).map((p) => ({ count: state.seeds_blind[p].length, values: state.seeds_blind[p] })),
    chosen: state.kept.map((k) => k !== null),
    bird_deck_size: state.bird_deck.length,
    feeder_deck_size: state.feeder_deck.length,
  };
}

function common(doc, seats) {
  return {
    players: doc.players,
    rules: doc.rules,
    seats,
    phase: doc.phase,
    turn: doc.turn,
    turn_player: doc.turn_player,
    current_player: doc.current_player,
    first_player: doc.first_player,
    end_triggered: doc.end_triggered,
    chase_perch: doc.chase_perch, // a perch emptied by a chase that waits for the crow's victim
    rows: doc.rows,
    column: doc.column,
    display: doc.display,
    collections: doc.collections,
    pests: doc.pests,
    seeds_seen: doc.seeds_seen,
    majority: doc.majority || {},
  };
}

export function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}

/**
 * A seat as people read it, built the same way everywhere on the page and as the server's
 * sentences name it: the person's name, "Bot 2" for a bot at the second seat, "Seat 3 (free)"
 * (seats count from 1); "(you)" beside the page's own seat.
 */
export function seatName(model, p) {
  const seat = model.seats?.[p];
  const number = p + 1;
  const name = seat && seat.kind !== "human" ? _("Bot {number}", { number }) : seat?.name || _("Seat {number} (free)", { number });
  return p === model.me ? _("{name} (you)", { name }) : name;
}

/** A seat in a list of the table's seats (the lobby, the join form, the review's buttons):
its name, with the bot's level ("Bot 2 (medium)"). */
export function seatWho(seats, p, me = null) {
  const seat = seats[p];
  const name = seatName({ seats, me }, p);
  return seat && seat.kind !== "human" ? _("{name} ({level})", { name, level: botLevel(seat.kind) }) : name;
}

/**
 * A sentence the server wrote as parts (``log_parts``: each has ``text``; a seat's name also
 * ``seat``, a bird in words also ``bird``), drawn the page's way: a bird as a small card, the
 * page's own seat marked. Without parts, its text as sent (the server names the seats).
 */
export function sentence(parts, text, me = null) {
  if (!parts) return [text];
  return parts.map((part) => {
    if (part.bird && birdOf(part.bird)) return miniBird(part.bird);
    if (part.seat !== undefined && part.seat !== null) {
      return h("b", { class: `who${part.seat === me ? " you" : ""}`, dataset: { seat: String(part.seat) } }, part.text);
    }
    return part.text;
  });
}

function value(code) {
  return birdOf(code).value;
}

/**
 * The board. ``pick(where, key)`` says whether a thing may be clicked now: it returns
 * ``{label, onclick, preview}`` or null. ``where`` is "hand", "perch", "display", "deck",
 * "collection".
 */
export function drawBoard(model, pick = () => null) {
  return h(
    "div",
    { class: "board" },
    // Read as a document: a heading for each part (hidden: the board shows what they are), a
    // heading for each perch and each player, the seed column a list.
    h("section", { class: "feeder-area", "aria-labelledby": "feeder-title" },
      h("h2", { id: "feeder-title", class: "visually-hidden" }, _("The feeder")),
      drawPerches(model, pick), drawColumn(model), drawSupply(model, pick)),
    h("section", { class: "players", "aria-labelledby": "players-title" },
      h("h2", { id: "players-title", class: "visually-hidden" }, _("The players")),
      model.seats.map((_, p) => drawPlayer(model, p, pick))),
  );
}

function clickable(content, choice, extraClass = "") {
  if (!choice) return content;
  return h("button", { class: `pick ${extraClass}`, type: "button", "aria-label": choice.label,
    title: choice.preview || choice.label, onclick: choice.onclick, dataset: choice.data || {} }, content);
}

function drawPerches(model, pick) {
  return h("div", { class: "perches" }, model.rows.map((row, i) => {
    const perch = i + 1;
    // Weighed by the server (T2), as the rules weigh it: the page decides nothing itself.
    const { perch: perchValue, ground, chases: beats } = model.strengths[i];
    // Emptied by a chase that waits for the crow's victim (T2.1d): every bird is on the ground.
    const vacated = model.chase_perch === perch;
    const choice = pick("perch", perch);
    const label = vacated
      ? _("Perch {perch}: empty until the crow's victim is chosen, ground {ground}", { perch, ground })
      : _("Perch {perch}: perch {value}, ground {ground}", { perch, value: perchValue, ground });
    return h("div", { class: `row${choice ? " target" : ""}`, dataset: { perch: String(perch) }, role: "group", "aria-label": label },
      h("div", { class: "row-head" },
        h("h3", { class: "row-name" }, _("Perch {perch}", { perch })),
        h("span", { class: `strength${beats ? " beats" : ""}` },
          h("abbr", { title: _("ground total") }, _("ground"), " "), h("b", {}, String(ground)),
          beats ? " > " : vacated ? " · " : " ≤ ", h("abbr", { title: _("perch strength") }, _("perch"), " "),
          h("b", {}, vacated ? "–" : String(perchValue)))),
      h("div", { class: "row-cards" },
        h("span", { class: "at-perch" }, vacated ? h("span", { class: "card empty" }, _("empty")) : bird(row[0])),
        h("span", { class: "ground" }, (vacated ? row : row.slice(1)).map((c) => bird(c)))),
      choice ? h("div", { class: "row-choice" }, clickable(h("span", {}, choice.text || _("Play here")), choice, "perch-pick"),
        choice.preview ? h("span", { class: "preview-line" }, choice.preview) : null) : null,
    );
  }));
}

function drawColumn(model) {
  const slots = range(4).map((i) => {
    const spot = model.column[i];
    const label = spot ? _("position {position}: {what}", { position: i + 1, what: describeSpot(spot) }) : _("position {position}: empty", { position: i + 1 });
    return h("li", { class: "slot", "aria-label": label, dataset: { position: String(i + 1) } },
      h("span", { class: "pos", "aria-hidden": "true" }, String(i + 1)),
      spot ? feeder(spot.seed) : h("span", { class: "chip empty", "aria-hidden": "true" }, "–"),
      spot && spot.pest ? feeder(spot.pest) : null);
  });
  return h("div", { class: "column" },
    h("h3", {}, _("Seed column")),
    h("ol", { class: "slots", "aria-label": _("seed column, position 1 next to the feeder") }, slots));
}

function describeSpot(spot) {
  const eggs = feederOf(spot.seed).eggs;
  if (!spot.pest) return ngettext("seed with {count} egg", "seed with {count} eggs", eggs);
  return feederOf(spot.pest).kind === "crow"
    ? ngettext("seed with {count} egg, crow beside it", "seed with {count} eggs, crow beside it", eggs)
    : ngettext("seed with {count} egg, squirrel beside it", "seed with {count} eggs, squirrel beside it", eggs);
}

function drawSupply(model, pick) {
  const display = model.display.map((code, i) => {
    const choice = code ? pick("display", i + 1) : null;
    return h("span", { class: "display-slot", role: "listitem" }, code ? clickable(bird(code), choice) : h("span", { class: "card empty" }, _("empty")));
  });
  const deckChoice = pick("deck", 0);
  return h("div", { class: "supply" },
    h("div", { class: "display" }, h("h3", {}, _("Display")), h("div", { class: "cards", role: "list", "aria-label": _("Display") }, display)),
    h("div", { class: "decks" },
      h("div", { class: "deck", role: "group", "aria-label": ngettext("bird deck: {count} card", "bird deck: {count} cards", model.bird_deck_size) },
        clickable(h("span", { class: "card back deck-card" }, String(model.bird_deck_size)), deckChoice),
        h("span", { class: "deck-name" }, _("bird deck"))),
      h("div", { class: "deck", role: "group", "aria-label": ngettext("feeder deck: {count} card", "feeder deck: {count} cards", model.feeder_deck_size) },
        h("span", { class: "chip back deck-card" }, String(model.feeder_deck_size)),
        h("span", { class: "deck-name" }, _("feeder deck")))),
  );
}

function drawPlayer(model, p, pick) {
  const seat = model.seats[p] || {};
  const active = model.current_player === p && model.phase !== "game over";
  const status = [];
  if (seat.kind && seat.kind !== "human") status.push(h("span", { class: "tag bot" }, _("bot: {level}", { level: botLevel(seat.kind) })));
  if (p === model.me && model.lost) status.push(h("span", { class: "tag offline" }, _("○ not connected")));
  else if (seat.kind === "human" && seat.connected !== null && seat.connected !== undefined) {
    status.push(h("span", { class: `tag ${seat.connected ? "online" : "offline"}` }, seat.connected ? _("● connected") : _("○ away")));
  }
  // A stand-in bot plays for an absent person (the table page's seats say why), and each
  // person's clock (the table page's, counted down there).
  const absent = absentWords(seat.absent, model.standIn, model.over);
  if (absent) status.push(h("span", { class: "tag stand-in" }, absent));
  const clock = model.clock?.(p);
  if (clock) status.push(clock);
  // "1st" would read as a place in the ranking: the tag says what it is.
  if (model.first_player === p) status.push(h("span", { class: "tag first-player", title: _("the first player: once the end is triggered, the game ends after the turn of the player seated just before them") }, _("first player")));
  if (model.phase === "last hand" && model.chosen?.[p]) status.push(h("span", { class: "tag" }, _("has chosen")));
  const hand = model.hands[p];
  return h("article", { class: `player${active ? " active" : ""}${p === model.me ? " me" : ""}`, dataset: { seat: String(p) },
    "aria-label": active ? _("{name}, to play", { name: seatName(model, p) }) : seatName(model, p) },
    h("header", {},
      h("span", { class: "turn-mark", "aria-hidden": "true" }, active ? "▶" : ""),
      h("h3", { class: "name" }, seatName(model, p)),
      active ? h("span", { class: "tag turn" }, phaseTag(model.phase)) : null,
      status),
    h("div", { class: "line" }, h("span", { class: "what" }, _("Hand")),
      hand.cards && p !== model.me ? h("span", { class: "cards small" }, hand.cards.map((c) => bird(c))) : null,
      !hand.cards ? h("span", { class: "cards small" }, (hand.shown || []).map((c) => bird(c, { title: _("{card}: everybody saw it drawn", { card: birdLabel(c) }) })),
        range(Math.max(0, hand.size - (hand.shown || []).length)).map(() => bird(null))) : null,
      p === model.me ? h("span", {}, hand.size ? ngettext("{count} card (below)", "{count} cards (below)", hand.size) : _("no cards")) : null,
      p !== model.me && !hand.size ? h("span", {}, _("no cards")) : null,
      hand.kept && hand.kept.length ? h("span", { class: "kept" }, _("keeps"), " ", hand.kept.map((c) => bird(c))) : null),
    drawSeeds(model, p),
    model.pests[p].length ? h("div", { class: "line" }, h("span", { class: "what" }, _("Pests")), model.pests[p].map((c) => feeder(c))) : null,
    drawCollection(model, p, pick),
  );
}

function drawSeeds(model, p) {
  const seen = model.seeds_seen[p];
  const blind = model.blind[p];
  const count = seen.length + blind.count;
  const eggsSeen = seen.reduce((sum, s) => sum + feederOf(s).eggs, 0);
  // At the end the score sheet has every pile's eggs: the blind ones are the rest.
  const scored = model.result?.players.find((r) => r.player === p);
  const blindEggs = scored && !blind.values ? scored.seeds - eggsSeen : null;
  return h("div", { class: "line seeds", role: "group", "aria-label": ngettext("seed pile: {count} card", "seed pile: {count} cards", count) },
    h("span", { class: "what" }, _("Seeds")),
    h("span", { class: "count" }, `${count}`),
    seen.length ? h("span", { class: "seen", title: _("taken from the column: everybody saw them") }, seen.map((s) => feeder(s)), " ", ngettext("{count} egg seen", "{count} eggs seen", eggsSeen)) : null,
    blind.count ? h("span", { class: "blind" },
      blind.values ? [" + ", _("blind:"), " ", blind.values.map((s) => feeder(s, { class: `chip seed${p === model.me ? " mine" : ""}` }))]
        : blindEggs !== null ? [" + ", ngettext("{count} blind", "{count} blind", blind.count), ": ", ngettext("{count} egg", "{count} eggs", blindEggs)]
          : [" + ", ngettext("{count} blind", "{count} blind", blind.count), " ", range(blind.count).map(() => feeder(null))]) : null);
}

/** A collection grouped by species; a male and a female of one value sit together as a pair. */
function drawCollection(model, p, pick) {
  const bySpecies = {};
  for (const code of model.collections[p]) (bySpecies[birdOf(code).species] ||= []).push(code);
  const paired = new Set(model.mated[p]);
  const groups = SPECIES_CODES.filter((sp) => bySpecies[sp]).map((sp) => {
    const cards = bySpecies[sp].sort((a, b) => value(a) - value(b) || (birdOf(a).sex === "m" ? -1 : 1));
    const holder = model.majority[sp] === p;
    const items = [];
    for (let i = 0; i < cards.length; i++) {
      const a = cards[i];
      const b = cards[i + 1];
      // The server names the birds in mated pairs (E4); sorted by value, male first, each pair's
      // two birds stand side by side.
      const mated = b && paired.has(a) && paired.has(b);
      const draw = (c) => clickable(bird(c), pick("collection", c));
      if (mated) {
        items.push(h("span", { class: "pair", role: "group", title: _("a mated pair"), "aria-label": _("pair") }, draw(a), draw(b)));
        i++;
      } else items.push(draw(a));
    }
    // A named group (a screen reader says its name: the species, how many, the majority).
    return h("span", { class: `group${holder ? " majority" : ""}`, role: "group",
      "aria-label": holder ? _("{species}: {count}, majority", { species: speciesName(sp), count: cards.length }) : `${speciesName(sp)}: ${cards.length}` },
      holder ? h("span", { class: "star", title: _("holds the majority of this species") }, "★") : null, items);
  });
  return h("div", { class: "line collection" }, h("span", { class: "what" }, _("Birds")),
    // A list of the species collected, each a named group of its birds.
    groups.length ? h("ul", { class: "groups" }, groups.map((group) => h("li", {}, group))) : h("span", { class: "none" }, _("none yet")));
}

/** The score sheet (E4, E5): every part separately, the winners and the tiebreak; with
``explained`` (each player's lines, from the server), each score told number by number on
request. */
export function drawScores(model, result, spec, explained = null) {
  const players = result.players;
  const cell = (text, cls = "") => h("td", { class: cls }, String(text));
  const speciesRows = SPECIES_CODES.filter((sp) => players.some((r) => r.singles[sp] !== undefined) || sp in result.majority)
    .map((sp) => h("tr", {}, h("th", { scope: "row" }, _("{species} singles", { species: speciesName(sp) })),
      players.map((r) => (result.majority[sp] === r.player
        ? h("td", { class: "majority" }, h("span", { class: "star", "aria-label": _("majority") }, "★"), " ", String(r.singles[sp] ?? 0))
        : cell(r.singles[sp] ?? "–")))));
  const winners = result.winners.map((w) => seatName(model, w));
  return h("section", { class: "scores", "aria-label": _("score sheet") },
    // The focus comes here when a game ends (tabindex -1: by script only).
    h("h2", { id: "result-title", tabindex: -1 }, winnersWords(winners)),
    result.tiebreak ? h("p", {}, _("The totals tied: the most birds in the collection decided."), " ", ruleLink(spec, "E5", _("The rule"))) : null,
    h("table", { class: "sheet" },
      h("thead", {}, h("tr", {}, h("td", {}, ""), players.map((r) => h("th", { scope: "col", class: result.winners.includes(r.player) ? "winner" : "" }, seatName(model, r.player))))),
      h("tbody", {},
        h("tr", {}, h("th", { scope: "row" }, _("Seeds (eggs)")), players.map((r) => cell(r.seeds))),
        // In a narrow column the product breaks before "=" only, never inside "2 × 5".
        h("tr", { class: "pairs" }, h("th", { scope: "row" }, _("Pairs")), players.map((r) => h("td", {},
          h("span", { class: "keep" }, `${r.pairs} × 5`), " ", h("span", { class: "keep" }, `= ${r.pair_points}`)))),
        speciesRows,
        h("tr", { class: "total" }, h("th", { scope: "row" }, _("Total")), players.map((r) => cell(r.total, result.winners.includes(r.player) ? "winner" : ""))),
        h("tr", {}, h("th", { scope: "row" }, _("Birds (tiebreak)")), players.map((r) => cell(r.birds))))),
    h("p", { class: "legend", id: "sheet-legend" },
      h("span", { class: "swatch majority", "aria-hidden": "true" }, "★"), " ",
      _("the most birds of this species: only they score its singles."), " ",
      h("span", { class: "swatch winner", "aria-hidden": "true" }), " ", _("the winner."), " ",
      ruleLink(spec, "E4", _("How the score is counted"))),
    explained ? h("div", { class: "explained" }, players.map((r) => explained[r.player] ? h("details", { class: "explain", dataset: { seat: String(r.player) } },
      h("summary", {}, r.player === model.me ? _("Explain your score") : _("Explain {name}'s score", { name: seatName(model, r.player) })),
      h("ul", {}, explained[r.player].map((line) => h("li", {}, line)))) : null)) : null,
  );
}
