// The lobby: play against bots at once, open a table with invite links, join an open table.
import { api, clear, dealPart, h, main, playerKey, savedName, saveName, toast } from "./dom.js";
import { botLevel } from "./cards.js";
import { seatWho } from "./board.js";
import { paceNote, paceWords } from "./clock.js";
import { _, ngettext, presetNames } from "./i18n.js";
import { inviteButtons, rememberTable } from "./invites.js";
import { findGame } from "./seek.js";
import { presetWords } from "./tablewords.js";

/** The bots this server offers (GET /api/bots), each in words: the levels' own words, else
the name the operator gave it. */
const levels = (names) => names.map((name) => [name, {
  easy: _("easy bot"),
  medium: _("medium bot"),
  hard: _("hard bot (thinks up to a second)"),
  random: _("random bot (plays any legal move)"),
  greedy: _("greedy bot (takes what scores most at once)"),
}[name] || _("{level} bot", { level: botLevel(name) })]);

/** The rules' presets the server has (from its catalogue), each in words. */
const presets = () => presetNames().map((name) => [name, presetWords(name)]);
let timer = null;
/** The words of the hints option, in one place (a function: the page's language may change). */
const hintText = () => ({
  quick: _("Hints (the hard bot's suggestion, when you ask)"),
  table: _("Allow hints (on only if every person allows them)"),
  // Beside the open tables: it is what joining one says, not a filter of the list.
  join: _("Allow hints at a table I join (on only if every person allows them)"),
});

/** A checkbox with its words beside it, the whole line a touch target. */
function check(input, text) {
  return h("label", { class: "check", for: input.id }, input, h("span", {}, text));
}

function select(id, options, value) {
  return h("select", { id, name: id }, options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)));
}

/** The paces this server offers (GET /api/paces), each in words, with what it means as a title. */
function paceOptions(select, paces, value) {
  clear(select).append(...paces.map((pace) => h("option", { value: pace.name, selected: pace.name === value, title: paceNote(pace) }, paceWords(pace))));
  return select;
}

/** The paces, or none from a server that has no clocks (the page then sends no pace). */
async function offeredPaces() {
  try {
    return await api("GET", "/api/paces");
  } catch {
    return [];
  }
}

/** Someone who has not played yet (this browser never sat at a table nor opened the lesson) is
offered the guided first game; "No, thanks" is remembered too. */
function lessonOffer() {
  if (localStorage.getItem("piepmatz:played")) return null;
  const offer = h("section", { class: "panel lesson-offer", id: "lesson-offer", "aria-labelledby": "lesson-offer-title" },
    h("h2", { id: "lesson-offer-title" }, _("New to Piepmatz?")),
    h("p", {}, _("Learn to play in about five minutes: a guided first game against a bot that shows every part of a turn.")),
    h("div", { class: "buttons" },
      h("a", { class: "button primary", href: `/tutorial${location.search}`, id: "lesson-start" }, _("Learn to play")),
      h("button", { type: "button", id: "lesson-no", onclick: () => {
        localStorage.setItem("piepmatz:played", "1");
        offer.remove();
      } }, _("No, thanks"))));
  return offer;
}

function go(made) {
  rememberTable(made);
  location.assign(new URL(made.link).pathname + location.search + new URL(made.link).hash);
}

