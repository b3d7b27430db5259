"""Ratings for people (issue 46): a rated table's game, once over, updates each person's rating
with OpenSkill's Plackett-Luce model, which takes 2, 3 and 4 players and ties.

Which games count is decided here, in one place (:func:`judge` and :meth:`Ratings.rate`):

- never a table whose deal a person chose, nor an aborted game;
- a person who resigned (at a table of two whose rule ends the game) lost, as recorded; a person
  for whom the stand-in played (they left: time, away, or a resignation played on) takes the
  last place, so that leaving never saves a rating, and the game changes nobody else's rating,
  since part of their game was played against a bot;
- bots have fixed ratings (:data:`BOT_RATINGS`, measured with ``piepmatz tournament``) and are
  never updated; a game of one person against bots counts only while the person's rating is
  provisional or a bot at the table is within reach (:data:`REACH`);
- the same people rated together count :data:`SAME_PEOPLE_PER_DAY` times in 24 hours.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from piepmatz.core.scoring import places, score_state

from .db import RATING_DONE, RATING_DUE, players, rating_history, seats, tables
from .players import Players
from .store import Store
from .vocabulary import Ending, TableStatus

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("piepmatz.server")

#: A newcomer's rating: OpenSkill's defaults.
MU = 25.0
SIGMA = 25.0 / 3
#: Each level's fixed rating (mu, sigma), measured with the project's tournament (see
#: docs/online.md, "Ratings", for the command and the run): never updated by a game.
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (-1.4, 2.6),
    "easy": (29.7, 1.7),
    "greedy": (32.2, 1.7),
    "medium": (38.9, 1.7),
    "hard": (68.7, 5.3),
}
#: A rating is provisional for a player's first rated games.
PROVISIONAL_GAMES = 10
#: Past their provisional games, a person's game against bots alone counts only while their mu
#: is at most this much above the best bot's at the table: winning against a bot far below
#: tells nothing, and would shrink their sigma (and raise the number shown) game after game.
REACH = 5.0
#: Rated games among the same people (two or more) that count in 24 hours.
SAME_PEOPLE_PER_DAY = 3
SAME_PEOPLE_WITHIN = timedelta(hours=24)


def shown(mu: float | None, sigma: float | None) -> int:
    """The number people see: ``1000 + 40 (mu - 3 sigma)``, OpenSkill's ordinal (a rating the
    player is very likely above) scaled; a newcomer shows 1000."""
    mu, sigma = (MU, SIGMA) if mu is None or sigma is None else (mu, sigma)
    return round(1000 + 40 * (mu - 3 * sigma))


def provisional(rated_games: int) -> bool:
    return rated_games < PROVISIONAL_GAMES


@dataclass(frozen=True)
class Verdict:
    """What a finished rated table's game does to ratings: each seat's place (1: first, ties
    share one), each person's player id by seat (``None``: a bot's seat), and the seats whose
    ratings change; or why it is not rated (``reason``)."""

    places: list[int]
    people: list[str | None]
    rated: list[int]
    reason: str | None = None
    #: The seats whose person left (a stand-in played for them): last, and the only rated.
    left: tuple[int, ...] = ()


def _not_rated(room: Room, reason: str) -> Verdict:
    return Verdict([], [None] * len(room.seats), [], reason)


def judge(room: Room) -> Verdict | None:
    """The verdict on ``room``'s finished game from what the table holds (``None``: not a rated
    table); the rules that need the database are :meth:`Ratings.rate`'s."""
    if not room.setup.rated or room.status != TableStatus.OVER or room.ending is None:
        return None
    ending = room.ending
    if ending["how"] == Ending.ABORTED:
        return _not_rated(room, "aborted")
    if room.deal is None or "secret" not in room.deal:
        return _not_rated(room, "a person chose the deal")
    people: list[str | None] = [s.player_hash if s.is_human else None for s in room.seats]
    humans = [i for i, s in enumerate(room.seats) if s.is_human]
    if any(people[i] is None for i in humans):
        return _not_rated(room, "a person sat down without a player key")
    if len({people[i] for i in humans}) < len(humans):
        return _not_rated(room, "one player sat at two seats")
    if any(not s.is_human and s.kind not in BOT_RATINGS for s in room.seats):
        return _not_rated(room, "a bot without a fixed rating")
    stood_in = ending.get("stood_in") or [0] * len(room.seats)
    if ending["how"] == Ending.RESIGNED:
        # A two-player game ended by a resignation: the result as recorded.
        winners = set(ending["winners"])
        results: list[tuple[float, ...]] = [
            (1.0 if i in winners else 0.0,) for i in range(len(room.seats))
        ]
        gone = [i for i in humans if stood_in[i] > 0]
    else:
        # Played out: E5's order of the whole table.
        results = [(-float(place),) for place in score_state(room.game.state).places()]
        resigned = set(ending.get("resigned", ()))
        gone = [i for i in humans if stood_in[i] > 0 or i in resigned]
    keys = [(0.0 if i in gone else 1.0, *result) for i, result in enumerate(results)]
    return Verdict(places(keys), people, gone or humans, left=tuple(gone))


