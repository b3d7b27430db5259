"""Advice for the seat to move: what each legal action would do (previews) and what the hint
bot would play (hints), both worked out from the seat's view alone, never from a hidden card.
"""

from __future__ import annotations

import logging
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from piepmatz.bots.analysis import hint_seed
from piepmatz.bots.base import BotMoveError
from piepmatz.core import State, view_of

from .messages import ActionPreview, HintAnswer, Previews
from .seats import RoomError
from .vocabulary import ErrorCode, TableStatus

if TYPE_CHECKING:
    from .room import Room

log = logging.getLogger("piepmatz.server")


class Advice:
    """One table's previews and hints."""

    def __init__(self, room: Room) -> None:
        self.room = room
        #: Seats whose hint is being worked out (one at a time per seat).
        self.hinting: set[int] = set()
        #: The last hint per seat, with the move it answers: asked again, it is sent again.
        self.hints_given: dict[int, tuple[int, str]] = {}

    def _decision(self, seat: int, move: int, what: str) -> State:
        """The state at ``move`` if it is ``seat``'s decision now; else :class:`RoomError`
        saying why there is nothing to ``what`` (preview, hint)."""
        room = self.room
        if move != room.move:
            raise RoomError(
                ErrorCode.STALE, f"{what} for move {move}, but the game is at move {room.move}"
            )
        state = room.game.state
        if room.status != TableStatus.PLAYING or state.is_over() or state.current_player != seat:
            raise RoomError(ErrorCode.NOT_YOUR_TURN, f"it is not your decision: nothing to {what}")
        return state

    def previews(self, seat: int, move: int) -> str:
        """What each of ``seat``'s legal actions at ``move`` would do, computed from the seat's
        view alone by the terminal game's preview (a sampled world, so nothing hidden leaks)."""
        from piepmatz.text.preview import preview

        state = self._decision(seat, move, "preview")
        view = view_of(state, seat)
        out = []
        names = self.room.seat_names()
        for action in state.legal_actions():
            shown = preview(view, action.id, seed=move, names=names)
            out.append(
                ActionPreview(action=str(action), headline=shown.headline, steps=list(shown.steps))
            )
        return Previews(move=move, previews=out).model_dump_json()

    async def hint(self, seat: int, move: int) -> str:
        """The ``hint`` message for ``seat``'s decision at ``move``: the hint bot's choice and
        its estimate, searched in the bot pool from the seat's view only.

        Raises :class:`RoomError` when hints are off, the move is not the current one, the
        decision is not the seat's, or the seat's previous hint is still being worked out.
        """
        room = self.room
        if not room.hints:
            raise RoomError(
                ErrorCode.HINTS_OFF, "hints are off at this table: not every person allowed them"
            )
        state = self._decision(seat, move, "hint")
        given = self.hints_given.get(seat)
        if given is not None and given[0] == move:
            return given[1]
        if seat in self.hinting:
            raise RoomError(ErrorCode.HINT_BUSY, "your hint is being worked out: wait for it")
        self.hinting.add(seat)
        try:
            seed = hint_seed(room.game.options.seed, move, seat)
            found = await room.bots.hint(view_of(state, seat), seed, owner=room.id)
        except (BotMoveError, BrokenProcessPool, ValueError, TimeoutError) as exc:
            log.error("table %s: hint for seat %d failed: %r", room.id, seat, exc)
            raise RoomError(
                ErrorCode.HINT_FAILED, "no hint: the search failed; ask again"
            ) from None
        finally:
            self.hinting.discard(seat)
        if move != room.move:
            raise RoomError(
                ErrorCode.STALE, f"the hint for move {move} came after the move was taken"
            )
        e = found.estimate
        text = HintAnswer(
            move=move,
            action=e.text,
            bot=found.bot,
            lead=round(e.lead, 3),
            lead_spread=round(e.lead_spread, 3),
            win=round(e.win, 4),
            win_spread=round(e.win_spread, 4),
            worlds=e.worlds,
        ).model_dump_json()
        self.hints_given[seat] = (move, text)
        return text
