// The table page's words: prompts, hints, what a seat is doing, why a move was refused, and
// numbers written the page's way. Functions, so that a language switch redraws them.
import { botLevel } from "./cards.js";
import { _, formatNumber, formatPercent, ngettext } from "./i18n.js";

/** Who won, from their names: "Anna wins", or "Shared win: Anna, Ben". */
export function winnersWords(names) {
  return names.length > 1 ? _("Shared win: {names}", { names: names.join(", ") }) : _("{name} wins", { name: names[0] });
}

/** A preset of the rules (its name is the server's id) in words, wherever people read it. */
export function presetWords(name) {
  return { standard: _("standard (the published game)"), overview: _("overview (the English overview)") }[name] || name;
}

/** A preset's name alone, where a line has room for no more (the table's head): the rules
page, one click away, says the rest. */
export function presetShort(name) {
  return { standard: _("standard rules"), overview: _("overview rules") }[name] || _("rules: {rules}", { rules: name });
}

/** What the seat to move is asked, by the phase (the rule it follows: promptRule). */
export function prompt(phase) {
  return {
    play: _("Play a bird: choose a card of your hand, then a perch."),
    collect: _("No chase: you may add a bird from your hand to your collection."),
    crow: _("The crow: choose a bird of your most numerous species to lose."),
    draw: _("Draw: take a display card or the top of the bird deck."),
    "last hand": _("Last hand: choose the two birds that join your collection."),
  }[phase];
}

/** The id of the rule a phase's decision follows (RULES.md), for a link to it: people read
the rule's words, never its id. */
export function promptRule(phase) {
  return { play: "T1", collect: "T2.2", crow: "T2.1d", draw: "T3.1", "last hand": "E3" }[phase] || null;
}

/** The words of hints, in one place (a function: the page's language may change). */
export const hintText = () => ({
  button: _("Hint"),
  thinking: _("Thinking…"),
  title: (bot, move) => _("Hint from the {bot} bot: {move}", { bot: botLevel(bot), move }),
  estimate: (h) => _("Expected lead {lead} ± {lead_spread} points, win chance {win} ± {win_spread} (from your view only, {worlds} sampled worlds).", {
    lead: signed(h.lead), lead_spread: number(h.lead_spread, 1), win: percent(h.win), win_spread: percent(h.win_spread), worlds: number(h.worlds),
  }),
  on: _("Hints on"),
  onTitle: _("every person at this table allowed hints: press H or the Hint button on your move"),
  off: _("Hints off"),
  offTitle: _("hints are on only when every person at the table allows them"),
  allow: _("Allow hints (the hard bot's suggestion for your move, when you ask)"),
  allowNote: _("Hints are on only if every person at the table allows them."),
  refused: _("Hints are off at this table: someone there did not allow them."),
});

/** What the seat to play is doing, as a sentence (each one whole, for the translations). */
export function phaseWords(phase, name) {
  const words = {
    play: _("{name} is choosing a bird to play."),
    collect: _("{name} may add a bird to the collection."),
    crow: _("{name} is choosing the crow's victim."),
    draw: _("{name} is drawing."),
    "last hand": _("{name} is choosing the last hand."),
  }[phase] || _("{name} is to play.");
  return words.replace("{name}", name);
}

/** Why the server refused, in the page's language: by the error's code; an illegal move's
reason comes from the server already in this connection's language. */
export function refusal(message) {
  const words = {
    stale: _("the game has moved on: the page catches up"),
    not_your_turn: _("it is not your decision"),
    not_playing: _("the game is not being played now"),
    storage: _("the move could not be stored; try again"),
    spectator: _("a spectator only watches"),
    bad_token: _("this link is no seat's or spectator's at this table"),
    not_joined: _("join the table (choose a name) first"),
    no_table: _("there is no such table"),
    too_long: _("that message is too long"),
    hints_off: _("hints are off at this table: not every person allowed them"),
    hint_busy: _("your hint is being worked out: wait for it"),
    hint_failed: _("no hint could be found this time; try again"),
    resigned: _("you resigned this game: you cannot play in it or take your seat back"),
    not_abortable: _("the game can be aborted only in its first round"),
    stood_in: _("a bot plays for you now: take your seat back first"),
  }[message.code];
  return words || message.message;
}