class Ratings:
    """Rates finished rated tables and reads players' ratings."""

    def __init__(self, store: Store, players_: Players | None = None) -> None:
        self.store = store
        self.players = players_ or Players(store)

    async def rate(self, room: Room, now: datetime | None = None) -> Verdict | None:
        """Judge ``room``'s finished game and rate it if it counts, as of ``now`` (when it
        ended); the verdict, with the reason where it does not count. Once: the verdict is
        stored with the table (``tables.rating``), and a table already judged is not again."""
        verdict = judge(room)
        if verdict is None:
            return None
        now = now or datetime.now(UTC)
        ids = [p for p in verdict.people if p is not None]
        if verdict.reason is None:
            for player in ids:
                await self.players.ensure(player)
        async with self.store.writing() as conn:
            # The table's row is locked first: two processes judging one game (a sweep at
            # start beside the process that stored its end) take turns, and the second finds
            # it done.
            due = await conn.scalar(
                select(tables.c.rating).where(tables.c.id == room.id).with_for_update()
            )
            if due != RATING_DUE:
                return verdict
            await conn.execute(
                update(tables).where(tables.c.id == room.id).values(rating=RATING_DONE)
            )
            if verdict.reason is None:
                reason = await self._rate(conn, room, verdict, ids, now)
                if reason is not None:
                    verdict = Verdict(verdict.places, verdict.people, [], reason)
        if verdict.reason is not None:
            log.info("table %s is not rated: %s", room.id, verdict.reason)
        return verdict

    async def _rate(
        self,
        conn: AsyncConnection,
        room: Room,
        verdict: Verdict,
        ids: list[str],
        now: datetime,
    ) -> str | None:
        """Update the ratings of ``verdict.rated`` and their history; or why the game would
        farm a rating, changing nothing."""
        from openskill.models import PlackettLuce

        rows: dict[str, Any] = {
            str(row.id): row
            for row in await conn.execute(
                select(players.c.id, players.c.mu, players.c.sigma, players.c.rated_games)
                .where(players.c.id.in_(ids))
                .with_for_update()
            )
        }
        reason = await self._farmed(conn, room, verdict, rows, now)
        if reason is not None:
            return reason
        model = PlackettLuce()
        teams = []
        for i, seat in enumerate(room.seats):
            if seat.is_human:
                row = rows[str(verdict.people[i])]
                mu, sigma = (MU, SIGMA) if row.mu is None else (float(row.mu), float(row.sigma))
            else:
                mu, sigma = BOT_RATINGS[seat.kind]
            teams.append([model.rating(mu=mu, sigma=sigma)])
        after = model.rate(teams, ranks=[float(p) for p in verdict.places])
        for i in verdict.rated:
            rated = verdict.people[i]
            assert rated is not None
            mu, sigma = after[i][0].mu, after[i][0].sigma
            await conn.execute(
                update(players)
                .where(players.c.id == rated)
                .values(mu=mu, sigma=sigma, rated_games=players.c.rated_games + 1)
            )
            await conn.execute(
                insert(rating_history).values(
                    player_id=rated,
                    table_id=room.id,
                    mu=mu,
                    sigma=sigma,
                    at=now,
                    place=verdict.places[i],
                    players=len(room.seats),
                )
            )
        return None

    async def _farmed(
        self,
        conn: AsyncConnection,
        room: Room,
        verdict: Verdict,
        rows: dict[str, Any],
        now: datetime,
    ) -> str | None:
        """Why the game would farm a rating (the anti-farming rules), or ``None``. A person who
        left loses, and a loss is never farmed."""
        if verdict.left:
            return None
        people = sorted(p for p in verdict.people if p is not None)
        if len(people) == 1:
            row = rows[people[0]]
            best = max(BOT_RATINGS[s.kind][0] for s in room.seats if not s.is_human)
            if provisional(row.rated_games) or row.mu is None or row.mu <= best + REACH:
                return None
            return "the bots at the table are far below the player's rating"
        since = now - SAME_PEOPLE_WITHIN
        earlier = list(
            await conn.scalars(
                select(rating_history.c.table_id)
                .where(
                    rating_history.c.player_id.in_(people),
                    rating_history.c.at > since,
                    rating_history.c.at <= now,
                )
                .distinct()
            )
        )
        if not earlier:
            return None
        together: dict[str, set[str]] = {t: set() for t in earlier}
        for seat in await conn.execute(
            select(seats.c.table_id, seats.c.player_hash).where(
                seats.c.table_id.in_(earlier), seats.c.player_hash.is_not(None)
            )
        ):
            together[seat.table_id].add(seat.player_hash)
        same = sum(found == set(people) for found in together.values())
        if same >= SAME_PEOPLE_PER_DAY:
            return f"these players were rated together {same} times in the last 24 hours"
        return None

    async def page(self, page: str) -> dict[str, object] | None:
        """A player's page by its id: their username, rating and rated games (``None``: no
        such page). Nothing in it is a key, a key's hash or an unfinished game's."""
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(
                        players.c.id,
                        players.c.username,
                        players.c.mu,
                        players.c.sigma,
                        players.c.rated_games,
                        players.c.created,
                    ).where(players.c.page == page)
                )
            ).first()
            if row is None:
                return None
            history = (
                await conn.execute(
                    select(
                        rating_history.c.table_id,
                        rating_history.c.mu,
                        rating_history.c.sigma,
                        rating_history.c.at,
                        rating_history.c.place,
                        rating_history.c.players,
                    )
                    .where(rating_history.c.player_id == row.id)
                    .order_by(rating_history.c.at.desc(), rating_history.c.id.desc())
                    .limit(HISTORY_SHOWN)
                )
            ).all()
        return {
            "page": page,
            "username": row.username,
            "rating": shown(row.mu, row.sigma),
            "mu": None if row.mu is None else round(float(row.mu), 2),
            "sigma": None if row.sigma is None else round(float(row.sigma), 2),
            "rated_games": row.rated_games,
            "provisional": provisional(row.rated_games),
            "since": row.created.date().isoformat(),
            "history": [
                {
                    "table": h.table_id,
                    "rating": shown(h.mu, h.sigma),
                    "at": h.at.isoformat(),
                    "place": h.place,
                    "players": h.players,
                }
                for h in history
            ],
        }

    async def shown_for(self, ids: Sequence[str | None]) -> list[int | None]:
        """The rating shown for each player id (``None`` for a bot's seat or an empty one)."""
        wanted = [i for i in ids if i is not None]
        found: dict[str, tuple[float | None, float | None]] = {}
        if wanted:
            async with self.store.reading() as conn:
                for row in await conn.execute(
                    select(players.c.id, players.c.mu, players.c.sigma).where(
                        players.c.id.in_(wanted)
                    )
                ):
                    found[row.id] = (row.mu, row.sigma)
        return [None if i is None else shown(*found.get(i, (None, None))) for i in ids]

    async def pages_of(self, ids: Sequence[str | None]) -> list[str | None]:
        """Each player's page (``None`` for no player, or a player with no row yet)."""
        wanted = [i for i in ids if i is not None]
        found: dict[str, str | None] = {}
        if wanted:
            async with self.store.reading() as conn:
                for row in await conn.execute(
                    select(players.c.id, players.c.page).where(players.c.id.in_(wanted))
                ):
                    found[row.id] = row.page
        return [None if i is None else found.get(i) for i in ids]


#: The rated games a player's page lists, the latest first.
HISTORY_SHOWN = 100


def bot_shown(kind: str) -> int | None:
    """The rating shown for a bot level (``None``: it has no fixed rating)."""
    fixed = BOT_RATINGS.get(kind)
    return None if fixed is None else shown(*fixed)


__all__ = [
    "BOT_RATINGS",
    "PROVISIONAL_GAMES",
    "REACH",
    "SAME_PEOPLE_PER_DAY",
    "Ratings",
    "Verdict",
    "bot_shown",
    "judge",
    "provisional",
    "shown",
]
