"""HTTP for learning the game: the player's guide (``/api/guide``), the guided first game
(``/api/tutorial``) and the rule behind each kind of log entry (``/api/why``).

The tutorial keeps nothing on the server: the page remembers how many of the lesson's steps are
done, and each request replays the script up to there (a dozen moves of the core), so a lesson
can be left and taken up again in another tab or days later, and a stranger can make the
server hold nothing. What a request names is bounded: a step count within the script, an action
of at most a hundred characters that the core reads or refuses.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from piepmatz.core import views_to_json
from piepmatz.core.cards import BIRD_NAMES, FEEDER_EGGS, FEEDER_NAMES
from piepmatz.core.events import event_to_json
from piepmatz.core.rules import Rules
from piepmatz.core.scoring import score_state
from piepmatz.i18n import current_language
from piepmatz.text.guide import Column, Picture, Row, guide
from piepmatz.text.scoresheet import explain, verdict
from piepmatz.text.why import whys
from piepmatz.text.words import bot_name, seat_name, told
from piepmatz.tutorial import LEARNER, Lesson, say, texts

from ..fanout import mated_pairs, strengths

router = APIRouter(prefix="/api")


class TutorialMove(BaseModel):
    """The learner's move at the step after ``done`` steps."""

    done: int = Field(ge=0, le=100)
    action: str = Field(max_length=100)


def _lesson(done: int) -> Lesson:
    try:
        return Lesson.resume(done)
    except ValueError as exc:
        raise HTTPException(422, f"done: {exc}") from None


def _parts(text: str) -> list[dict[str, Any]]:
    return [part.to_json() for part in say(text)]


def lesson_payload(lesson: Lesson) -> dict[str, Any]:
    """The lesson as the page draws it: the learner's view and log (the fields of a table's
    ``state`` message), the step with what to do and what to highlight, the lesson's texts."""
    lang = current_language()
    state = lesson.state
    names = [seat_name(LEARNER), bot_name(1)]
    view = views_to_json(state, {LEARNER})[LEARNER]
    over = state.is_over()
    if over:
        view |= {"blind_seeds": [[FEEDER_NAMES[f] for f in s] for s in state.seeds_blind]}
    events = state.events or []
    step = lesson.step
    actions = state.legal_actions() if step is not None else []
    sheet = score_state(state) if over else None
    piles = [state.seed_pile(p) for p in range(state.num_players)]
    words = texts(lang)
    return {
        "done": lesson.done,
        "steps": lesson.steps,
        "lesson": {name: _parts(text) for name, text in words["lesson"].items()},
        "step": None
        if step is None or step.id is None
        else {
            "id": step.id,
            "rule": step.rule,
            "do": _parts(words["steps"][step.id]["do"]),
            "highlight": step.action.to_json(),
        },
        "names": names,
        "state": {
            "view": view,
            "events": [event_to_json(e) for e in events],
            "log_parts": [[p.to_json() for p in told(e, names)] for e in events],
            "legal": [str(a) for a in actions],
            "choices": [a.to_json() for a in actions],
            "strengths": strengths(state),
            "mated": mated_pairs(state),
            "result": sheet.to_json() if sheet else None,
            "explained": [
                explain(sheet, state.rules, state.collections, piles, p)
                for p in range(state.num_players)
            ]
            if sheet
            else None,
        },
    }


@router.get("/tutorial")
async def tutorial(done: int = 0) -> dict[str, Any]:
    """The lesson after ``done`` of the learner's steps, in the request's language."""
    return lesson_payload(_lesson(done))


@router.post("/tutorial")
async def tutorial_move(move: TutorialMove) -> dict[str, Any]:
    """The learner's move: played if it is the step's, else refused with the sentence that
    explains the rule (nothing changes); the lesson as it then stands."""
    lesson = _lesson(move.done)
    outcome = lesson.move(move.action)
    return {
        "accepted": outcome.accepted,
        "message": [p.to_json() for p in outcome.parts],
        **lesson_payload(lesson),
    }


def picture_json(picture: Picture) -> dict[str, Any]:
    """A picture of the guide as fields, for the page to draw with its own cards."""
    if isinstance(picture, Row):
        return {
            "kind": "row",
            "perch": BIRD_NAMES[picture.perch],
            "ground": [BIRD_NAMES[b] for b in picture.ground],
        }
    if isinstance(picture, Column):
        return {"kind": "column", "seeds": [{"eggs": e, "pest": p} for e, p in picture.seeds]}
    return {
        "kind": "score",
        "players": [
            {
                "name": name,
                "birds": [BIRD_NAMES[b] for b in picture.collections[p]],
                "seeds": [FEEDER_EGGS[c] for c in picture.seed_piles[p]],
                "explained": explain(
                    picture.sheet, picture.rules, picture.collections, picture.seed_piles, p
                ),
            }
            for p, name in enumerate(picture.names)
        ],
        "verdict": verdict(picture.sheet, list(picture.names)),
        "sheet": picture.sheet.to_json(),
    }


@router.get("/guide")
async def player_guide() -> dict[str, Any]:
    """The player's guide in the request's language: its text as HTML blocks, and between them
    its pictures as fields (``row``, ``column``, ``score``: the page draws them with its cards);
    the rule links point at the rules page's anchors (``#rule-T2.1``)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    lang = current_language()
    blocks = [
        {"html": md.render(block)} if isinstance(block, str) else {"picture": picture_json(block)}
        for block in guide(lang)
    ]
    return {"lang": lang, "blocks": blocks}


@router.get("/why")
async def why_table(spec: str = "standard") -> dict[str, Any]:
    """The rule behind each kind of log entry under the rules ``spec``, in the request's
    language: ``kinds`` by event kind, ``end`` by the reason the end was triggered; each with
    the rule's id (``T2.1e``, for a link to the rules page) and its words."""
    try:
        rules = Rules.parse(spec)
    except ValueError as exc:
        raise HTTPException(422, f"rules {spec!r}: {exc}") from None
    kinds, end = whys(rules)
    return {
        "rules": spec,
        "kinds": {kind: asdict(w) for kind, w in kinds.items()},
        "end": {reason: asdict(w) for reason, w in end.items()},
    }
