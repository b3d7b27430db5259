"""The table as text, from one player's view: used by the Textual screens and by ``--text``.

Everything here is drawn from a :class:`~piepmatz.core.view.PlayerView` (or, for the omniscient
replay viewer, from the views plus the hands the state holds). Species are told apart by their
two-letter codes, so the table reads the same without colour; colour only helps.

>>> from piepmatz.core import State, view_of
>>> view = view_of(State.new_game(players=3, seed=7), 0)
>>> print(table_text(view, ["Player 0 (person)", "Player 1", "Player 2"]).plain.splitlines()[0])
PERCHES  (perch bird ┃ ground birds, in order of arrival)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text

from piepmatz.core import Action, PlayerView, ScoreSheet, score_view
from piepmatz.core.cards import (
    BIRD_EGGS,
    BIRD_FEMALE,
    BIRD_NAMES,
    BIRD_SPECIES,
    BIRD_VALUE,
    FEEDER_EGGS,
    FEEDER_KIND,
    FEEDER_NAMES,
    SEED,
    SPECIES,
)
from piepmatz.core.state import COLLECT, CROW_VICTIM, DRAW, GAME_OVER, LAST_HAND, PLAY, shown_row
from piepmatz.i18n import N_, _, ngettext
from piepmatz.text import scoresheet
from piepmatz.text.words import (
    Part,
    action_words,
    bird_words,
    feeder,
    rules_words,
    seat_name,
    short_label,
    species_name,
    species_short,
)

#: Colour per species (a help only: the codes already tell them apart).
SPECIES_STYLE: dict[str, str] = {
    "BL": "bold bright_white",
    "BU": "bold bright_red",
    "CH": "bold dark_orange",
    "GR": "bold green3",
    "SP": "bold tan",
    "YE": "bold yellow1",
}
#: Tiles: the species' colour behind dark or light letters (the letters carry the species).
SPECIES_TILE: dict[str, str] = {
    "BL": "bold white on grey27",
    "BU": "bold white on red3",
    "CH": "bold black on dark_orange",
    "GR": "bold black on green3",
    "SP": "bold black on tan",
    "YE": "bold black on yellow1",
}
SEX = "♂♀"
#: A bird's code inside a sentence (``BL5m``).
_BIRD_CODE = re.compile(r"\b(?:" + "|".join(SPECIES) + r")[1-6][mf]\b")
#: What the player to act does now, after their name (translated when shown).
PHASE_TASK = {
    PLAY: N_("{player}: play a bird to a perch"),
    COLLECT: N_("{player}: may add a bird to the collection"),
    CROW_VICTIM: N_("{player}: choose the crow's victim"),
    DRAW: N_("{player}: draw a bird"),
    LAST_HAND: N_("{player}: choose the last hand"),
    GAME_OVER: N_("game over"),
}


def bird(card: int) -> Text:
    """A bird in notation, coloured by species."""
    return Text(BIRD_NAMES[card], style=SPECIES_STYLE[SPECIES[BIRD_SPECIES[card]]])


def birds(cards: Sequence[int], sep: str = " ") -> Text:
    return CODES.birds(cards, sep)


def tile_text(card: int) -> str:
    """A bird as a tile: species initials, value, sex, eggs as dots (``Bl5♀•••``), readable
    without colour."""
    species = species_short(SPECIES[BIRD_SPECIES[card]])
    eggs = "•" * BIRD_EGGS[card]
    return f"{species}{BIRD_VALUE[card]}{SEX[BIRD_FEMALE[card]]}{eggs:<3}"


def by_species(collection: Sequence[int]) -> list[tuple[str, list[int]]]:
    """A collection's birds grouped by species (its code), species and birds in order."""
    groups: dict[int, list[int]] = {}
    for card in sorted(collection):
        groups.setdefault(BIRD_SPECIES[card], []).append(card)
    return [(SPECIES[s], cards) for s, cards in sorted(groups.items())]


