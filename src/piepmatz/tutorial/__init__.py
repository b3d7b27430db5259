"""The first game, guided: a fixed deal and a script of moves that teach the game in about five
minutes, in the player's language.

The script (``script.json``) is data: the deal (the cards that matter; every other bird lies at
the bottom of the bird deck and the other feeder cards stay in the box, so that the feeder deck
runs out and the game ends soon), then every move of both seats in order, each learner's step
with its id, the rule it teaches and the events it promises. ``<lang>.json`` holds each step's
texts: what to do and why (``do``), the sentence that refuses any other move (``refuse``) and
what happened, in the learner's words (``after``). Birds in the texts are written by their code
in braces (``{BU3m}``) and told in words (:func:`say`), so that each interface draws them its
own way.

The script holds no rule: the core plays every move, and :class:`Lesson` only compares the
learner's move with the scripted one. A test plays the script through the engine in every
language, so a scripted move that is illegal or a promised event that does not come fails it.

>>> lesson = Lesson()
>>> lesson.step.id, lesson.step.rule
('first_play', 'T1.1')
>>> lesson.move("play GR2m 1").accepted
False
>>> lesson.move("play BU3m 1").accepted, lesson.step.id
(True, 'no_chase_collect')
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from piepmatz.core import Action, Rules, State, state_from_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_NAMES, SPECIES, THREE_PLUS, parse_bird
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.events import Event
from piepmatz.i18n import LANGUAGES, current_language, written_in
from piepmatz.text.words import Part, bird_text

#: The learner's seat; the other seat is the bot, whose moves the script makes.
LEARNER = 0
#: The texts every step of the learner has.
STEP_TEXTS = ("do", "refuse", "after")
#: The texts of the lesson as a whole.
LESSON_TEXTS = ("title", "intro", "bot_turn", "end")
_BIRD = re.compile(r"\{([A-Z]{2}[1-6][mf])\}")


@dataclass(frozen=True)
class Step:
    """One scripted move: the learner's (with an ``id`` and the ``rule`` it teaches) or the
    bot's (no id)."""

    seat: int
    action: Action
    id: str | None = None
    rule: str | None = None
    #: The kinds of event the move must bring about (a test holds the script to them).
    events: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What became of a move the learner tried."""

    accepted: bool
    #: The refusal's sentence, or what happened (the step's ``after``), in the language, as
    #: parts (:func:`say`).
    parts: tuple[Part, ...]
    #: The events the move (and the bot's moves after it) brought, in order.
    events: tuple[Event, ...] = ()

    @property
    def message(self) -> str:
        """The sentence as plain text."""
        return "".join(part.text for part in self.parts)


@cache
def _script() -> dict[str, Any]:
    text = resources.files("piepmatz.tutorial").joinpath("script.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def steps() -> tuple[Step, ...]:
    """Every scripted move, both seats', in the order they are played."""
    return tuple(
        Step(
            seat=s["seat"],
            action=Action.parse(s["action"]),
            id=s.get("id"),
            rule=s.get("rule"),
            events=tuple(s.get("events", ())),
        )
        for s in _script()["steps"]
    )


def deal() -> State:
    """The lesson's starting state, read through the state format's validation."""
    d = _script()["deal"]
    n = d["players"]
    empty: list[list[str]] = [[] for _ in range(n)]
    doc: dict[str, Any] = {
        "format": "piepmatz-state",
        "version": 1,
        "players": n,
        "rules": Rules.preset(d["rules"]).to_json(),
        "first_player": d["first_player"],
        "turn": 1,
        "turn_player": d["first_player"],
        "current_player": d["first_player"],
        "phase": "play",
        "end_triggered": None,
        "rows": d["rows"],
        "column": [{"seed": seed, "pest": pest} for seed, pest in d["column"]],
        "display": d["display"],
        "hands": d["hands"],
        "collections": empty,
        "seeds_seen": empty,
        "seeds_blind": empty,
        "pests": empty,
        "feeder_deck": d["feeder_deck"],
        "rng": d["rng"],
    }
    removed: set[str] = set()
    if n == 2:  # S2: one species and the 3+ cards out
        s = SPECIES.index(d["removed_species"])
        doc["removed_birds"] = list(BIRD_NAMES[s * 12 : s * 12 + 12])
        doc["removed_feeder"] = [FEEDER_NAMES[f] for f in sorted(THREE_PLUS)]
        removed = {*doc["removed_birds"], *doc["removed_feeder"]}
    used = removed | {c for row in d["rows"] for c in row} | {*d["display"], *d["feeder_deck"]}
    used |= {c for seed, pest in d["column"] for c in (seed, pest) if c}
    used |= {c for hand in d["hands"] for c in hand} | set(d["bird_deck"])
    doc["bird_deck"] = d["bird_deck"] + [b for b in BIRD_NAMES if b not in used]
    doc["gone_feeder"] = [f for f in FEEDER_NAMES if f not in used]
    return state_from_json(doc)


