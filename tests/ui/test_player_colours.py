"""Colour and motion in the browser player (issue 34, item 5): the star groups', methods' and
curves' colours stay apart for protanopes and deuteranopes (simulated, Machado et al. 2009; the
smallest CIEDE2000 difference is asserted), text keeps 4.5 : 1 and the focus ring 3 : 1 in both
themes, and nothing moves on its own under prefers-reduced-motion."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import pytest

from engine.frames import charts
from engine.frames.stream import DIRECTION_COLOURS, MAKERS
from tests.ui.colour_vision import contrast, difference
from ui import playback

PLAYER = Path(playback.__file__).resolve().parent / "player"
KINDS = (None, "protanopia", "deuteranopia")
# CIEDE2000 ≥ 10: clearly different at a glance (≈ 4× a just-noticeable difference of 2.3);
# measured minimum 11.6 (orange #E69F00 / yellow #F0E442 for a deuteranope)
MIN_DE = 10.0


def themes() -> dict[str, dict[str, str]]:
    text = (PLAYER / "player.js").read_text()
    return {t: dict(re.findall(r'(\w+): "(#[0-9a-fA-F]{6})"',
                               re.search(rf"{t}: \{{([^}}]*)\}}", text).group(1)))
            for t in ("light", "dark")}


def palette_groups() -> dict[str, list[str]]:
    """Colours one picture must tell apart, per theme (black is drawn in the foreground colour
    on the dark theme, FE.ink)."""
    c = dict(re.findall(r'(\w+): "(#[0-9a-fA-F]{6})"',
                        re.search(r"const C = \{([^}]*)\}", (PLAYER / "player.js").read_text())
                        .group(1)))
    methods = list(sys.modules[MAKERS["azl"].__module__].COLORS.values())
    specs = [charts.score_chart("acc"), charts.star_chart(), charts.gradient_chart(),
             charts.coverage_chart()]
    groups = {"star groups": list(DIRECTION_COLOURS), "methods": methods,
              "sign of a_i": [c["blue"], c["purple"]]}
    groups.update({f"chart {s['title']}": [se["colour"] for se in s["series"]] for s in specs})
    out = {}
    for theme, th in themes().items():
        def ink(col: str, fg: str = th["fg"], dark: bool = theme == "dark") -> str:
            return fg if dark and col == "#000000" else col
        out.update({f"{name} ({theme})": [ink(x) for x in cols] for name, cols in groups.items()})
    return out


def smallest_difference(colours: list[str]) -> tuple[float, str]:
    pairs = [(difference(a, b, kind), f"{a}/{b} {kind or 'normal'}") for kind in KINDS
             for a, b in itertools.combinations(colours, 2) if a != b]
    return min(pairs) if pairs else (float("inf"), "")


@pytest.mark.parametrize("group", sorted(palette_groups()))
def test_colours_stay_apart_for_protanopes_and_deuteranopes(group: str) -> None:
    colours = palette_groups()[group]
    assert len(set(colours)) == len(colours), colours  # one colour, one thing
    de, where = smallest_difference(colours)
    print(f"{group}: smallest CIEDE2000 {de:.1f} ({where})")
    assert de >= MIN_DE, (group, de, where)


def css_vars(theme: str) -> dict[str, str]:
    css = (PLAYER / "player.css").read_text()
    light = dict(re.findall(r"--fe-([\w-]+): (#[0-9a-fA-F]{6})", css.split("[data-theme")[0]))
    dark = dict(re.findall(r"--fe-([\w-]+): (#[0-9a-fA-F]{6})",
                           css.split('[data-theme="dark"]')[1].split("}")[0]))
    return light if theme == "light" else {**light, **dark}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_and_focus_ring_contrast(theme: str) -> None:
    """Page text (CSS) and canvas text (THEMES) ≥ 4.5 : 1, the focus ring ≥ 3 : 1; presentation
    mode only enlarges the same colours."""
    v, th = css_vars(theme), themes()[theme]
    ratios = {"text": contrast(v["fg"], v["bg"]), "muted text": contrast(v["muted"], v["bg"]),
              "canvas text": contrast(th["fg"], th["bg"]),
              "canvas muted": contrast(th["muted"], th["bg"]),
              "Play button": contrast("#ffffff", "#1f5fbf")}
    print(theme, {k: round(r, 2) for k, r in ratios.items()})
    assert min(ratios.values()) >= 4.5, ratios
    assert contrast(v["focus"], v["bg"]) >= 3.0, v


def test_nothing_moves_under_reduced_motion() -> None:
    css = (PLAYER / "player.css").read_text()
    rule = css.split("@media (prefers-reduced-motion: reduce)")
    assert len(rule) == 2 and "transition: none" in rule[1] and "animation: none" in rule[1]
    assert "transition:" not in rule[0] and "@keyframes" not in css  # nothing else animates
    js = "".join(p.read_text() for p in PLAYER.glob("*.js"))
    assert not re.search(r"behavior: *[\"']smooth|requestAnimationFrame\(\(\) => this\.tween", js)
