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

#: Flag → (the line that starts the rule it changes, what each value means in play).
_FLAG_NOTES: dict[str, tuple[str, dict[object, str]]] = {
    "no_chase_collect": (
        "**T2.2 No chase.**",
        {
            True: "after no chase you **may** add a low bird from your hand to your collection.",
            False: "after no chase **nothing happens** — T2.2 below does not apply.",
        },
    ),
    "draw": (
        "- **T3.1 Hand.**",
        {
            "refill": "you refill your hand to four cards, one card at a time.",
            "one": "you draw exactly one card per turn, not four.",
        },
    ),
    "end_trigger": (
        "- **E1. Trigger.**",
        {
            "feeder": "the end is triggered by the empty feeder deck (or a skipped turn).",
            "feeder_or_birds": "the end is triggered by the empty feeder deck **or** an empty "
            "bird deck at the end of a turn.",
        },
    ),
    "last_hand": (
        "- **E3. Last hand.**",
        {
            True: "two hand cards join your collection at the end.",
            False: "there is no last hand — E3 below does not apply; hands score nothing.",
        },
    ),
    "pairs": (
        "  - **Mated pairs:**",
        {
            "mated": "a male and a female of one species **and value** form a pair worth 5.",
            "species": "in each species where you hold both sexes, every bird scores its eggs; "
            "the other species score singles for the majority holder only.",
        },
    ),
}
_FLAG_TITLES = {
    "no_chase_collect": "no-chase collect (T2.2)",
    "draw": "draw (T3.1)",
    "end_trigger": "end trigger (E1)",
    "last_hand": "last hand (E3)",
    "pairs": "pairs and singles (E4)",
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
                out.append(f"> **In this game ({rules.name}):** {notes[value]}")
                out.append("")
        out.append(line)
    head = [
        f"# Rules in play: {rules.name}",
        "",
        "| rule | in this game |",
        "|---|---|",
        *(
            f"| {_FLAG_TITLES[flag]} | {notes[getattr(rules, flag)]} |"
            for flag, (_, notes) in _FLAG_NOTES.items()
        ),
        "",
        "Rules that a flag changes are marked *In this game* below.",
        "",
    ]
    return "\n".join(head + out)
