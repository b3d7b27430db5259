"""The screens of ``piepmatz play``, one module each.

Data flows down: a screen gets what it shows as attributes (the session, the seat labels) and
redraws from the seat's view. Intent flows up: a screen posts a message (start a game, open a
save, leave) and the app, which owns the navigation, acts on it. Bots think in a worker thread
of the table screen, the only screen that changes the game.
"""

from .dialogs import ChoiceDialog, ConfirmDialog, HandoffScreen, PathDialog
from .end import EndScreen
from .newgame import NewGameScreen
from .replay import ReplayScreen
from .review import ReviewScreen
from .rules import RulesScreen
from .table import TableScreen
from .tutorial import LessonEndScreen, TutorialScreen
from .why import WhyScreen
from .widgets import ChoiceList

__all__ = [
    "ChoiceDialog",
    "ChoiceList",
    "ConfirmDialog",
    "EndScreen",
    "HandoffScreen",
    "LessonEndScreen",
    "NewGameScreen",
    "PathDialog",
    "ReplayScreen",
    "ReviewScreen",
    "RulesScreen",
    "TableScreen",
    "TutorialScreen",
    "WhyScreen",
]
