"""Bots that play from a player's view: ``random``, ``greedy``, ``heuristic`` and ``ismcts``.

Every bot follows one protocol (:class:`Bot`): ``choose(view, legal, rng) -> action id``, for
every kind of decision (play, collect or pass, draws, the crow's victim, the last hand). A bot
gets the acting player's :class:`~piepmatz.core.view.PlayerView`, never the full state; bots
that search deal the hidden cards themselves with :func:`~piepmatz.core.view.determinise`.

Build bots by name with :func:`make_bot`. A spec is ``name``, or ``name:options`` where options
are a difficulty level or comma-separated ``key=value`` pairs:

==============================  ================================================================
spec                            bot
==============================  ================================================================
``random``                      uniform over the legal actions
``greedy``                      a cheap rule of thumb over the heuristic's ideas
``heuristic``                   one-step evaluation of every option (thousands of moves a second)
``heuristic:noise=0.3``         … that plays a random legal move 30 % of the time
``heuristic:exposure=0.5``      … weight of what a play leaves for the next player
``ismcts``                      ISMCTS with 2000 iterations per move (reproducible)
``ismcts:iterations=N``         N iterations per move
``ismcts:time=S``               S seconds per move (``time.perf_counter``)
``ismcts:depth=D``              rollouts stop after D decisions and score the position (8)
``ismcts:c=C``                  UCB exploration constant (default 0.7 with two players,
                                0.3 with more)
``ismcts:search=M``             which decisions are searched: ``all``, ``plays`` (the others
                                by the heuristic) or ``auto`` (default: ``all`` in two-player
                                games, the plays and the last hand with more players)
``ismcts:stop=S``               ``early`` (default): stop once the move cannot change;
                                ``full``: always spend the whole budget
``ismcts:fast|deep|1s``         200 iterations, 1000 iterations, one second per move (also
                                read under their former names ``ismcts:easy|medium|hard``)
``easy``                        for people: ``heuristic:noise=0.35``
``medium``                      for people: ``heuristic``
``hard``                        for people: ``ismcts:1s`` (about one second per move)
``ppo:PATH``                    a policy trained by ``piepmatz train`` (:mod:`piepmatz.rl`)
``program:COMMAND``             another program, asked in JSON lines (:mod:`.program`): an
                                agent in any language
==============================  ================================================================

Options combine: ``ismcts:iterations=5000,depth=12``. With both ``iterations`` and ``time``
the search stops at whichever comes first. A bad spec raises ``ValueError`` naming the problem.

Your own bots join with :func:`register`, from a plugin file or module loaded by
:func:`load_plugins` (``--plugin`` on the command line) or from an installed package's entry
points (:mod:`piepmatz.bots.plugins`).

>>> make_bot("random").name
'random'
>>> make_bot("ismcts:iterations=300,depth=8")  # doctest: +NORMALIZE_WHITESPACE
ISMCTSBot(iterations=300, time_limit=None, depth=8, c='auto', search='auto', stop='early')
>>> make_bot("hard").time_limit
1.0
>>> bot_names()
['easy', 'greedy', 'hard', 'heuristic', 'ismcts', 'medium', 'ppo', 'program', 'random']
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, NoisyBot, RandomBot
from .heuristic import GreedyBot, HeuristicBot
from .ismcts import DEFAULT_DEPTH, ISMCTSBot
from .plugins import (
    PluginError,
    entry_point_factory,
    entry_point_names,
    entry_point_target,
    is_marked,
    load_plugins,
    needs_argument,
)
from .program import ProgramBot

_FACTORIES: dict[str, Callable[[str], Bot]] = {}

#: Bots that come with this package in a plugin module of their own, loaded on request
#: (``--plugin MODULE``), by name: the module that registers each. Their names are taken like
#: the built-in ones.
SHIPPED_PLUGINS: dict[str, str] = {"openspiel": "piepmatz.envs.openspiel_ismcts"}

#: ``ismcts:BUDGET`` budgets, named by what they spend (``easy`` alone is a level for people, the
#: noisy heuristic: the search's budgets are no such levels).
ISMCTS_LEVELS: dict[str, dict[str, float | int | str]] = {
    "fast": {"iterations": 200},
    "deep": {"iterations": 1000},
    "1s": {"time": 1.0},
}
#: The budgets' former names, still read (stored tables and records name them).
ISMCTS_ALIASES = {"easy": "fast", "medium": "deep", "hard": "1s"}
ISMCTS_DEFAULT_ITERATIONS = 2000
#: ``easy``: how often the heuristic plays a random move instead of its choice.
EASY_NOISE = 0.35


def register(name: str, factory: Callable[[str], Bot]) -> None:
    """Make ``make_bot(name)`` / ``make_bot("name:arg")`` build a bot with ``factory(arg)``.

    Plugins use this to add their own bots (:mod:`piepmatz.bots.plugins`). A name is one word
    without ``:`` or ``,``; a name already taken by another factory is refused, so a plugin
    cannot silently replace a built-in bot, a shipped plugin's (:data:`SHIPPED_PLUGINS`) or an
    installed package's entry point (``ppo``), loaded yet or not.
    """
    if not isinstance(name, str) or not name or any(c in name for c in ":, \t\n"):
        raise ValueError(f"a bot name is one word without ':' or ',', not {name!r}")
    if not callable(factory):
        raise ValueError(f"bot {name!r}: the factory must be callable, not {factory!r}")
    if not _may_take(name, factory):
        raise ValueError(f"bot name {name!r} is taken: register your bot under another name")
    _FACTORIES[name] = factory


def _may_take(name: str, factory: Callable[[str], Bot]) -> bool:
    """Whether ``factory`` may hold bot ``name``: a name is found in any case (``PPO`` would
    take ``ppo``), and the name of a shipped plugin (:data:`SHIPPED_PLUGINS`) or of an installed
    package's entry point (``ppo``), loaded yet or not, only by that module's own factory."""
    key = name.lower()
    held = next((f for n, f in _FACTORIES.items() if n.lower() == key), None)
    if held is not None:
        return held is factory
    owner = SHIPPED_PLUGINS.get(key) or entry_point_target(key)
    module = getattr(factory, "__module__", None)
    return owner in (None, module, f"{module}:{getattr(factory, '__qualname__', None)}")


def bot_names() -> list[str]:
    """Registered bots and the bots installed packages declare (entry points)."""
    return sorted(set(_FACTORIES) | set(entry_point_names()))


def _factory(name: str) -> Callable[[str], Bot] | None:
    """The factory of bot ``name`` (any case), registered or declared by an installed package."""
    if name not in _FACTORIES:  # "Hard" and "HEURISTIC" are what a person types, too
        name = next((n for n in _FACTORIES if n.lower() == name.lower()), name)
    factory = _FACTORIES.get(name)
    if factory is None:
        factory = entry_point_factory(name)
        if factory is not None:
            _FACTORIES[name] = factory
    return factory


def builds_from_name(name: str) -> bool:
    """Whether bot ``name`` is built from its bare name, so that a menu may offer it: false for
    a factory marked :func:`~piepmatz.bots.plugins.needs_argument` (``ppo`` needs ``ppo:PATH``).
    An installed package's factory that fails to load is offered, and its seat then says why.
    """
    try:
        factory = _factory(name)
    except PluginError:
        return True
    return factory is None or not is_marked(factory)


def make_bot(spec: str) -> Bot:
    """Build a bot from ``name`` or ``name:options`` (for example ``ismcts:1s``)."""
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec must be text such as 'heuristic', not {spec!r}")
    name, _, arg = spec.strip().partition(":")
    factory = _factory(name)
    if factory is None:
        plugin = SHIPPED_PLUGINS.get(name.lower())
        if plugin is not None:
            raise ValueError(
                f"unknown bot {spec!r}: it comes with a plugin, load it with --plugin {plugin}"
            )
        raise ValueError(
            f"unknown bot {spec!r}: choose one of {', '.join(bot_names())}"
            " (a bot of your own: load its file with --plugin FILE)"
        )
    try:
        bot = factory(arg)
    except ValueError as exc:
        if str(exc):
            raise
        raise ValueError(f"bot {spec!r} could not be built: {exc!r}") from exc
    except Exception as exc:  # a plugin's factory: say which spec failed
        raise ValueError(f"bot {spec!r} could not be built: {exc!r}") from exc
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(
            f"bot {spec!r}: the factory returned {type(bot).__name__}, which has no "
            "choose(view, legal, rng) method"
        )
    return bot


def _options(spec: str, arg: str, kinds: dict[str, type]) -> dict[str, float | int | str]:
    """Parse ``key=value,key=value``; each value is converted to the key's type."""
    out: dict[str, float | int | str] = {}
    for item in arg.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq:
            raise ValueError(f"bad bot spec {spec!r}: expected key=value, not {item!r}")
        if key not in kinds:
            raise ValueError(
                f"bad bot spec {spec!r}: unknown option {key!r} (options: {', '.join(kinds)})"
            )
        try:
            out[key] = kinds[key](text.strip())
        except ValueError:
            kind = _KIND_WORDS.get(kinds[key], kinds[key].__name__)
            raise ValueError(f"bad bot spec {spec!r}: {key}={text!r} is not {kind}") from None
    return out


