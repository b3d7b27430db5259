// Paces and clocks: a pace in words (the lobby, a table's head, "My games"), and each person's
// clock counted down in the page from the server's `clock` (docs/protocol.md, "Paces"). The
// clock is the server's: the page only counts down from what it was sent, on its own time.
import { _, ngettext } from "./i18n.js";

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A span of time in words: "5 min", "1 day", "1 min 30 s". */
export function duration(seconds) {
  let rest = Math.max(0, Math.round(seconds));
  const days = Math.floor(rest / DAY);
  rest %= DAY;
  const hours = Math.floor(rest / HOUR);
  rest %= HOUR;
  const minutes = Math.floor(rest / MINUTE);
  const secs = rest % MINUTE;
  const parts = [];
  if (days) parts.push(ngettext("{count} day", "{count} days", days));
  // TRANSLATORS: hours, as in "23 h" (a pace or the time left for a move).
  if (hours) parts.push(_("{count} h", { count: hours }));
  // TRANSLATORS: minutes, as in "5 min".
  if (minutes) parts.push(_("{count} min", { count: minutes }));
  // TRANSLATORS: seconds, as in "5 s".
  if (secs || !parts.length) parts.push(_("{count} s", { count: secs }));
  return parts.join(" ");
}

/** A pace (as `GET /api/paces` and the `table` message give it) in words. */
export function paceWords(pace) {
  if (!pace) return _("Untimed");
  switch (pace.kind) {
    case "live":
      return _("Live: {base} + {increment} a move", { base: duration(pace.base), increment: duration(pace.increment || 0) });
    case "turn":
      return _("Turn-based: {time} a move", { time: duration(pace.per_move) });
    case "untimed":
      return _("Untimed");
    default:
      return pace.name;
  }
}

/** What a pace means for someone who is away, in words (a title beside the pace). */
export function paceNote(pace) {
  if (pace?.kind === "live") {
    return _("Each person has a clock. Whoever runs out of time, or is disconnected for {away}, is played by the stand-in bot until they come back.", { away: duration(pace.away ?? 60) });
  }
  if (pace?.kind === "turn") return _("Each move has its time; whoever lets it run out is played by the stand-in bot until they come back.");
  return _("No clock.");
}

/** A live clock's face: "4:32", "1:02:03". */
function face(ms) {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  const hours = Math.floor(total / HOUR);
  const minutes = Math.floor((total % HOUR) / MINUTE);
  const seconds = String(total % MINUTE).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The time left for a move in coarse words: "2 days left", "23 h left", "45 min left". */
function timeLeft(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds >= 2 * DAY) return ngettext("{count} day left", "{count} days left", Math.floor(seconds / DAY));
  if (seconds >= HOUR) return _("{count} h left", { count: Math.floor(seconds / HOUR) });
  if (seconds >= MINUTE) return _("{count} min left", { count: Math.floor(seconds / MINUTE) });
  return _("{count} s left", { count: seconds });
}

/** The `clock` of one `state` message, counted down from the moment the page received it
(`now` is the server's time when it was sent: the page never compares the two clocks). */
export class Clock {
  constructor(clock, receivedAt, kind) {
    this.clock = clock;
    this.at = receivedAt;
    // A live table gives each person's time left; a turn-based one only the move's deadline.
    this.live = kind ? kind === "live" : (clock?.left || []).some((ms) => ms !== null);
  }

  /** Milliseconds left for seat ``p`` now, or null where the seat has no clock to show. */
  left(p) {
    const c = this.clock;
    if (!c) return null;
    if (c.running === p && c.deadline !== null && c.deadline !== undefined) {
      return Math.max(0, c.deadline - c.now - (Date.now() - this.at));
    }
    return this.live ? c.left?.[p] ?? null : null;
  }

  running(p) {
    return this.clock?.running === p;
  }

  /** Seat ``p``'s clock as shown, or null: "4:32" live, "23 h left" for a turn-based move. */
  text(p) {
    const ms = this.left(p);
    if (ms === null) return null;
    return this.live ? face(ms) : timeLeft(ms);
  }
}
