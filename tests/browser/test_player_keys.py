"""The player by keyboard alone (issue 34, item 4) and drawn whatever its size (issue 37), in the
offline HTML (the same code as Explore's player, no server needed): every control in tab order
with a visible focus ring in both themes, the keys documented in the player, Home and End, and
no page error when the map has no room (a plane map drew a circle of negative radius)."""

from __future__ import annotations

import dataclasses

import pytest
from playwright.sync_api import Browser, Page, expect

from engine.config import Config
from engine.frames import FrameStream
from engine.presets import preset_config
from tests.ui.colour_vision import contrast
from ui import export
from ui.state import AppState, ExploreState

PLAYER = ".fe-player"
ORDER = ["Reset", "Back", "Play", "Step", "Shown step", "Speed", "Colour", "Smoothing",
         "Show as table: MDS map of the neuron weights (cosine)",
         "Show as table: Accuracy per step", "Show as table: Neurons on a star",
         "Show as table: Relevant share of ∂L/∂w_i"]
FOCUSED = """() => { const e = document.activeElement, s = getComputedStyle(e);
  const bg = getComputedStyle(document.querySelector('.fe-player')).backgroundColor;
  return {width: parseFloat(s.outlineWidth), style: s.outlineStyle, colour: s.outlineColor,
          bg}; }"""


def hex_of(css: str) -> str:
    r, g, b = [int(float(v)) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
    return f"#{r:02x}{g:02x}{b:02x}"


def offline(browser: Browser, tmp_path, cfg: Config, name: str) -> Page:
    state = AppState(cfg=cfg, explore=ExploreState(stream=FrameStream(cfg), run_cfg=cfg))
    state.explore.stream.advance()
    path = tmp_path / f"{name}.html"
    path.write_text(export.export_html(state, name), encoding="utf-8")
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(path.as_uri())
    expect(page.locator(f"{PLAYER} .fe-label")).to_have_text(f"step 0 / {cfg.T}")
    return page


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_control_in_tab_order_with_a_focus_ring(browser: Browser, tmp_path,
                                                      theme: str) -> None:
    page = offline(browser, tmp_path, Config(n=400, n_test=200, T=10, m=10, batch=100), "keys")
    page.evaluate(f"() => FEPlayer.active.setOptions({{theme: '{theme}'}})")
    hint = page.locator(f"{PLAYER} .fe-keys")
    for key in ("Space", "← →", "Home", "End"):
        expect(hint).to_contain_text(key)
    seen = []
    for _ in ORDER:
        page.keyboard.press("Tab")
        got = page.evaluate(FOCUSED)
        # the accessible name, as Chromium computes it (the symbols ◀ ▶ are aria-hidden)
        seen.append(page.locator(":focus").aria_snapshot().split('"')[1])
        assert got["style"] != "none" and got["width"] >= 2, got
        assert contrast(hex_of(got["colour"]), hex_of(got["bg"])) >= 3, got
    assert seen == ORDER, seen
    page.keyboard.press("End")
    expect(page.locator(f"{PLAYER} .fe-label")).to_have_text("step 10 / 10")
    page.keyboard.press("Home")
    expect(page.locator(f"{PLAYER} .fe-label")).to_have_text("step 0 / 10")
    assert page.errors == []


def test_a_plane_map_with_no_room_draws_no_negative_radius(browser: Browser, tmp_path) -> None:
    """The multi-index world's plane map, squeezed to nothing and back, light and dark, in
    presentation mode: no page error (old: "Failed to execute 'arc' … radius … is negative")."""
    cfg = dataclasses.replace(preset_config("gfl-multi-index"), n=600, n_test=500, m=16, T=6,
                              batch=100)
    page = offline(browser, tmp_path, cfg, "plane")
    assert page.evaluate("() => !!FEPlayer.active.store.meta.map.axes")
    for present in (False, True):
        for height in (0, 30, 90, 400):
            page.evaluate(f"""() => {{ const p = FEPlayer.active;
              p.setOptions({{present: {str(present).lower()}, theme: 'dark'}});
              p.cv.map.style.height = '{height}px'; p.sig = null; p.draw(); }}""")
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(50)  # the resize observer redraws
    page.set_viewport_size({"width": 900, "height": 700})
    page.evaluate("() => FEPlayer.active.setOptions({theme: 'light'})")
    page.wait_for_timeout(200)
    assert page.errors == [], page.errors


def test_axe_finds_nothing_in_the_offline_player(browser: Browser, tmp_path) -> None:
    """axe-core (packaged by axe-playwright-python) on the offline HTML with every table open,
    light and dark, presentation mode or not: no violation of any impact."""
    from axe_playwright_python.sync_playwright import Axe

    page = offline(browser, tmp_path, Config(n=400, n_test=200, T=6, m=10, batch=100), "axe")
    page.keyboard.press("ArrowRight")
    page.evaluate("() => document.querySelectorAll('.fe-show').forEach((b) => b.click())")
    expect(page.locator(f"{PLAYER} table")).to_have_count(4)
    for theme in ("light", "dark"):
        for present in ("false", "true"):
            page.evaluate(f"() => FEPlayer.active.setOptions({{theme: '{theme}', "
                          f"present: {present}}})")
            found = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                     for v in Axe().run(page).response["violations"]]
            assert found == [], (theme, present, found)