@dataclass(frozen=True)
class Cards:
    """How birds are drawn: the engine's codes (``BL5m``) or tiles (``Bl5♂•••`` on the
    species' colour)."""

    codes: bool = True
    #: Birds and seeds told as words: a list's items apart ("1: Blackbird 5♂, 2: …"), and a
    #: perch's row padded as a whole (a name's length varies).
    spoken: ClassVar[bool] = False

    def bird(self, card: int) -> Text:
        if self.codes:
            return bird(card)
        return Text(tile_text(card), style=SPECIES_TILE[SPECIES[BIRD_SPECIES[card]]])

    def seed(self, card: int) -> str:
        """A feeder card on the table: a seed by its eggs (``S2``), a pest by name."""
        return feeder(card)

    def species(self, code: str) -> str:
        """A species named alone, as its birds are drawn: by code (``BL``) or as on a tile."""
        return code if self.codes else species_short(code)

    def birds(self, cards: Sequence[int], sep: str = " ", inline: bool = False) -> Text:
        """Birds one after the other; ``inline`` in running text, tiles without the padding
        that lines them up on the table."""
        if not cards:
            return Text("—", style="dim")
        if inline and not self.codes:
            return Text(sep).join(self.sentence([Part("", bird=c)]) for c in cards)
        return Text(sep).join(self.bird(c) for c in cards)

    def sentence(self, parts: Sequence[Part], style: str = "") -> Text:
        """A told sentence (:func:`piepmatz.text.words.told`), its birds drawn this way."""
        out = Text(style=style)
        for part in parts:
            if part.bird is None:
                out.append(part.text)
            elif self.codes:
                out.append_text(bird(part.bird))
            else:
                tile = tile_text(part.bird).rstrip()  # no padding inside a sentence
                out.append(tile, style=SPECIES_TILE[SPECIES[BIRD_SPECIES[part.bird]]])
        return out

    def words(self, text: str, style: str = "") -> Text:
        """A sentence that names birds by their codes, with the birds drawn this way."""
        if self.codes:
            return Text(text, style=style)
        out = Text(style=style)
        last = 0
        for match in _BIRD_CODE.finditer(text):
            out.append(text[last : match.start()])
            card = BIRD_NAMES.index(match.group(0))
            # In a sentence without the padding that lines tiles up on the table.
            out.append(tile_text(card).rstrip(), style=SPECIES_TILE[SPECIES[BIRD_SPECIES[card]]])
            last = match.end()
        out.append(text[last:])
        return out

    def drawn(self, text: Text) -> Text:
        """A styled text that names birds by their codes, with the birds drawn this way (a bird
        already drawn as a tile stays one)."""
        if self.codes:
            return text
        out = Text()
        last = 0
        for match in _BIRD_CODE.finditer(text.plain):
            out.append_text(text[last : match.start()])
            card = BIRD_NAMES.index(match.group(0))
            out.append(tile_text(card).rstrip(), style=SPECIES_TILE[SPECIES[BIRD_SPECIES[card]]])
            last = match.end()
        out.append_text(text[last:])
        return out

    def collection(self, collection: Sequence[int], majority_of: dict[str, bool]) -> Text:
        """A collection grouped by species; male and female of a value sit side by side.

        ``majority_of`` marks with ★ the species whose strict majority this player holds.
        """
        out = Text()
        for code, cards in by_species(collection):
            if out:
                out.append(" │ ", style="dim")
            if self.codes:
                out.append(code, style=SPECIES_STYLE[code])
            else:
                out.append(species_short(code), style=SPECIES_TILE[code])
            # Same value written together: "5m5f" (a mated pair in the standard rules).
            last_value = 0
            for card in cards:
                value = BIRD_VALUE[card]
                if value != last_value:
                    out.append(" ")
                out.append(f"{value}{('mf' if self.codes else SEX)[BIRD_FEMALE[card]]}")
                last_value = value
            if majority_of.get(code):
                out.append(" ★", style="bold")
        return out if out else Text(_("no birds yet"), style="dim")


@dataclass(frozen=True)
class WordCards(Cards):
    """Birds in words (``Blackbird 5♂``), plain: what a screen reader reads out as the bird,
    where a code (``BL5m``) is read letter by letter. The text mode's way."""

    spoken: ClassVar[bool] = True

    def bird(self, card: int) -> Text:
        return Text(bird_words(card))

    def seed(self, card: int) -> str:
        if FEEDER_KIND[card] != SEED:
            return feeder(card)
        eggs = FEEDER_EGGS[card]
        return ngettext("{count} egg", "{count} eggs", eggs).format(count=eggs)

    def species(self, code: str) -> str:
        return species_name(code)

    def birds(self, cards: Sequence[int], sep: str = " ", inline: bool = False) -> Text:
        if not cards:
            return Text(_("none"))
        return Text(", ".join(bird_words(c) for c in cards))

    def sentence(self, parts: Sequence[Part], style: str = "") -> Text:
        return Text("".join(part.text for part in parts), style=style)

    def words(self, text: str, style: str = "") -> Text:
        said = _BIRD_CODE.sub(lambda code: bird_words(BIRD_NAMES.index(code.group(0))), text)
        return Text(said, style=style)

    def drawn(self, text: Text) -> Text:
        return self.words(text.plain)

    def collection(self, collection: Sequence[int], majority_of: dict[str, bool]) -> Text:
        groups = []
        for code, cards in by_species(collection):
            birds = " ".join(f"{BIRD_VALUE[c]}{SEX[BIRD_FEMALE[c]]}" for c in cards)
            most = " " + _("(majority)") if majority_of.get(code) else ""
            groups.append(f"{species_name(code)} {birds}{most}")
        return Text("; ".join(groups) if groups else _("no birds yet"))


