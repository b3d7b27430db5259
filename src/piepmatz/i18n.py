"""The languages a player reads: English, Czech and German, from gettext message catalogues.

Texts are written in English in the code and marked with :func:`_` (or :func:`ngettext` when a
number decides the form, :func:`N_` where the translation must wait until the text is shown).
The catalogues live in ``locale/<lang>/LC_MESSAGES/<domain>.po`` next to this module, compiled to
``.mo`` files that the standard library's :mod:`gettext` reads, so playing needs no extra
package. Two domains share those directories: ``piepmatz`` for the Python side's texts and ``web``
for the browser client's.

The language in force is the process's (:func:`set_language`: the terminal game switches it at
once) unless a context sets its own (:func:`use_language`: the server renders each request in its
player's language).

>>> choose_language(None, {"LANG": "cs_CZ.UTF-8"})
'cs'
>>> choose_language("de", {"LANG": "cs_CZ.UTF-8"})
'de'
>>> choose_language(None, {}, "fr-FR,de;q=0.8,cs;q=0.5")
'de'
>>> with use_language("cs"):
...     [ngettext("{count} egg", "{count} eggs", n).format(count=n) for n in (1, 3, 5)]
['1 vejce', '3 vejce', '5 vajec']

Maintainers refresh the catalogues with Babel (the ``i18n`` extra)::

    python -m piepmatz.i18n update    # extract the marked texts, merge them into every .po
    python -m piepmatz.i18n check     # how much is translated, and each text translated wrongly
    python -m piepmatz.i18n compile   # checked, then .po -> .mo
"""

from __future__ import annotations

import argparse
import contextlib
import gettext
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TextIO

#: The languages the game is written in; the first is the fallback and the language of the code.
LANGUAGES = ("en", "cs", "de")
#: Each language's name in itself, for the language switch.
LANGUAGE_NAMES = {"en": "English", "cs": "Čeština", "de": "Deutsch"}
#: The message domains: the Python side's texts and the browser client's.
DOMAINS = ("piepmatz", "web")
#: Where the catalogues live: ``LOCALE_DIR/<lang>/LC_MESSAGES/<domain>.po`` (and ``.mo``).
LOCALE_DIR = Path(__file__).parent / "locale"
#: The environment variables that name a language, in the order gettext reads them.
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: Each language's plural rule as a ``Plural-Forms`` header: Czech has three forms (1, 2-4, 5+).
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "cs": "nplurals=3; plural=((n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2);",
    "de": "nplurals=2; plural=(n != 1);",
}

#: The browser's plural categories (``Intl.PluralRules``, CLDR) in the order of each language's
#: gettext forms, so that the page picks a form without evaluating the rule above (its
#: Content-Security-Policy forbids eval): Czech "many" (fractions only) takes the last form.
PLURAL_CATEGORIES = {
    "en": ("one", "other"),
    "cs": ("one", "few", "other"),
    "de": ("one", "other"),
}

_LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}")


