"""The species' colours of the browser client as people with the common forms of colour blindness
see them: prints the figures quoted in docs/browser.md (Accessibility).

Commands::

    python benchmarks/colours.py          # every pair of species, under each simulation

Each colour of ``style.css`` (``--BL`` … ``--YE``) is seen through the full-severity matrices of
Machado, Oliveira and Fernandes (2009) for protanopia, deuteranopia and tritanopia, applied in
linear sRGB, and every pair is compared by its CIEDE2000 difference in CIELAB (about 2 is just
noticeable side by side; 10 and more reads as two different colours at a glance). The cards
carry each species' code and shape as well, so a pair that came close would still be told
apart; the figures show that the colours alone already are. Each colour's contrast with the
card's text (white, or dark on yellow) is printed too: WCAG AA asks 4.5 for small text.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from pathlib import Path

STYLE = Path(__file__).resolve().parents[1] / "src" / "piepmatz" / "server" / "static" / "style.css"
SPECIES = ("BL", "BU", "CH", "GR", "SP", "YE")
#: The card's text colour on each species (style.css: white, dark on the light ones).
INK = {"CH": "#1f1d1a", "GR": "#1f1d1a", "YE": "#1f1d1a"}
WHITE = "#ffffff"

#: Machado et al. (2009), severity 1.0, on linear RGB.
SIMULATIONS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}

Linear = tuple[float, float, float]


def species_colours(css: str) -> dict[str, str]:
    """Each species' colour as ``style.css`` sets it (``--BL: #2b2b2b;``)."""
    found = dict(re.findall(r"--(BL|BU|CH|GR|SP|YE):\s*(#[0-9a-fA-F]{6})", css))
    missing = [code for code in SPECIES if code not in found]
    if missing:
        raise ValueError(f"style.css sets no colour for {', '.join(missing)}")
    return {code: found[code] for code in SPECIES}


def linear(colour: str) -> Linear:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return channel(r), channel(g), channel(b)


def simulate(rgb: Linear, form: str) -> Linear:
    """``rgb`` (linear) as seen with ``form`` of colour blindness, clipped to the gamut."""
    m = SIMULATIONS[form]
    out = [sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)]
    r, g, b = (min(1.0, max(0.0, v)) for v in out)
    return r, g, b


def lab(rgb: Linear) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear sRGB colour."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)."""
    l1, a1, b1 = a
    l2, a2, b2 = b
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = (
        -2
        * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
        * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2))))
    )
    return math.sqrt(
        (dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2 + rt * (dc / sc) * (dhh / sh)
    )


def contrast(fg: str, bg: str) -> float:
    """The WCAG contrast ratio of two colours."""

    def luminance(colour: str) -> float:
        r, g, b = linear(colour)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def differences(colours: dict[str, str]) -> dict[str, dict[tuple[str, str], float]]:
    """Each pair of species' CIEDE2000 difference, as seen normally and with each form."""
    seen: dict[str, dict[tuple[str, str], float]] = {}
    for form in ("normal", *SIMULATIONS):
        labs = {}
        for code, colour in colours.items():
            rgb = linear(colour)
            labs[code] = lab(rgb if form == "normal" else simulate(rgb, form))
        seen[form] = {
            (p, q): ciede2000(labs[p], labs[q]) for p, q in itertools.combinations(SPECIES, 2)
        }
    return seen


def main() -> int:
    colours = species_colours(STYLE.read_text(encoding="utf-8"))
    print("contrast of each card's text (WCAG AA: 4.5):")
    for code, colour in colours.items():
        print(f"  {code} {colour}: {contrast(INK.get(code, WHITE), colour):.2f}")
    print("CIEDE2000 between species (closest three pairs; >= 10 reads as different at a glance):")
    for form, pairs in differences(colours).items():
        closest = sorted(pairs.items(), key=lambda item: item[1])[:3]
        words = ", ".join(f"{p}-{q} {d:.1f}" for (p, q), d in closest)
        print(f"  {form:13} {words}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