CODES = Cards(codes=True)
TILES = Cards(codes=False)
WORDS = WordCards()


def legend_markdown() -> str:
    """How to read the terminal's table (its tiles, seeds and marks), in the current language:
    the first part of the rules screen, for a player who meets ``Gi4♀••`` or ``S3+crow``. Its
    examples are written with the table's own words."""
    bird = BIRD_NAMES.index("BL5f")
    pair = [BIRD_NAMES.index("GR2m"), BIRD_NAMES.index("GR2f")]
    species = " · ".join(f"**{species_short(code)}** {species_name(code)}" for code in SPECIES)
    weighed = _("ground {ground:>2} vs perch {perch}").format(ground=7, perch=6).replace("  ", " ")
    seeds = _("seeds {count}").format(count=3) + " ("
    seeds += ngettext("{count} egg", "{count} eggs", 4).format(count=4) + ", "
    seeds += _("{count} blind").format(count=1) + ")"
    lines = [
        "## " + _("Reading the table"),
        "",
        _(
            "- A bird: its species in two letters, its value, ♂ or ♀, and its eggs as dots: "
            "{tile} is {bird} with {eggs} eggs. The key c shows the birds in the notation's "
            "codes instead ({code})."
        ).format(
            tile=tile_text(bird).rstrip(),
            bird=bird_words(bird),
            eggs=BIRD_EGGS[bird],
            code=BIRD_NAMES[bird],
        ),
        _("- The species: {species}.").format(species=species),
        _(
            "- A perch's row: the perch bird ┃ the ground birds, in the order they came. "
            "“{weighed}” weighs them: a ground stronger than the perch chases the perch bird."
        ).format(weighed=weighed),
        _(
            "- A seed by its eggs: S2 has 2 eggs; {seed} is a seed of 3 eggs with a crow beside it."
        ).format(seed="S3+" + feeder(FEEDER_NAMES.index("CRa"))),
        _(
            "- A collection, by species: {pair} is {birds}, a mated pair; ★ marks the species "
            "of which the player holds the most birds."
        ).format(
            pair=TILES.collection(pair, {}).plain,
            birds=", ".join(bird_words(b) for b in pair),
        ),
        _(
            "- Seeds taken blind lie face down: “{seeds}” counts the eggs of the seeds seen; "
            "a blind seed's eggs are its owner's secret until the end."
        ).format(seeds=seeds),
    ]
    return "\n".join(lines) + "\n"


def pest_codes(cards: Sequence[int]) -> str:
    """Pests by kind, counted: ``crow, squirrel ×3`` (a list of three squirrels would not fit a
    player's line)."""
    if not cards:
        return _("none")
    names: dict[str, int] = {}
    for card in cards:
        names[feeder(card)] = names.get(feeder(card), 0) + 1
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in names.items())


@dataclass(frozen=True)
class End:
    """What the table shows once the game is over: the final score sheet and every player's
    blind seeds (nothing is hidden any more), so that its totals are the sheet's."""

    sheet: ScoreSheet
    blind: Sequence[Sequence[int]]


def _flow(first: Text, pieces: Sequence[Text], second: Text, width: int | None) -> list[Text]:
    """A player's lines: ``first`` and then ``pieces`` while they fit ``width``, ``second`` (the
    collection) and the pieces left over while they fit, then lines of their own. A piece is
    never cut, so a line never wraps in the middle of what it says."""
    sep = " · "

    def fits(line: Text, piece: Text) -> bool:
        return width is None or line.cell_len + len(sep) + piece.cell_len <= width

    rest = list(pieces)
    lines = [first.copy()]
    while rest and fits(lines[0], rest[0]):
        lines[0].append(sep)
        lines[0].append_text(rest.pop(0))
    lines.append(second.copy())
    for piece in rest:
        if fits(lines[-1], piece):
            lines[-1].append(sep)
            lines[-1].append_text(piece)
        else:
            lines.append(Text("    ").append_text(piece))
    return lines


