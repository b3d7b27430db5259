"""Hints at the table: the hard bot's suggestion for a person's decision, with its estimate.

A hint is computed from the person's view only (:func:`piepmatz.bots.analysis.hint`), on a worker
thread, so the table never waits for it; a hint that arrives after the decision was taken is
dropped. A table may have hints turned off (hot-seat players may want that).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from piepmatz.bots.analysis import HINT_BOT, HINT_ITERATIONS, Hint, hint
from piepmatz.bots.analysis import hint_seed as review_hint_seed
from piepmatz.core import Action, Game, PlayerView
from piepmatz.i18n import _
from piepmatz.text.numbers import count, decimal, percent
from piepmatz.text.words import bot_level

from .render import action_text

if TYPE_CHECKING:  # the text mode shows hints without Textual
    from textual.app import App


def hint_seed(game: Game) -> int:
    """The hint's seed for the decision ``game`` stands at: the one scheme of
    :func:`piepmatz.bots.analysis.hint_seed`, so that the server hints the same."""
    return review_hint_seed(game.options.seed, len(game.actions), game.state.current_player)


def hint_text(h: Hint, notation: bool = False, said: str | None = None) -> str:
    """The hint in words (or, with ``notation``, as the action to type; or as ``said``, the
    move as a list offers it) and its estimate."""
    e = h.estimate
    action = Action.from_id(e.action)
    return _(
        "{action} — expected lead {lead} ± {spread} points, win chance {win} "
        "(from your view, {worlds} sampled worlds)"
    ).format(
        action=said or (action if notation else action_text(action)),
        lead=decimal(e.lead, signed=True),
        spread=decimal(e.lead_spread),
        win=percent(e.win),
        worlds=count(e.worlds),
    )


class HintGiver:
    """Asks for hints on a worker thread; the screen shows each beside the decision it answers
    (``show``), so that a hint goes with its decision and covers nothing."""

    def __init__(
        self, enabled: bool = True, bot: str = HINT_BOT, iterations: int = HINT_ITERATIONS
    ) -> None:
        self.enabled = enabled
        self.bot = bot
        self.iterations = iterations
        #: The last hint shown, with the view it answers.
        self.last: tuple[PlayerView, Hint] | None = None
        self.busy = False

    def request(
        self,
        app: App[object],
        view: PlayerView | None,
        seed: int,
        current: Callable[[], PlayerView | None],
        show: Callable[[Hint | None], None],
    ) -> None:
        """Start a hint for ``view`` (a person's decision, or None: there is none to hint).

        ``show(None)`` says that the bot is thinking, ``show(hint)`` gives the hint. ``current``
        gives the decision's view when the hint is ready: a hint for a decision already taken is
        not shown.
        """
        if not self.enabled:
            app.notify(_("Hints are turned off at this table."), title=_("Hint"), timeout=3)
            return
        if view is None or not view.is_my_turn:
            app.notify(_("There is no decision of yours to hint now."), title=_("Hint"), timeout=3)
            return
        if self.busy:
            return
        self.busy = True
        show(None)
        bot, iterations = self.bot, self.iterations

        def work() -> None:
            try:
                found = hint(view, seed, bot, iterations)
            except Exception as exc:  # a plugin bot may fail; the game goes on without a hint
                app.call_from_thread(self._failed, app, str(exc))
                return
            app.call_from_thread(self._show, view, found, current, show)

        app.run_worker(work, thread=True, group="hint", exclusive=True)

    def _failed(self, app: App[object], message: str) -> None:
        self.busy = False
        app.notify(_("No hint: {reason}").format(reason=message), title=_("Hint"), severity="error")

    def _show(
        self,
        view: PlayerView,
        found: Hint,
        current: Callable[[], PlayerView | None],
        show: Callable[[Hint | None], None],
    ) -> None:
        self.busy = False
        if current() != view:
            return  # the decision was taken meanwhile
        self.last = view, found
        show(found)


def thinking_text(bot: str = HINT_BOT) -> str:
    """What the screen says while the hint's bot thinks."""
    return _("The {bot} bot is thinking about your move…").format(bot=bot_level(bot))


def hint_line(h: Hint) -> str:
    """The hint as the screen shows it beside the decision: who suggests, what and why."""
    title = _("Hint ({bot} bot)").format(bot=bot_level(h.bot))
    return f"{title}: {hint_text(h)}"
