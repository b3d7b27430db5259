"""The rules screen's text: the shipped copy of RULES.md, marked for the rules in play.

``piepmatz/RULES.md`` is the rules text the package ships (a test keeps it equal to the spec).
The rules screen shows the flags in play first, then the sections a player needs (cards, setup,
turn, end and scoring, the flags), and before each rule that a flag changes, a note saying what
applies in this game.

>>> from piepmatz.core import Rules
>>> text = rules_markdown(Rules.preset("overview"))
>>> "draw exactly one card" in text and "Appendix" not in text
True
"""

from __future__ import annotations

from importlib import resources

from piepmatz.core import Rules
from piepmatz.i18n import N_, _

#: Flag → (the line that starts the rule it changes, what each value means in play).
_FLAG_NOTES: dict[str, tuple[str, dict[object, str]]] = {
    "no_chase_collect": (
        "**T2.2 No chase.**",
        {
            True: N_(
                "after no chase you **may** add a low bird from your hand to your collection."
            ),
            False: N_("after no chase **nothing happens** — T2.2 below does not apply."),
        },
    ),
    "draw": (
        "- **T3.1 Hand.**",
        {
            "refill": N_("you refill your hand to four cards, one card at a time."),
            "one": N_("you draw exactly one card per turn, not four."),
        },
    ),
    "end_trigger": (
        "- **E1. Trigger.**",
        {
            "feeder": N_("the end is triggered by the empty feeder deck (or a skipped turn)."),
            "feeder_or_birds": N_(
                "the end is triggered by the empty feeder deck **or** an empty "
                "bird deck at the end of a turn."
            ),
        },
    ),
    "last_hand": (
        "- **E3. Last hand.**",
        {
            True: N_("two hand cards join your collection at the end."),
            False: N_("there is no last hand — E3 below does not apply; hands score nothing."),
        },
    ),
    "pairs": (
        "  - **Mated pairs:**",
        {
            "mated": N_("a male and a female of one species **and value** form a pair worth 5."),
            "species": N_(
                "in each species where you hold both sexes, every bird scores its eggs; "
                "the other species score singles for the majority holder only."
            ),
        },
    ),
}
_FLAG_TITLES = {
    "no_chase_collect": N_("no-chase collect (T2.2)"),
    "draw": N_("draw (T3.1)"),
    "end_trigger": N_("end trigger (E1)"),
    "last_hand": N_("last hand (E3)"),
    "pairs": N_("pairs and singles (E4)"),
}


def full_rules() -> str:
    return resources.files("piepmatz").joinpath("RULES.md").read_text(encoding="utf-8")


def rules_markdown(rules: Rules) -> str:
    text = full_rules()
    # The player's part: from the cards to the flags; the sources' appendix is for developers.
    start = text.index("## C. Cards")
    end = text.find("## Appendix")
    body = text[start : end if end >= 0 else len(text)]
    lines = body.splitlines()
    out: list[str] = []
    for line in lines:
        for flag, (marker, notes) in _FLAG_NOTES.items():
            if line.startswith(marker):
                value = getattr(rules, flag)
                note = _("> **In this game ({rules}):** {note}")
                out.append(note.format(rules=rules.name, note=_(notes[value])))
                out.append("")
        out.append(line)
    head = [
        _("# Rules in play: {rules}").format(rules=rules.name),
        "",
        _("| rule | in this game |"),
        "|---|---|",
        *(
            f"| {_(_FLAG_TITLES[flag])} | {_(notes[getattr(rules, flag)])} |"
            for flag, (_marker, notes) in _FLAG_NOTES.items()
        ),
        "",
        _("Rules that a flag changes are marked *In this game* below."),
        "",
    ]
    return "\n".join(head + out)