def table_text(
    view: PlayerView,
    labels: Sequence[str],
    show_hand: bool = True,
    cards: Cards = CODES,
    *,
    width: int | None = None,
    header: bool = True,
    end: End | None = None,
) -> Text:
    """The whole table as this player sees it: perches, seed column, display, players (with
    the running score), hand.

    ``width`` keeps each player's lines within that many columns (their parts move to the next
    line whole); ``header=False`` leaves out the perches' heading line (a short terminal);
    ``end`` shows the final sheet's totals and every blind seed once the game is over.
    """
    t = Text()
    # Read out, a drawn mark is a word of nothing ("heavy vertical"): the words' table says
    # what the marks show.
    spoken = cards.spoken
    if header:
        t.append(_("PERCHES"), style="bold underline")
        about = (
            _("(each perch: its bird, then the ground birds in order of arrival)")
            if spoken
            else _("(perch bird ┃ ground birds, in order of arrival)")
        )
        t.append("  " + about + "\n", style="dim")
    for i, row in enumerate(view.rows):
        at_perch, on_ground, perch, ground = shown_row(row, i == view.chase_perch)
        t.append(f" {i + 1} ", style="bold reverse")
        t.append(" ")
        perch_bird = cards.bird(at_perch) if at_perch is not None else Text(_("empty"), style="dim")
        t.append_text(perch_bird)
        t.append(", " + _("ground:") + " " if spoken else " ┃ ")
        line = cards.birds(on_ground)
        t.append_text(line)
        if cards.spoken:  # names of different lengths: the rows line up anyway
            pad = max(1, 48 - len(perch_bird.plain) - len(line.plain))
        else:
            pad = max(1, (34 if cards.codes else 40) - len(line.plain))
        t.append(" " * pad)
        perch_text = (_("none") if spoken else "—") if perch is None else perch
        t.append(_("ground {ground:>2} vs perch {perch}").format(ground=ground, perch=perch_text))
        t.append("\n")
    t.append(_("SEED COLUMN"), style="bold underline")
    t.append(" ")
    apart = cards.spoken
    for pos, card in enumerate(view.column):
        t.append(("," if pos and apart else "") + f" {pos + 1}:" + " " * apart, style="dim")
        t.append(cards.seed(card), style="bold")
        pest = view.column_pests[pos]
        if pest >= 0:
            t.append(f"{' + ' if apart else '+'}{cards.seed(pest)}", style="bold magenta")
    t.append("   " + _("feeder deck {count}").format(count=view.feeder_deck_size) + "\n")
    t.append_text(display_text(view, cards))
    t.append("\n")
    sheet = score_view(view) if end is None else end.sheet
    for p in range(view.num_players):
        pieces = [
            Text(_("score {score}").format(score=sheet.players[p].total), style="bold"),
            Text(_("hand {count}").format(count=view.hand_sizes[p])),
        ]
        if view.shown[p] and p != view.player:
            # Birds everybody saw them draw from the display (T3.1); after the last-hand
            # choice they are among the kept and discarded (E3).
            shown = Text((_("kept or discarded:") if view.chosen[p] else _("incl.")) + " ")
            pieces.append(shown.append_text(cards.birds(view.shown[p], inline=True)))
        pieces.append(_seeds(view, p, end, cards))
        if view.pests[p]:
            pieces.append(Text(_("pests {pests}").format(pests=pest_codes(view.pests[p]))))
        majority = {code: holder == p for code, holder in sheet.majority.items()}
        collection = Text("    ").append_text(cards.collection(view.collections[p], majority))
        lines: list[Text] = []
        # A bot's level goes first when the player's lines would not fit otherwise.
        for label in dict.fromkeys([labels[p], short_label(labels[p])]):
            first = Text()
            to_play = p == view.current_player
            if not spoken:
                first.append("▶ " if to_play else "  ", style="bold")
            first.append(label, style="bold" if p == view.player else "")
            if spoken and to_play:
                first.append(", " + _("to play"))
            lines = _flow(first, pieces, collection, width)
            if len(lines) <= 2 or p == view.player:
                break
        for line in lines:
            t.append_text(line)
            t.append("\n")
    if show_hand:
        t.append_text(hand_text(view, cards, short_label(labels[view.player])))
    return t