#: How an option's type is named in an error message.
_KIND_WORDS: dict[type, str] = {int: "a whole number", float: "a number", str: "text"}


def _no_options(name: str, factory: Callable[[], Bot]) -> Callable[[str], Bot]:
    def build(arg: str) -> Bot:
        if arg.strip():
            raise ValueError(f"bad bot spec {name}:{arg!r}: {name!r} takes no options")
        return factory()

    return build


def _heuristic(arg: str) -> Bot:
    spec = f"heuristic:{arg}" if arg else "heuristic"
    opts = _options(spec, arg, {"noise": float, "exposure": float})
    bot: Bot = HeuristicBot(exposure_weight=float(opts.get("exposure", 0.5)))
    noise = float(opts.get("noise", 0.0))
    if noise:
        bot = NoisyBot(bot, noise, name=spec)
    else:
        bot.name = spec
    return bot


def _ismcts(arg: str) -> ISMCTSBot:
    spec = f"ismcts:{arg}" if arg else "ismcts"
    level = ISMCTS_ALIASES.get(arg.strip(), arg.strip())
    if level in ISMCTS_LEVELS:
        opts = dict(ISMCTS_LEVELS[level])
    elif level and "=" not in level:
        raise ValueError(
            f"bad bot spec {spec!r}: levels are {', '.join(ISMCTS_LEVELS)}, "
            "or give key=value options"
        )
    else:
        opts = _options(
            spec,
            arg,
            {
                "iterations": int,
                "time": float,
                "depth": int,
                "c": float,
                "search": str,
                "stop": str,
            },
        )
        if "iterations" not in opts and "time" not in opts:
            opts["iterations"] = ISMCTS_DEFAULT_ITERATIONS
    iterations = opts.get("iterations")
    time_limit = opts.get("time")
    return ISMCTSBot(
        iterations=None if iterations is None else int(iterations),
        time_limit=None if time_limit is None else float(time_limit),
        depth=int(opts.get("depth", DEFAULT_DEPTH)),
        c=None if "c" not in opts else float(opts["c"]),
        search=str(opts.get("search", "auto")),
        stop=str(opts.get("stop", "early")),
        name=spec,
    )


