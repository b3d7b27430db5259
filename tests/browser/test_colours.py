"""The species' colours of the browser's cards, as the common forms of colour blindness see them
(``benchmarks/colours.py``): every pair stays apart, and each card's text is legible on its
colour. The cards carry each species' code and shape too; the colours alone must not collide."""

from __future__ import annotations

import pytest

from benchfiles import load_benchmark

colours = load_benchmark("colours")

#: The least CIEDE2000 difference between two species' colours: about 2 is just noticeable side
#: by side; at 10 and more two small cards read as different colours at a glance.
APART = 10.0


@pytest.fixture(scope="module")
def palette() -> dict[str, str]:
    found: dict[str, str] = colours.species_colours(colours.STYLE.read_text(encoding="utf-8"))
    return found


def test_every_pair_of_species_stays_apart_with_each_form_of_colour_blindness(
    palette: dict[str, str],
) -> None:
    seen = colours.differences(palette)
    assert set(seen) == {"normal", "protanopia", "deuteranopia", "tritanopia"}
    for form, pairs in seen.items():
        assert len(pairs) == 15
        closest = min(pairs, key=pairs.get)
        assert pairs[closest] >= APART, (form, closest, pairs[closest])


def test_each_cards_text_is_legible_on_its_species_colour(palette: dict[str, str]) -> None:
    for code, colour in palette.items():
        ink = colours.INK.get(code, colours.WHITE)
        assert colours.contrast(ink, colour) >= 4.5, (code, colour, ink)


def test_the_simulation_tells_apart_what_it_should_and_merges_what_it_should() -> None:
    # Red and green differ plainly for most people and hardly at all with deuteranopia (the
    # classic confusion pair); a colour compared with itself differs by nothing.
    red, green = "#c0392b", "#2e8b3d"
    palette = dict(zip(colours.SPECIES, [red, green, *["#000000"] * 4], strict=True))
    seen = colours.differences(palette)
    assert seen["normal"][("BL", "BU")] > 30
    assert seen["deuteranopia"][("BL", "BU")] < seen["normal"][("BL", "BU")] / 2
    assert seen["normal"][("CH", "GR")] == 0
    assert colours.contrast("#ffffff", "#000000") == pytest.approx(21)
    with pytest.raises(ValueError, match="no colour for CH, GR, SP, YE"):
        colours.species_colours("--BL: #000000; --BU: #111111;")