class UnknownLanguageError(ValueError):
    """A language the game is not written in was asked for."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"unknown language {name!r}: choose one of {', '.join(LANGUAGES)} "
            f"({', '.join(f'{k} = {v}' for k, v in LANGUAGE_NAMES.items())})"
        )
        self.name = name


def check_language(name: str) -> str:
    """``name`` as one of :data:`LANGUAGES` (``cs_CZ`` and ``CS`` are ``cs``), or an error."""
    code = _primary(name)
    if code not in LANGUAGES:
        raise UnknownLanguageError(name)
    return code


def _primary(tag: str) -> str:
    """The language of a locale name or language tag: ``cs`` of ``cs_CZ.UTF-8`` or ``cs-CZ``."""
    match = _LANGUAGE_CODE.match(tag.strip())
    return match.group(0).lower() if match else ""


def choose_language(
    cli: str | None,
    environ: Mapping[str, str],
    accept_language: str | None = None,
    fallback: str = "en",
) -> str:
    """The language to show: ``--lang``, else the environment, else ``Accept-Language``, else
    ``fallback`` (English unless a server's operator chose another).

    ``--lang`` must name one of :data:`LANGUAGES` (:class:`UnknownLanguageError` otherwise). In the
    environment the first of ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES``
    and ``LANG`` that is set decides, as gettext has it; when it names no language of the game
    (``C``, ``fr_FR``) the environment has no say and the browser's ``Accept-Language`` is asked.
    """
    if cli is not None:
        return check_language(cli)
    for name in ENVIRONMENT:
        value = environ.get(name, "")
        if value:
            for part in value.split(":"):
                if _primary(part) in LANGUAGES:
                    return _primary(part)
            break
    if accept_language:
        for tag in _accepted(accept_language):
            if _primary(tag) in LANGUAGES:
                return _primary(tag)
    return fallback


def _accepted(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most wanted first (RFC 9110 12.5.4)."""
    weighted: list[tuple[float, int, str]] = []
    for index, item in enumerate(header.split(",")):
        tag, _sep, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag.strip() and quality > 0:
            weighted.append((-quality, index, tag.strip()))
    return [tag for _q, _i, tag in sorted(weighted)]


@cache
def translation(lang: str, domain: str = "piepmatz") -> gettext.NullTranslations:
    """The compiled catalogue of ``domain`` in ``lang``; English is the code's own text."""
    lang = check_language(lang)
    if lang == LANGUAGES[0]:
        return gettext.NullTranslations()
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.mo").open("rb") as fh:
        return gettext.GNUTranslations(fh)


def written_in(lang: str, package: str, path: str) -> str:
    """The language a long text (the rules, the guide, the lesson) is read in: ``lang`` where
    ``package`` holds it (``path`` with ``{lang}`` in its place), else English. A new language's
    catalogues may come before its long texts, which are then read in English.

    >>> written_in("cs", "piepmatz", "rulebook/guide-{lang}.md")
    'cs'
    """
    from importlib import resources

    lang = check_language(lang)
    if resources.files(package).joinpath(path.format(lang=lang)).is_file():
        return lang
    return LANGUAGES[0]


def catalogue(lang: str, domain: str = "web") -> dict[str, str | list[str]]:
    """Every translated text of ``domain`` in ``lang``, for the browser: msgid -> text.

    A plural entry maps its singular msgid to the list of forms, chosen by :func:`plural_forms`.
    English has no catalogue (the code's texts are English): an empty dict.
    """
    table = translation(lang, domain)
    entries: dict[str, str | list[str]] = {}
    if not isinstance(table, gettext.GNUTranslations):
        return entries
    plurals: dict[str, dict[int, str]] = {}
    raw: dict[str | tuple[str, int], str] = table._catalog  # type: ignore[attr-defined]
    for key, text in raw.items():
        if isinstance(key, tuple):
            plurals.setdefault(key[0], {})[key[1]] = text
        elif key:  # "" is the header
            entries[key] = text
    for msgid, forms in plurals.items():
        entries[msgid] = [forms[i] for i in sorted(forms)]
    return entries


def plural_forms(lang: str) -> str:
    """``lang``'s plural rule as gettext writes it (``nplurals=3; plural=...;`` for Czech)."""
    return PLURAL_FORMS[check_language(lang)]


_process_language = LANGUAGES[0]
_context_language: ContextVar[str | None] = ContextVar("piepmatz_language", default=None)


def current_language() -> str:
    """The language texts are shown in now: this context's, else the process's."""
    return _context_language.get() or _process_language


def set_language(lang: str) -> str:
    """Show texts in ``lang`` from now on, in the whole process; returns the checked code."""
    global _process_language
    _process_language = check_language(lang)
    return _process_language


@contextmanager
def use_language(lang: str) -> Iterator[str]:
    """Show texts in ``lang`` within this block and this context only (a server request)."""
    token = _context_language.set(check_language(lang))
    try:
        yield current_language()
    finally:
        _context_language.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translation(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a text that fits the number ``n``, in the current language."""
    return translation(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, where ``context`` tells apart equal English words."""
    return translation(current_language()).pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it yet (it is shown later by _)."""
    return message


# Maintainers' commands: Babel is needed only here (the ``i18n`` extra), never to play.

#: What each domain is extracted from, relative to the package: Babel's mapping lines.
SOURCES = {
    "piepmatz": ("[python: **.py]\n", (".*", "_*", "static")),
    "web": ("[javascript: server/static/**.js]\n", (".*", "_*")),
}


def _pybabel(argv: Sequence[str]) -> None:
    try:
        from babel.messages.frontend import CommandLineInterface
    except ImportError:  # pragma: no cover - the extra is part of the test set-up
        raise SystemExit(
            "python -m piepmatz.i18n needs Babel: pip install 'piepmatz[i18n]'"
        ) from None
    CommandLineInterface().run(["pybabel", "-q", *argv])  # type: ignore[no-untyped-call]


def extract(domain: str, template: Path) -> None:
    """Write the template (``.pot``) of every marked text of ``domain`` in the sources."""
    import tempfile

    mapping, ignore = SOURCES[domain]
    package = Path(__file__).parent
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "babel.cfg"
        cfg.write_text(mapping, encoding="utf-8")
        argv = ["extract", "-F", str(cfg), "-o", str(template.resolve()), "--add-location=file"]
        argv += ["--sort-output"]
        argv += ["-w", "100"]
        argv += ["--project", "piepmatz", "-c", "TRANSLATORS:"]
        for pattern in ignore:
            argv += ["--ignore-dirs", pattern]
        # From the package's folder, so that each text's place (``#: piepmatz/tui/app.py``, the
        # translator's context) is the same on every machine.
        with contextlib.chdir(package.parent):
            _pybabel([*argv, package.name])


def update(domain: str) -> None:
    """Merge the texts of the sources into every language's ``.po`` (new ones untranslated)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / f"{domain}.pot"
        extract(domain, template)
        for lang in LANGUAGES[1:]:
            po = LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"
            verb = "update" if po.exists() else "init"
            argv = [verb, "-D", domain, "-i", str(template), "-d", str(LOCALE_DIR), "-l", lang]
            argv += ["-w", "100"]
            if verb == "update":
                # A language whose texts did not change keeps its file as it was.
                argv += ["--no-fuzzy-matching", "--ignore-obsolete", "--ignore-pot-creation-date"]
            _pybabel(argv)


#: A text's placeholders: ``{name}`` (with any format spec) and the ``%(name)s`` of argparse.
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)[^{}]*\}|%\(\w+\)[sd]|%[sd]")