def _level(name: str, spec: str) -> Callable[[str], Bot]:
    def build(arg: str) -> Bot:
        if arg.strip():
            raise ValueError(f"bad bot spec {name}:{arg!r}: {name!r} takes no options")
        bot = make_bot(spec)
        bot.name = name
        return bot

    return build


# Set, not registered: register would look through the installed packages for each name.
_FACTORIES.update(
    random=_no_options("random", RandomBot),
    greedy=_no_options("greedy", GreedyBot),
    heuristic=_heuristic,
    ismcts=_ismcts,
    easy=_level("easy", f"heuristic:noise={EASY_NOISE}"),
    medium=_level("medium", "heuristic"),
    hard=_level("hard", "ismcts:1s"),
    program=needs_argument(ProgramBot),
)

#: The bots this module registers; the rest come from plugins (or entry points, once used).
_BUILT_IN = frozenset(_FACTORIES)


def plugin_bot_names() -> list[str]:
    """The bots registered by plugins loaded in this process (not the built-in ones, nor an
    installed package's entry points)."""
    return sorted(set(_FACTORIES) - _BUILT_IN - set(entry_point_names()))


__all__ = [
    "Bot",
    "GreedyBot",
    "HeuristicBot",
    "ISMCTSBot",
    "NoisyBot",
    "PluginError",
    "RandomBot",
    "bot_names",
    "builds_from_name",
    "load_plugins",
    "make_bot",
    "needs_argument",
    "plugin_bot_names",
    "register",
]
