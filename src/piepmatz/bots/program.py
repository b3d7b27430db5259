"""A bot that is another program: ``program:COMMAND`` runs ``COMMAND`` and asks it for each
decision, one JSON line each way, so that an agent written in any language plays wherever bots
play (tournaments, baselines, the terminal game, a server whose operator offers it).

The command is split as a shell splits it (``shlex``), and run without a shell. For each
decision the program reads one line on its standard input (protocol 1)::

    {"type": "decide", "protocol": 1, "seat": 0, "view": {...},
     "legal": [{"id": 25, "text": "play BL5m 2"}, ...], "seed": 1234}

``view`` is the deciding player's view, as ``piepmatz engine`` gives it (hidden cards are
counts); ``legal`` the legal actions by id, sorted; ``seed`` a number from the bot's own
generator, for a program that wants its play to repeat in a seeded game. It answers with one
line, ``{"action": 25}`` (an id, or an action's text such as ``"play BL5m 2"``). Every request
is whole, so the program keeps nothing between lines; it runs until its standard input closes
(when the process that started it exits). Its standard error is the caller's, for its own
messages.

One program runs per command in a process, whatever the number of seats or games that use it,
and answers one decision at a time. A program that exits, answers anything but an action, or
takes longer than :data:`DECISION_TIMEOUT` seconds fails the decision with a message saying
which (the caller names the seat and the game); it is started afresh for the next one.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import selectors
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from piepmatz.bots.base import BotMoveError
from piepmatz.core.actions import Action
from piepmatz.core.errors import PiepmatzError
from piepmatz.core.view import PlayerView
from piepmatz.core.viewjson import view_to_json

#: The version of the exchange: a program can refuse one it does not know.
PROTOCOL = 1
#: Seconds a program has for one decision, its start included.
DECISION_TIMEOUT = 60.0
#: The longest answer read, in bytes (an answer is one short line).
MAX_ANSWER = 65_536


class ProgramError(BotMoveError):
    """The program did not answer a decision with an action; the message says what it did."""


class _Program:
    """One running program, asked one decision at a time."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        #: What the program wrote past the last line read (the start of its next line).
        self.pending = b""

    def ask(self, request: dict[str, Any]) -> object:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.process = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
                )
                self.pending = b""
            process = self.process
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
                process.stdin.flush()
                line = self.read_line(process.stdout, DECISION_TIMEOUT)
            except BrokenPipeError:
                line = b""
            except ProgramError:
                self.stop()
                raise
            if not line:
                status = process.wait(5) if process.poll() is None else process.returncode
                self.process = None
                raise ProgramError(f"exited (status {status}) before answering")
        try:
            answer = json.loads(line)
        except ValueError:
            raise ProgramError(f"answered {_shown(line)}, not a JSON line") from None
        if not isinstance(answer, dict) or "action" not in answer:
            raise ProgramError(f'answered {_shown(line)}, not {{"action": ...}}')
        return answer["action"]

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # its end of input: a polite program leaves
        try:
            process.wait(1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def read_line(self, stream: IO[bytes], timeout: float) -> bytes:
        """The program's next line (``b""`` at the end of its output), waiting at most
        ``timeout`` seconds; what it wrote past that line waits for the next decision."""
        buffer = self.pending
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
            while b"\n" not in buffer:
                if len(buffer) > MAX_ANSWER:
                    raise ProgramError(f"answered more than {MAX_ANSWER} bytes without a newline")
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    raise ProgramError(f"did not answer within {timeout:g} s")
                chunk = os.read(stream.fileno(), 4096)
                if not chunk:
                    self.pending = b""
                    return b""
                buffer += chunk
        line, _, self.pending = buffer.partition(b"\n")
        return line or b" "  # an empty line is an answer, a wrong one


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 80 else text[:77] + "...")


#: The programs running in this process, by their command.
_RUNNING: dict[tuple[str, ...], _Program] = {}
_RUNNING_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    for program in list(_RUNNING.values()):
        program.stop()


class ProgramBot:
    """``program:COMMAND``: each decision asked of the program ``COMMAND`` (see the module)."""

    def __init__(self, command: str) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"bad bot spec 'program:{command}': {exc}") from None
        if not argv:
            raise ValueError(
                "bad bot spec 'program:': give the command that runs it, "
                "such as program:'python3 mybot.py'"
            )
        if shutil.which(argv[0]) is None:
            raise ValueError(
                f"bad bot spec 'program:{command}': no program {argv[0]!r} to run "
                "(give a path to an executable file, or a command on the PATH)"
            )
        self.name = f"program:{command}"
        self.argv = argv

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        request = {
            "type": "decide",
            "protocol": PROTOCOL,
            "seat": view.player,
            "view": view_to_json(view),
            "legal": [{"id": i, "text": str(Action.from_id(i))} for i in sorted(legal)],
            "seed": rng.getrandbits(63),
        }
        key = tuple(self.argv)
        with _RUNNING_LOCK:
            program = _RUNNING.setdefault(key, _Program(self.argv))
        action = program.ask(request)
        if isinstance(action, str):
            try:
                return Action.parse(action).id
            except PiepmatzError as exc:
                raise ProgramError(f"answered the action {action!r}: {exc}") from None
        if isinstance(action, int) and not isinstance(action, bool):
            return action
        raise ProgramError(f"answered the action {action!r}: give an id or an action's text")

    def __repr__(self) -> str:
        return f"ProgramBot({shlex.join(self.argv)!r})"