def placeholders(text: str) -> list[str]:
    """The names a text fills in, sorted: a translation must keep each of its English's.

    >>> placeholders("Turn {turn}: {player:>2}. {{braces}} %(prog)s")
    ['%(prog)s', 'player', 'turn']
    """
    return sorted(
        m.group(0) if m.group(1) is None else m.group(1) for m in _PLACEHOLDER.finditer(text)
    )


@dataclass
class Checked:
    """One catalogue checked: how much of it is translated, and what is wrong in it."""

    lang: str
    domain: str
    texts: int = 0
    translated: int = 0
    fuzzy: int = 0
    #: Each text translated wrongly, said in a line: these break the game where shown.
    problems: list[str] = field(default_factory=list)
    #: The English of each text not translated yet (shown in English meanwhile).
    untranslated: list[str] = field(default_factory=list)

    def summary(self) -> str:
        missing = self.texts - self.translated
        said = f"{self.lang} {self.domain}: {self.translated} of {self.texts} texts translated"
        if missing:
            said += f", {missing} not yet (shown in English)"
        if self.fuzzy:
            said += f", {self.fuzzy} marked fuzzy (shown in English until the mark is removed)"
        return said + (f"; {len(self.problems)} wrong" if self.problems else "")


def check(lang: str, domain: str) -> Checked:
    """Read ``lang``'s catalogue of ``domain`` and check every translated text: it keeps the
    English's placeholders, has the language's number of plural forms, all or none filled,
    and the catalogue's plural rule is :data:`PLURAL_FORMS`'s."""
    from babel.messages.pofile import read_po

    checked = Checked(lang, domain)
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as fh:
        po = read_po(fh, locale=lang)
    if po.plural_forms != PLURAL_FORMS.get(lang):
        checked.problems.append(
            f"the catalogue's plural rule {po.plural_forms!r} is not the one in "
            f"piepmatz/i18n.py's PLURAL_FORMS ({PLURAL_FORMS.get(lang)!r})"
        )
    for message in po:
        if not message.id:
            continue
        ids = [str(i) for i in (message.id if isinstance(message.id, tuple) else (message.id,))]
        given = message.string if isinstance(message.string, tuple) else (message.string,)
        strings = [str(text or "") for text in given]
        checked.texts += 1
        if message.fuzzy:
            checked.fuzzy += 1
        if not any(strings):
            checked.untranslated.append(ids[0])
            continue
        if not message.fuzzy:
            checked.translated += 1
        english = repr(ids[0])
        if message.pluralizable and len(strings) != po.num_plurals:
            checked.problems.append(
                f"{english}: {len(strings)} plural forms, where {lang} has {po.num_plurals}"
            )
        if not all(strings):
            empty = [i for i, text in enumerate(strings) if not text]
            checked.problems.append(
                f"{english}: " + ", ".join(f"msgstr[{i}]" for i in empty) + " empty, where "
                f"{lang} has {po.num_plurals} forms (msgstr[0] to msgstr[{po.num_plurals - 1}])"
            )
        wanted = placeholders(ids[-1])
        for text in strings:
            got = placeholders(text)
            if text and got != wanted:
                lost, extra = sorted(set(wanted) - set(got)), sorted(set(got) - set(wanted))
                why = "; ".join(
                    [f"{{{n}}} is missing" for n in lost] + [f"{{{n}}} is unknown" for n in extra]
                )
                checked.problems.append(f"{english}: {why} in {text!r}")
    return checked