export async function showLobby() {
  document.title = _("Piepmatz — lobby");
  const [bots, PACES] = await Promise.all([api("GET", "/api/bots"), offeredPaces()]);
  const LEVELS = levels(bots);
  const paceOf = (name) => (PACES.some((p) => p.name === name) ? name : undefined);
  const name = h("input", { id: "name", maxlength: 32, required: true, value: savedName() || "", placeholder: _("e.g. Anna"), autocomplete: "nickname" });
  const myName = () => {
    const value = name.value.trim();
    if (!value) {
      toast(_("Choose a display name first."));
      name.focus();
      return null;
    }
    saveName(value);
    return value;
  };

  // People waiting for the same game, seated together by the server.
  const finder = findGame(myName, PACES);

  // One click: you against bots.
  const quickPlayers = select("quick-players", [3, 2, 4].map((n) => [String(n), ngettext("{count} player", "{count} players", n)]), "3");
  const quickBot = select("quick-bot", LEVELS, "medium");
  const quickHints = h("input", { type: "checkbox", id: "quick-hints", checked: true });
  // A rated game has no hints: the bots' advice would play for the person.
  const quickRated = h("input", { type: "checkbox", id: "quick-rated", onchange: () => {
    quickHints.disabled = quickRated.checked;
    if (quickRated.checked) quickHints.checked = false;
  } });
  const quickPace = paceOptions(h("select", { id: "quick-pace", name: "quick-pace" }), PACES, paceOf("untimed") || PACES[0]?.name);
  const quick = h("section", { class: "panel", "aria-labelledby": "quick-title" },
    h("h2", { id: "quick-title" }, _("Play against bots now")),
    h("div", { class: "fields" },
      h("label", { for: "quick-players" }, _("Players")), quickPlayers,
      h("label", { for: "quick-bot" }, _("Bots")), quickBot,
      PACES.length ? [h("label", { for: "quick-pace" }, _("Pace")), quickPace] : null,
      check(quickHints, hintText().quick),
      check(quickRated, _("Rated: the game counts for your rating (no hints)"))),
    h("button", { type: "button", class: "primary", id: "quick-start", onclick: async () => {
      const who = myName();
      if (!who) return;
      try {
        go(await api("POST", "/api/quick", { name: who, players: Number(quickPlayers.value), bot: quickBot.value, hints: quickHints.checked, rated: quickRated.checked || undefined, deal_part: dealPart(),
          pace: paceOf(quickPace.value), player: playerKey() }));
      } catch (error) {
        toast(_("Could not start: {reason}", { reason: error.message }));
      }
    } }, _("Play against bots now")));

  // A table with friends.
  const seatsBox = h("div", { class: "seats" });
  const count = select("seat-count", [["2", "2"], ["3", "3"], ["4", "4"]], "3");
  const seatKinds = [];
  const kindAt = (i) => seatKinds[i] || (i === 0 ? "you" : i === 1 ? "human" : "easy");
  // The pace, the stand-in and (at two seats) what a resignation does: the pace offered follows
  // how many people sit at the table (no clock only where one person plays against bots).
  // What the pace chosen means for someone away, in words on the page (a phone shows no title).
  const paceSaid = h("p", { class: "muted field-note", id: "pace-note" });
  const pace = h("select", { id: "pace", name: "pace", "aria-describedby": "pace-note" });
  const sayPace = () => { paceSaid.textContent = paceNote(PACES.find((p) => p.name === pace.value)); };
  let paceChosen = null;
  pace.addEventListener("change", () => {
    paceChosen = pace.value;
    sayPace();
  });
  const standIn = select("stand-in", LEVELS, bots.includes("medium") ? "medium" : bots[0]);
  const resignRule = select("resign-rule", [["end", _("the game ends")], ["play_on", _("a bot plays on")]], "end");
  const resignBox = h("div", { class: "subfields" });
  const drawOptions = () => {
    const n = Number(count.value);
    const people = Array.from({ length: n }, (_unused, i) => kindAt(i)).filter((k) => k === "you" || k === "human").length;
    const offered = PACES.filter((p) => people <= 1 || p.kind !== "untimed");
    const fallback = people > 1 ? "turn-based" : "untimed";
    const value = offered.some((p) => p.name === paceChosen) ? paceChosen
      : offered.some((p) => p.name === fallback) ? fallback : offered[0]?.name;
    paceOptions(pace, offered, value);
    sayPace();
    clear(resignBox).append(...(n === 2 ? [h("label", { for: "resign-rule" }, _("If someone resigns")), resignRule] : []));
  };
  const drawSeats = () => {
    const n = Number(count.value);
    clear(seatsBox);
    for (let i = 0; i < n; i++) {
      const choice = select(`seat-${i}`, [["you", _("you")], ["human", _("a friend (invite link)")], ...LEVELS], kindAt(i));
      choice.addEventListener("change", () => {
        seatKinds[i] = choice.value;
        drawOptions();
      });
      seatsBox.append(h("label", { for: `seat-${i}` }, _("Seat {number}", { number: i + 1 })), choice);
    }
    drawOptions();
  };
  count.addEventListener("change", drawSeats);
  drawSeats();
  const preset = select("preset", presets(), "standard");
  const isPublic = h("input", { type: "checkbox", id: "public" });
  const allowHints = h("input", { type: "checkbox", id: "hints" });
  const created = h("div", { id: "created" });
  const create = h("form", { class: "panel", "aria-labelledby": "create-title", onsubmit: async (event) => {
    event.preventDefault();
    const who = myName();
    if (!who) return;
    const n = Number(count.value);
    const kinds = [];
    let mine = null;
    for (let i = 0; i < n; i++) {
      const value = document.getElementById(`seat-${i}`).value;
      if (value === "you") {
        if (mine !== null) return toast(_("Choose 'you' for one seat only."));
        mine = i;
        kinds.push("human");
      } else kinds.push(value);
    }
    if (mine === null) return toast(_("Choose the seat you take ('you')."));
    try {
      const made = await api("POST", "/api/tables", { seats: kinds, rules: preset.value, name: who, seat: mine, public: isPublic.checked, hints: allowHints.checked, deal_part: dealPart(),
        player: playerKey(), pace: paceOf(pace.value), stand_in: standIn.value, resign: n === 2 ? resignRule.value : undefined });
      rememberTable(made);
      const link = new URL(made.link);
      clear(created).append(h("div", { class: "made" },
        h("h3", {}, _("Table {table} is open", { table: made.table })),
        made.invites.length ? inviteButtons(made) : null,
        h("a", { class: "button primary", id: "go-table", href: link.pathname + location.search + link.hash }, _("Go to the table"))));
    } catch (error) {
      toast(_("Could not open the table: {reason}", { reason: error.message }));
    }
  } },
  h("h2", { id: "create-title" }, _("Open a table")),
  h("div", { class: "fields" },
    h("label", { for: "seat-count" }, _("Seats")), count,
    seatsBox,
    h("label", { for: "preset" }, _("Rules")), preset,
    PACES.length ? [h("label", { for: "pace" }, _("Pace")), pace, paceSaid] : null,
    h("label", { for: "stand-in" }, _("Stand-in bot (plays for someone away)")), standIn,
    resignBox,
    check(isPublic, _("Listed for anyone to join")),
    check(allowHints, hintText().table)),
  h("button", { type: "submit", class: "primary", id: "create" }, _("Open the table")),
  created);

  // Open tables anyone may join; joining one says whether this person allows hints there.
  const list = h("ul", { id: "open-tables", class: "open-tables" });
  const joinHints = h("input", { type: "checkbox", id: "join-hints" });
  const refresh = async () => {
    let tables = [];
    try {
      tables = await api("GET", "/api/tables");
    } catch {
      return;
    }
    clear(list).append(...(tables.length ? tables.map((t) => h("li", {},
      h("span", {}, ngettext("Table {table}: {count} player, {rules}; {seats}", "Table {table}: {count} players, {rules}; {seats}", t.players,
        { table: t.table, rules: presetWords(t.rules), seats: t.seats.map((s) => seatWho(t.seats, s.seat)).join(", ") }),
      t.pace ? h("span", { class: "muted", title: paceNote(t.pace) }, ` · ${paceWords(t.pace)}`) : null),
      h("button", { type: "button", onclick: async () => {
        const who = myName();
        if (!who) return;
        try {
          const joined = await api("POST", `/api/tables/${t.table}/join`, { name: who, hints: joinHints.checked, deal_part: dealPart(), player: playerKey() });
          localStorage.setItem(`piepmatz:seat:${t.table}`, JSON.stringify(joined));
          location.assign(`/play/${t.table}${location.search}#seat=${joined.seat}&token=${joined.token}`);
        } catch (error) {
          toast(_("Could not join: {reason}", { reason: error.message }));
        }
      } }, _("Join")))) : [h("li", { class: "muted" }, _("No open table right now."))]));
  };
  await refresh();
  clearInterval(timer);
  timer = setInterval(refresh, 5000);

  clear(main()).append(h("div", { class: "lobby" },
    h("h1", {}, "Piepmatz"),
    h("p", { class: "muted" }, _("Songbirds at a feeder: play birds to the perches, chase the perch bird away, collect seeds and birds.")),
    lessonOffer(),
    h("div", { class: "panel" }, h("label", { for: "name" }, _("Your display name")), name),
    finder.section, quick, create,
    h("section", { class: "panel", "aria-labelledby": "open-title" }, h("h2", { id: "open-title" }, _("Open tables")),
      check(joinHints, hintText().join), list)));
  return () => {
    clearInterval(timer);
    finder.stop();
  };
}
