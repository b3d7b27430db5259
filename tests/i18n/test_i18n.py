"""Choosing the language, plural forms, and the message catalogues being complete and compiled."""

from __future__ import annotations

import asyncio
import gettext
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po, write_po

from piepmatz import i18n
from piepmatz.i18n import (
    DOMAINS,
    LANGUAGES,
    LOCALE_DIR,
    PLURAL_CATEGORIES,
    UnknownLanguageError,
    catalogue,
    choose_language,
    current_language,
    ngettext,
    plural_forms,
    set_language,
    translation,
    use_language,
)

TRANSLATED = LANGUAGES[1:]


def test_the_command_line_comes_first() -> None:
    env = {"LANGUAGE": "cs", "LANG": "cs_CZ.UTF-8"}
    assert choose_language("de", env, "cs") == "de"
    assert choose_language("en", env, "cs") == "en"
    assert choose_language("DE_at", {}) == "de"


def test_the_environment_in_gettext_order() -> None:
    full = {"LANGUAGE": "de", "LC_ALL": "cs_CZ.UTF-8", "LC_MESSAGES": "en_GB", "LANG": "cs"}
    assert choose_language(None, full, "en") == "de"
    del full["LANGUAGE"]
    assert choose_language(None, full, "en") == "cs"
    del full["LC_ALL"]
    assert choose_language(None, full, "de") == "en"
    del full["LC_MESSAGES"]
    assert choose_language(None, full, "de") == "cs"
    # LANGUAGE is a list: its first language of the game wins.
    assert choose_language(None, {"LANGUAGE": "fr:de_DE:cs"}) == "de"
    # An empty variable is not set.
    assert choose_language(None, {"LANGUAGE": "", "LANG": "de_DE.UTF-8"}) == "de"


def test_an_environment_without_a_language_of_the_game_leaves_it_to_the_browser() -> None:
    assert choose_language(None, {"LANG": "C.UTF-8"}, "cs-CZ,cs;q=0.9") == "cs"
    assert choose_language(None, {"LC_ALL": "POSIX", "LANG": "de_DE"}, "cs") == "cs"
    assert choose_language(None, {"LANG": "fr_FR.UTF-8"}) == "en"


def test_accept_language_by_quality() -> None:
    assert choose_language(None, {}, "fr-CH, fr;q=0.9, cs;q=0.5, de;q=0.7") == "de"
    assert choose_language(None, {}, "de;q=0, cs;q=0.1") == "cs"
    assert choose_language(None, {}, "pl, *;q=0.5") == "en"
    assert choose_language(None, {}, "cs;q=bogus, de") == "de"
    assert choose_language(None, {}, "") == "en"
    assert choose_language(None, {}) == "en"


def test_an_unknown_language_is_refused_naming_the_languages() -> None:
    with pytest.raises(UnknownLanguageError) as err:
        choose_language("xx", {"LANG": "cs"})
    assert "'xx'" in str(err.value)
    for lang in LANGUAGES:
        assert lang in str(err.value)
    with pytest.raises(UnknownLanguageError):
        set_language("fr")
    assert current_language() == "en"


@pytest.mark.parametrize(
    ("lang", "texts"),
    [
        ("en", ["1 egg", "2 eggs", "4 eggs", "5 eggs", "0 eggs"]),
        ("cs", ["1 vejce", "2 vejce", "4 vejce", "5 vajec", "0 vajec"]),
        ("de", ["1 Ei", "2 Eier", "4 Eier", "5 Eier", "0 Eier"]),
    ],
)
def test_plural_forms(lang: str, texts: list[str]) -> None:
    with use_language(lang):
        got = [ngettext("{count} egg", "{count} eggs", n).format(count=n) for n in (1, 2, 4, 5, 0)]
    assert got == texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_browsers_plural_categories_pick_the_form_gettext_picks(lang: str) -> None:
    """The page picks a form by Intl.PluralRules' category (CLDR, as babel has it) in the order
    of PLURAL_CATEGORIES, never by evaluating the rule: for every count it is gettext's form."""
    from babel import Locale

    rule = gettext.c2py(plural_forms(lang).split("plural=")[1].rstrip(";"))
    locale = Locale.parse(lang)
    categories = PLURAL_CATEGORIES[lang]
    for n in range(1000):
        category = locale.plural_form(n)
        index = categories.index(category) if category in categories else len(categories) - 1
        assert index == rule(n), (lang, n, category)


def test_czech_has_three_plural_forms() -> None:
    plural = gettext.c2py(plural_forms("cs").split("plural=")[1].rstrip(";"))
    assert [plural(n) for n in (1, 2, 3, 4, 5, 11, 22, 0)] == [0, 1, 1, 1, 2, 2, 2, 2]
    for lang in LANGUAGES:
        assert plural_forms(lang) == get_plural(lang).plural_forms


def test_the_process_language_and_a_context_language() -> None:
    try:
        assert set_language("cs_CZ") == "cs"
        assert current_language() == "cs"
        with use_language("de"):
            assert current_language() == "de"
        assert current_language() == "cs"
    finally:
        set_language("en")

    async def render(lang: str) -> list[str]:
        with use_language(lang):
            first = ngettext("{count} egg", "{count} eggs", 5)
            await asyncio.sleep(0)  # the other request runs here, in its own language
            return [first, ngettext("{count} egg", "{count} eggs", 5)]

    async def both() -> list[list[str]]:
        return list(await asyncio.gather(render("cs"), render("de")))

    assert asyncio.run(both()) == [["{count} vajec"] * 2, ["{count} Eier"] * 2]
    assert current_language() == "en"