def catalogues() -> list[tuple[str, str]]:
    """Every translated language's catalogue as ``(lang, domain)``."""
    return [
        (lang, domain)
        for domain in DOMAINS
        for lang in LANGUAGES[1:]
        if (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").exists()
    ]


def check_catalogues(langs: Sequence[str], domains: Sequence[str], out: TextIO) -> bool:
    """``check``: each catalogue's summary and its problems on ``out``; whether none has any."""
    good = True
    for lang, domain in catalogues():
        if lang in langs and domain in domains:
            checked = check(lang, domain)
            out.write(checked.summary() + "\n")
            for problem in checked.problems:
                out.write(f"  {problem}\n")
            good = good and not checked.problems
    return good


def compile_catalogues(domain: str) -> None:
    """Compile every language's ``.po`` of ``domain`` to the ``.mo`` the game reads."""
    for lang in LANGUAGES[1:]:
        if (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").exists():
            _pybabel(["compile", "-D", domain, "-d", str(LOCALE_DIR), "-l", lang])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m piepmatz.i18n",
        description="Refresh, check and compile the message catalogues (Babel): update, "
        "translate, check, compile (docs/languages.md).",
    )
    parser.add_argument("command", choices=("extract", "update", "check", "compile"))
    parser.add_argument("--domain", choices=DOMAINS, action="append", help="(all)")
    parser.add_argument("--lang", choices=LANGUAGES[1:], action="append", help="(all)")
    parser.add_argument("-o", "--output", type=Path, help="extract: the .pot to write")
    args = parser.parse_args(argv)
    domains, langs = args.domain or DOMAINS, args.lang or LANGUAGES[1:]
    # A wrong translation breaks the game where it is shown: checked before it is compiled.
    if args.command in ("check", "compile") and not check_catalogues(langs, domains, sys.stdout):
        print("Mend the texts above (each keeps its English's {placeholders}).")
        return 1
    for domain in domains:
        if args.command == "extract":
            extract(domain, args.output or Path(f"{domain}.pot"))
        elif args.command == "update":
            update(domain)
        elif args.command == "compile":
            compile_catalogues(domain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