def display_text(view: PlayerView, cards: Cards = CODES) -> Text:
    """The display's line of the table: its slots, the bird deck, the species set aside."""
    t = Text()
    apart = cards.spoken
    t.append(_("DISPLAY"), style="bold underline")
    # The display's slots line up under the seed column's positions.
    t.append(" " * max(1, len(_("SEED COLUMN")) + 1 - len(_("DISPLAY"))))
    for slot, card in enumerate(view.display):
        t.append(("," if slot and apart else "") + f" {slot + 1}:" + " " * apart, style="dim")
        if card >= 0:
            t.append_text(cards.bird(card))
        else:
            t.append(_("empty"), style="dim")
    t.append("   " + _("bird deck {count}").format(count=view.bird_deck_size))
    if view.removed_birds:
        gone = sorted({SPECIES[BIRD_SPECIES[b]] for b in view.removed_birds})
        named = ", ".join(cards.species(code) for code in gone)
        t.append(" · " + _("{species} set aside").format(species=named), style="dim")
    return t


def _seeds(view: PlayerView, p: int, end: End | None, cards: Cards = CODES) -> Text:
    """A player's seed pile: how many, their eggs, the blind ones (by value to their owner and,
    once the game is over, to everybody; else only how many)."""
    blind = view.blind_counts[p]
    seeds = len(view.seeds_seen[p]) + blind
    revealed = end.blind[p] if end is not None else view.own_blind if p == view.player else None
    known = list(view.seeds_seen[p]) + list(revealed or ())
    eggs = sum(FEEDER_EGGS[c] for c in known)
    text = _("seeds {count}").format(count=seeds)
    if seeds:
        text += " (" + ngettext("{count} egg", "{count} eggs", eggs).format(count=eggs)
        if blind and revealed is not None:
            shown = (", " if cards.spoken else " ").join(cards.seed(c) for c in revealed)
            text += ", " + _("{count} blind: {seeds}").format(count=blind, seeds=shown)
        elif blind:
            text += ", " + _("{count} blind").format(count=blind)
        text += ")"
    return Text(text)


def hand_text(view: PlayerView, cards: Cards = CODES, name: str | None = None) -> Text:
    """The player's hand, headed with their name as the table gives it (``name``: an online
    seat's, else ``Player N``)."""
    t = Text()
    t.append(
        _("YOUR HAND ({player})").format(player=name or seat_name(view.player)),
        style="bold underline",
    )
    t.append("  ")
    t.append_text(cards.birds(view.hand, sep="  "))
    return t


def status_text(
    view: PlayerView,
    labels: Sequence[str],
    rules_name: str,
    seed: int | None,
    width: int | None = None,
    ended: str | None = None,
) -> Text:
    """The line above the table: the rules, the deal, the turn and who does what now. Within
    ``width`` the player is named short, then the deal and the rules are left out (the end
    screen and the rules screen tell them): the line never wraps. ``seed`` None: a deal not
    told (an online table's, the server's secret until the end); ``ended``: how a game that
    was not played out ended (resigned, aborted), said in place of who moves."""
    task = _(PHASE_TASK[view.phase])
    names = [labels, [short_label(label) for label in labels]]
    line = Text()
    for labels_, context in itertools.product(names, (2, 1, 0)):
        line = Text()
        about = [
            rules_words(rules_name),
            _("seed {seed}").format(seed=seed) if seed is not None else "",
            _("turn {turn}").format(turn=view.turn),
        ][2 - context :]
        about = [part for part in about if part]
        line.append(" · ".join(about) + " · ")
        if ended is not None:
            task = ended
        elif view.phase != GAME_OVER:
            task = _(PHASE_TASK[view.phase]).format(player=labels_[view.current_player])
        line.append(task, style="bold")
        if view.end_triggered is not None and view.phase != GAME_OVER and ended is None:
            line.append(" · " + _("last round"), style="bold red")
        if width is None or line.cell_len <= width:
            break
    return line


def action_text(action: Action, short: bool = False, display: Sequence[int] | None = None) -> str:
    """An action in words for a choice list (``short`` for the table's narrow choice column),
    its birds as this block writes them (``birds_as``); a display draw names its bird when
    the ``display`` is given."""
    return action_words(action, short, display)


def score_sheet_text(sheet: ScoreSheet, labels: Sequence[str]) -> Text:
    """The score sheet (the one table, :func:`piepmatz.text.scoresheet.table`: short headings,
    the verdict, who sat where), and the majorities."""
    t = Text()
    seating = scoresheet.seating(labels)
    for line in scoresheet.table(sheet, labels).splitlines():
        strong = line.startswith((_("total"), " ")) or not line[:1].strip()
        t.append(line + "\n", style="dim" if line == seating else "bold" if strong else "")
    tie = _("tie")
    majority = ", ".join(
        f"{species_name(code)}: {tie if holder is None else short_label(labels[holder])}"
        for code, holder in sheet.majority.items()
    )
    t.append(_("majorities: {majorities}").format(majorities=majority or _("none")), style="dim")
    return t