def test_the_browser_catalogue_holds_texts_and_plural_forms() -> None:
    cs = catalogue("cs", "piepmatz")
    assert cs["{count} egg"] == ["{count} vejce", "{count} vejce", "{count} vajec"]
    assert "" not in cs
    assert catalogue("en", "piepmatz") == {}
    assert translation("cs") is translation("cs")


# The catalogues themselves.


def _catalogues() -> list[tuple[str, str]]:
    return [
        (lang, domain)
        for domain in DOMAINS
        for lang in TRANSLATED
        if (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").exists()
    ]


def _read(lang: str, domain: str) -> Catalog:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as fh:
        return read_po(fh, locale=lang)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Catalog]:
    """Every marked text in the sources, per domain that has catalogues."""
    out = {}
    for domain in {d for _lang, d in _catalogues()}:
        template = tmp_path_factory.mktemp("pot") / f"{domain}.pot"
        i18n.extract(domain, template)
        with template.open("rb") as fh:
            out[domain] = read_po(fh)
    return out


def test_the_python_texts_have_catalogues() -> None:
    assert {lang for lang, domain in _catalogues() if domain == "piepmatz"} == set(TRANSLATED)


@pytest.mark.parametrize(("lang", "domain"), _catalogues())
def test_every_text_is_translated(lang: str, domain: str, sources: dict[str, Catalog]) -> None:
    po = _read(lang, domain)
    assert po.plural_forms == plural_forms(lang)
    marked = {m.id for m in sources[domain] if m.id}
    held = {m.id for m in po if m.id}
    assert sorted(map(str, marked - held)) == [], "marked in the code but not in the catalogue"
    assert sorted(map(str, held - marked)) == [], "in the catalogue but no longer in the code"
    checked = i18n.check(lang, domain)
    assert checked.problems == []
    assert checked.untranslated == [] and checked.fuzzy == 0
    assert checked.translated == checked.texts == len(marked)


def test_check_tells_each_wrongly_translated_text_and_compile_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A translator's slips are told with the text they are in, and nothing is compiled: a
    placeholder dropped or renamed, a plural form missing; a text not translated yet is only
    counted (it is shown in English)."""
    import shutil

    shutil.copytree(LOCALE_DIR, tmp_path / "locale")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    total = i18n.check("cs", "piepmatz").texts
    po_path = tmp_path / "locale" / "cs" / "LC_MESSAGES" / "piepmatz.po"
    mo_path = po_path.with_suffix(".mo")
    with po_path.open("rb") as fh:
        po = read_po(fh, locale="cs")
    po["Display slot {slot} is refilled with {bird}."].string = "Místo {slot} je doplněno."
    po["Turn {turn}: {player}."].string = "Tah {turn}: {hráč}."
    egg = po["{count} egg"]
    egg.string = egg.string[:2]
    po["Player {number}"].string = ""
    with po_path.open("wb") as fh:
        write_po(fh, po, width=100)
    mo_before = mo_path.read_bytes()

    assert i18n.main(["compile", "--lang", "cs", "--domain", "piepmatz"]) == 1
    out = capsys.readouterr().out
    told = f"cs piepmatz: {total - 1} of {total} texts translated, 1 not yet (shown in English)"
    assert f"{told}; 3 wrong" in out
    assert "'Display slot {slot} is refilled with {bird}.': {bird} is missing in" in out
    assert "'Turn {turn}: {player}.': {player} is missing; {hráč} is unknown in" in out
    assert "'{count} egg': msgstr[2] empty, where cs has 3 forms (msgstr[0] to msgstr[2])" in out
    assert mo_path.read_bytes() == mo_before  # nothing compiled
    checked = i18n.check("cs", "piepmatz")
    assert checked.untranslated == ["Player {number}"] and len(checked.problems) == 3


@pytest.mark.parametrize(("lang", "domain"), _catalogues())
def test_the_compiled_catalogue_is_up_to_date(lang: str, domain: str) -> None:
    po = _read(lang, domain)
    mo = Path(LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.mo")
    assert mo.exists(), f"run: python -m piepmatz.i18n compile ({mo} is missing)"
    with mo.open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    want: dict[object, str] = {}
    for message in po:
        if not message.id:
            continue
        key = message.id if message.context is None else f"{message.context}\x04{message.id}"
        if isinstance(message.id, tuple):
            for i, text in enumerate(message.string):
                want[
                    (
                        message.id[0]
                        if message.context is None
                        else f"{message.context}\x04{message.id[0]}",
                        i,
                    )
                ] = text
        else:
            want[key] = message.string
    got = {k: v for k, v in compiled._catalog.items() if k != ""}  # type: ignore[attr-defined]
    assert got == want, "run: python -m piepmatz.i18n compile"


def test_a_language_without_its_long_texts_reads_them_in_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new language's catalogues may come first: its rules text, guide and lesson are then
    the English ones, where reading them failed before."""
    from piepmatz import tutorial
    from piepmatz.text import guide, rulebook

    languages = (*i18n.LANGUAGES, "pl")
    for module in (i18n, guide, tutorial):
        monkeypatch.setattr(module, "LANGUAGES", languages)
    monkeypatch.setitem(rulebook.RULES_TEXTS, "pl", "rulebook/pl.md")
    assert i18n.written_in("pl", "piepmatz", rulebook.RULES_TEXTS["pl"]) == "en"
    assert i18n.written_in("cs", "piepmatz", rulebook.RULES_TEXTS["cs"]) == "cs"
    assert rulebook.full_rules("pl") == rulebook.full_rules("en")
    assert rulebook.screen_texts.__wrapped__("pl") == rulebook.screen_texts("en")
    assert guide.guide.__wrapped__("pl") == guide.guide("en")
    assert tutorial.texts.__wrapped__("pl") == tutorial.texts("en")
    # A language the product does not know at all is still refused.
    with pytest.raises(ValueError, match="fr"):
        rulebook.full_rules("fr")
