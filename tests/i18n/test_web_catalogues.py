"""The browser client's texts (domain ``web``) have a catalogue in every language, so the
completeness test of ``test_i18n`` (every text translated, no fuzzy entry, the same
placeholders, compiled) covers them; and the extraction finds the texts of the pages' modules."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

from piepmatz import i18n
from piepmatz.i18n import LANGUAGES, LOCALE_DIR


def test_every_language_has_a_catalogue_of_the_pages_texts() -> None:
    for lang in LANGUAGES[1:]:
        assert (LOCALE_DIR / lang / "LC_MESSAGES" / "web.po").is_file(), lang
        assert (LOCALE_DIR / lang / "LC_MESSAGES" / "web.mo").is_file(), lang


def test_the_pages_texts_are_extracted_from_the_modules(tmp_path: Path) -> None:
    template = tmp_path / "web.pot"
    i18n.extract("web", template)
    with template.open("rb") as fh:
        ids = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fh) if m.id}
    # one text of each page's module, and a plural one
    for text in (
        "Play against bots now",  # lobby.js
        "Your move",  # table.js
        "Seed column",  # board.js
        "hidden bird",  # cards.js
        "Replay of table {table}",  # replay.js
        "Other rule set:",  # rules.js
        "Language",  # app.js
        "Copied: {what}",  # dom.js
        "{count} player",  # ngettext
    ):
        assert text in ids, text
    # the Python side's texts are not the pages'
    assert not any(text.startswith("Player {player} plays") for text in ids)
