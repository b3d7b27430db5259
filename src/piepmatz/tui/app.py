"""The Textual front end of ``piepmatz play``: the app owns the navigation between the screens
(``screens/``), which ask for it with messages; files are opened and saved here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandInput, CommandPalette
from textual.screen import Screen

from piepmatz.core import Rules
from piepmatz.i18n import N_, _, current_language
from piepmatz.records import GameFileError, Loaded, load_game
from piepmatz.text.guide import guide_markdown
from piepmatz.text.rulebook import rules_markdown

from .learning import Progress, load_progress, progress_path, resume_lesson, save_progress
from .online import Seating
from .screens import (
    ConfirmDialog,
    NewGameScreen,
    PathDialog,
    ReplayScreen,
    RulesScreen,
    TableScreen,
    TutorialScreen,
)
from .screens.messages import (
    NewGame,
    OpenSave,
    PlayAgain,
    SaveGame,
    ShowReplay,
    StartGame,
    StartLesson,
)
from .screens.widgets import translate_bindings
from .session import (
    SaveFileError,
    Session,
    autosave_path,
    data_dir,
    default_seats,
    load_kept,
    suggest_save_path,
)

if TYPE_CHECKING:  # the online screen needs the WebSocket client: imported only for it
    from .screens.online import OnlineTableScreen

T = TypeVar("T")

#: Textual's own texts of the command palette (Ctrl+P), in English as Textual shows them, marked
#: here so that the catalogues carry them: the palette's key in the footer and its tooltip, the
#: search fields' placeholders, and the titles and help texts of the system commands that
#: :meth:`App.get_system_commands` yields. The app shows them through ``_``; a text Textual
#: changes is shown in English until it is added here (a test compares the two).
PALETTE_TEXTS = (
    N_("palette"),
    N_("Open the command palette"),
    N_("Search for commands…"),
    N_("Search for themes…"),
    N_("Theme"),
    N_("Change the current theme"),
    N_("Quit"),
    N_("Quit the application as soon as possible"),
    N_("Keys"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Hide the keys and widget help panel"),
    N_("Minimize"),
    N_("Minimize the widget and restore to normal size"),
    N_("Maximize"),
    N_("Maximize the focused widget"),
    N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"),
)


class PiepmatzApp(App[None]):
    """``piepmatz play``. With ``seats`` (or a resumed ``session``) the game starts at once."""

    TITLE = "Piepmatz"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False),
        # How to play, one key away on every screen (the first screen shows it on a button).
        Binding("f1", "guide", N_("How to play"), show=False),
    ]

    def __init__(
        self,
        session: Session | None = None,
        seats: Sequence[str] | None = None,
        names: Sequence[str | None] | None = None,
        rules: str = "standard",
        seed: int | None = None,
        bot_delay: float = 0.6,
        keep: Path | None = None,
        hints: bool = True,
        lesson: bool = False,
        online: Seating | None = None,
    ) -> None:
        super().__init__()
        # The command palette's key in the footer ("palette") and the quit key, in the player's
        # language; the new-game screen translates them again when the language changes.
        translate_bindings(self)
        self.session = session
        #: Whether a new table allows hints (``--no-hints`` turns them off).
        self.hints = hints
        self.seats = list(seats) if seats else None
        #: The people's names (``--names``): with ``seats``, one a seat; without, the first
        #: seats' on the new-game screen.
        self.names = list(names) if names else None
        self.rules = rules
        self.seed = seed
        self.bot_delay = bot_delay
        #: The autosave: every move of a game is kept there until the game is over.
        self.keep = autosave_path() if keep is None else keep
        self.replay: Loaded | None = None
        #: Birds as the engine's codes instead of tiles, on every screen (``c`` switches:
        #: :func:`~piepmatz.tui.screens.widgets.toggle_codes`).
        self.codes = False
        #: ``piepmatz tutorial``: the guided first game opens at once.
        self.lesson = lesson
        #: Where the lesson's steps done, and whether a game was played, are kept.
        self.learning = progress_path()
        #: ``piepmatz play --server``: the seat taken at an online table, played at once, and
        #: its screen (whether its game ended, once the app has stopped).
        self.online = online
        self.online_screen: OnlineTableScreen | None = None

    @classmethod
    def for_replay(cls, loaded: Loaded) -> PiepmatzApp:
        app = cls()
        app.replay = loaded
        return app

    def on_mount(self) -> None:
        if self.online is not None:
            # Imported only for an online table: it needs the WebSocket client.
            from .screens.online import OnlineTableScreen

            self.online_screen = OnlineTableScreen(self.online)
            self.push_screen(self.online_screen)
        elif self.replay is not None:
            loaded = self.replay
            self.push_screen(ReplayScreen(loaded.game, loaded.seats, loaded.names))
        elif self.lesson:
            self.push_screen(self._lesson())
        elif self.session is not None:
            self.push_screen(self._table(self.session))
        elif self.seats is not None:
            session = Session.new(
                self.seats, self.rules, self.seed, hints=self.hints, names=self.names
            )
            self.push_screen(self._table(session))
        elif self.names is not None:
            people = len(self.names)
            seats = default_seats(max(3, people), people)
            self.push_screen(self._new_game_screen(self.rules, self.seed, seats, self.names))
        else:
            self.push_screen(self._new_game_screen(self.rules, self.seed))

    async def action_quit(self) -> None:
        """Ctrl+Q: asked first while a game is in progress, as on the table."""
        tables = [s for s in self.screen_stack if isinstance(s, TableScreen)]
        if tables:
            tables[0].leave(None)
        elif self.online is not None:
            from .screens.online import OnlineTableScreen

            online = [s for s in self.screen_stack if isinstance(s, OnlineTableScreen)]
            if online:
                online[0].leave()
            else:
                self.exit()
        else:
            self.exit()

    # ------------------------------------------------------------- the command palette

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's system commands, the same ones, with their title and help translated."""
        for command in super().get_system_commands(screen):
            yield command._replace(title=_(command.title), help=_(command.help))

    def on_command_palette_opened(self, message: CommandPalette.Opened) -> None:
        """The search field's placeholder of a palette just opened (commands, themes)."""
        for palette in self.screen_stack:
            if isinstance(palette, CommandPalette):
                for field in palette.query(CommandInput):
                    field.placeholder = _(field.placeholder)

    def _table(self, session: Session) -> TableScreen:
        return TableScreen(session, self.bot_delay, self.keep)

    def _new_game_screen(
        self,
        rules: str,
        seed: int | None,
        seats: Sequence[str] | None = None,
        names: Sequence[str | None] | None = None,
    ) -> NewGameScreen:
        """The first screen; it offers the lesson first to someone who has not played here."""
        kept = load_kept(self.keep)
        newcomer = kept is None and not load_progress(self.learning).played
        return NewGameScreen(rules, seed, kept, newcomer, seats, names)

    def _lesson(self) -> TutorialScreen:
        """The lesson where it was left (from the start once it was finished)."""
        lesson = resume_lesson(self.learning)
        if lesson.done > 0:
            self.notify(
                _("The lesson goes on at step {step} of {steps}.").format(
                    step=lesson.done + 1, steps=lesson.steps
                )
            )
        return TutorialScreen(lesson, self.learning)

    def action_guide(self) -> None:
        """The player's guide, then the rules (of the game in play, else the standard ones)."""
        if isinstance(self.screen, RulesScreen):
            return
        tables = [s for s in self.screen_stack if isinstance(s, TableScreen)]
        rules = tables[0].session.game.state.rules if tables else Rules.preset("standard")
        guide = guide_markdown(current_language())
        self.push_screen(RulesScreen(rules.name, rules_markdown(rules), guide))

    # -------------------------------------------------------------- what the screens ask

    def on_start_game(self, message: StartGame) -> None:
        progress = load_progress(self.learning)
        if not progress.played:
            save_progress(Progress(progress.done, played=True), self.learning)
        self.switch_screen(self._table(message.session))

    def on_start_lesson(self, message: StartLesson) -> None:
        self.switch_screen(self._lesson())

    def on_new_game(self, message: NewGame) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(self._new_game_screen(message.rules, None, message.seats, message.names))

    def on_play_again(self, message: PlayAgain) -> None:
        from .screens.online import OnlineTableScreen

        self.online = message.seating
        self.online_screen = OnlineTableScreen(message.seating)
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(self.online_screen)

    def on_show_replay(self, message: ShowReplay) -> None:
        self.push_screen(ReplayScreen(message.game, message.seats, message.names))

    def on_open_save(self, message: OpenSave) -> None:
        if message.replay:
            self._open(
                _("Replay the game saved in:"),
                lambda path: load_game(path, finished=True),
                lambda g: self.push_screen(ReplayScreen(g.game, g.seats, g.names)),
            )
        else:
            self._open(
                _("Resume the game saved in:"),
                Session.load,
                lambda s: self.switch_screen(self._table(s)),
            )

    def on_save_game(self, message: SaveGame) -> None:
        session = message.session

        def save(path: str | None, replace: bool = False) -> None:
            if path is None:
                return
            try:
                session.save(path, replace=replace)
            except SaveFileError as exc:
                if Path(path).is_file() and not replace:
                    question = _("{path} exists already. Replace it with this game?").format(
                        path=path
                    )
                    self.push_screen(
                        ConfirmDialog(question, _("Replace"), _("Keep it")),
                        lambda yes: save(path, replace=True) if yes else None,
                    )
                    return
                self.notify(str(exc), title=_("Not saved"), severity="error")
                return
            self.notify(_("Saved to {path}").format(path=path), title=_("Saved"))

        suggested = suggest_save_path(session)
        try:
            suggested.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            suggested = Path(suggested.name)  # no data directory: the current one
        self.push_screen(PathDialog(_("Save the game to:"), str(suggested)), save)

    def _open(self, prompt: str, load: Callable[[str], T], loaded: Callable[[T], object]) -> None:
        """Ask for a path and ``load`` it; a broken file is told, and nothing changes."""

        def open_path(path: str | None) -> None:
            if path is None:
                return
            try:
                value = load(path)
            except GameFileError as exc:
                self.notify(str(exc), title=_("Cannot open"), severity="error", timeout=10)
                return
            loaded(value)

        saves = data_dir() / "saves"
        recent = (
            sorted(saves.glob("*.json"), key=lambda p: p.stat().st_mtime) if saves.is_dir() else []
        )
        self.push_screen(PathDialog(prompt, str(recent[-1] if recent else saves)), open_path)