@cache
def texts(lang: str) -> dict[str, Any]:
    """The lesson's texts in ``lang``: ``lesson`` (title, intro, …) and ``steps`` by id."""
    if lang not in LANGUAGES:
        raise ValueError(f"no tutorial in language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    lang = written_in(lang, "piepmatz.tutorial", "{lang}.json")
    path = resources.files("piepmatz.tutorial").joinpath(f"{lang}.json")
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def say(text: str) -> list[Part]:
    """A tutorial text as parts: each ``{BU3m}`` a bird told in the current language."""
    parts: list[Part] = []
    at = 0
    for match in _BIRD.finditer(text):
        if match.start() > at:
            parts.append(Part(text[at : match.start()]))
        bird = parse_bird(match.group(1))
        parts.append(Part(bird_text(bird), bird=bird))
        at = match.end()
    if at < len(text):
        parts.append(Part(text[at:]))
    return parts


def plain(text: str) -> str:
    """A tutorial text as plain text in the current language."""
    return "".join(part.text for part in say(text))


@dataclass
class Lesson:
    """The first game in progress: the learner's next step, and the learner's moves checked
    against it. The bot's scripted moves are played as soon as it is the bot's turn."""

    state: State = field(default_factory=deal)
    at: int = 0
    _steps: Sequence[Step] = field(default_factory=steps, repr=False)

    def __post_init__(self) -> None:
        self._play_bot()

    @classmethod
    def resume(cls, done: int) -> Lesson:
        """The lesson after the learner's first ``done`` steps (a lesson left and taken up
        again: the steps done are all an interface needs to remember)."""
        lesson = cls()
        learner = [s for s in lesson._steps if s.seat == LEARNER]
        if not 0 <= done <= len(learner):
            raise ValueError(f"the lesson has {len(learner)} steps, not {done}")
        for step in learner[:done]:
            lesson.move(step.action)
        return lesson

    @property
    def steps(self) -> int:
        """How many steps the learner has in all."""
        return sum(1 for s in self._steps if s.seat == LEARNER)

    @property
    def done(self) -> int:
        """How many of the learner's steps are done."""
        return sum(1 for s in self._steps[: self.at] if s.seat == LEARNER)

    @property
    def step(self) -> Step | None:
        """The learner's next step; ``None`` once the lesson is over."""
        return self._steps[self.at] if self.at < len(self._steps) else None

    @property
    def over(self) -> bool:
        return self.at >= len(self._steps)

    def text(self, name: str) -> str:
        """The current step's text ``name`` (``do``, ``refuse``, ``after``) as plain text."""
        return "".join(part.text for part in self.parts(name))

    def parts(self, name: str) -> tuple[Part, ...]:
        """The current step's text ``name`` as parts (:func:`say`)."""
        step = self.step
        if step is None or step.id is None:
            raise ValueError("the lesson is over: no step to tell")
        return tuple(say(texts(current_language())["steps"][step.id][name]))

    def move(self, action: Action | str | int) -> Outcome:
        """Play the learner's move if it is the scripted one; otherwise refuse it, changing
        nothing, with the sentence that explains the rule."""
        step = self.step
        if step is None:
            return Outcome(False, tuple(say(texts(current_language())["lesson"]["end"])))
        try:
            tried = _action(action)
        except PiepmatzError:
            tried = None
        if tried != step.action:
            return Outcome(False, self.parts("refuse"))
        after = self.parts("after")
        start = len(self.state.events or [])
        self.state.apply(step.action, LEARNER)
        self.at += 1
        self._play_bot()
        return Outcome(True, after, tuple((self.state.events or [])[start:]))

    def _play_bot(self) -> None:
        while not self.over and self._steps[self.at].seat != LEARNER:
            step = self._steps[self.at]
            self.state.apply(step.action, step.seat)
            self.at += 1


def _action(action: Action | str | int) -> Action:
    if isinstance(action, Action):
        return action
    if isinstance(action, int):
        return Action.from_id(action)
    return Action.parse(action)