function signed(x) {
  return `${x >= 0 ? "+" : "−"}${number(Math.abs(x), 1)}`;
}

/** A share (0-1) as a whole percentage in the page's language ("32 %" in Czech). */
export function percent(x) {
  return formatPercent(x);
}

/** A number written the way the page's language writes it (decimal comma in Czech and German). */
export function number(x, digits = 0) {
  return formatNumber(x, digits);
}

/** Why a stand-in bot plays a seat (its `absent`), for the seat's tag; null when it does not.
``over``: the game has ended (a resignation that ended it leaves no bot playing). */
export function absentWords(absent, bot, over = false) {
  const words = { bot: botLevel(bot || "medium") };
  switch (absent) {
    case "time": return _("the {bot} bot plays: time ran out", words);
    case "away": return _("the {bot} bot plays: away too long", words);
    case "resigned": return over ? _("resigned") : _("resigned; the {bot} bot plays on", words);
    default: return null;
  }
}

/** A `stand_in` or `returned` message as a sentence for the log: ``name`` is the seat's
person, ``mine`` whether that is the page's own seat. */
export function announcement(message, name, mine) {
  const words = { name, bot: botLevel(message.bot || "medium") };
  if (message.type === "returned") {
    if (!mine) return _("{name} is back and plays again.", words);
    // What they come back to: the moves made for them meanwhile are in the log.
    return message.moves ? ngettext("You are back in your seat: the {bot} bot made {count} move for you meanwhile.",
      "You are back in your seat: the {bot} bot made {count} moves for you meanwhile.", message.moves, words)
      : _("You are back in your seat.");
  }
  switch (message.reason) {
    case "time": return mine ? _("Your time ran out: the {bot} bot plays for you until you take your seat back.", words)
      : _("{name}'s time ran out: the {bot} bot plays for them until they come back.", words);
    case "away": return mine ? _("You were away too long: the {bot} bot plays for you until you take your seat back.", words)
      : _("{name} has been away too long: the {bot} bot plays for them until they come back.", words);
    default: return mine ? _("You resigned: the {bot} bot plays on for you.", words)
      : _("{name} resigned: the {bot} bot plays on for them.", words);
  }
}

/** How a game ended (the `ending` of `state` and `table`), in sentences: the first says how,
the others what the stand-ins did. ``nameOf(seat)`` gives a seat's name; ``me`` is the reader's
seat (null: a spectator), told as "you". */
export function endingWords(ending, nameOf, me = null) {
  const names = (seats) => seats.map(nameOf).join(", ");
  const lines = [{
    played_out: _("The game was played out."),
    // Your own resignation in the second person: "Bernd (du) hat aufgegeben" read oddly.
    resigned: ending.seat === me
      ? _("You resigned: {winner} wins.", { winner: names(ending.winners || []) })
      : _("{loser} resigned: {winner} wins.", { loser: nameOf(ending.seat), winner: names(ending.winners || []) }),
    aborted: _("The game was aborted: no winner."),
  }[ending.how] || ""];
  for (const seat of ending.resigned || []) {
    if (ending.how === "resigned" && seat === ending.seat) continue;
    lines.push(seat === me ? _("You resigned; a bot played on for you.") : _("{name} resigned; a bot played on.", { name: nameOf(seat) }));
  }
  // Per seat: a list, or an object by seat number.
  for (const [seat, moves] of Object.entries(ending.stood_in || {})) {
    if (moves > 0 && Number(seat) === me) lines.push(ngettext("A bot played {count} move for you.", "A bot played {count} moves for you.", moves));
    else if (moves > 0) lines.push(ngettext("A bot played {count} move for {name}.", "A bot played {count} moves for {name}.", moves, { name: nameOf(Number(seat)) }));
  }
  return lines.filter(Boolean);
}
