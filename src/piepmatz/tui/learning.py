"""What the terminal game remembers about a learner: how many steps of the guided first game are
done (so that ``piepmatz tutorial`` takes it up again) and whether this person has played a game
(so that the first screen offers the lesson to a newcomer). One small file beside the autosave.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "learning.json"
>>> load_progress(path)
Progress(done=0, played=False)
>>> save_progress(Progress(done=3), path)
>>> load_progress(path).done
3
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from piepmatz.tutorial import Lesson

from .session import data_dir

FORMAT = "piepmatz-learning"


@dataclass(frozen=True)
class Progress:
    #: The learner's steps of the lesson done (:meth:`piepmatz.tutorial.Lesson.resume`).
    done: int = 0
    #: A real game was started here (the first screen then no longer offers the lesson first).
    played: bool = False


def progress_path() -> Path:
    return data_dir() / "learning.json"


def load_progress(path: Path | None = None) -> Progress:
    """The progress kept, or none (no file, or one that no longer reads: a lesson from the
    start is no loss worth an error)."""
    path = progress_path() if path is None else path
    try:
        doc = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return Progress()
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return Progress()
    done, played = doc.get("done", 0), doc.get("played", False)
    if type(done) is not int or done < 0 or type(played) is not bool:
        return Progress()
    return Progress(done, played)


def save_progress(progress: Progress, path: Path | None = None) -> None:
    """Keep the progress; a data directory that cannot be written loses only this."""
    path = progress_path() if path is None else path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"format": FORMAT, **asdict(progress)}) + "\n", "utf-8")
    except OSError:
        pass


def resume_lesson(path: Path | None = None) -> Lesson:
    """The lesson where this player left it (from the start once it was finished): the
    full-screen lesson and ``tutorial --text`` take it up alike."""
    done = load_progress(path).done
    return Lesson.resume(done) if done < Lesson().steps else Lesson()
