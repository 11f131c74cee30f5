"""Explore's AZL chart draws the converged limits of its fixed-feature curves (NTK, last layer) as
dashed levels in their colours labelled "converged limit", once the run is done (the limits are
solved after it, off the critical path; the player plays before they come), light and dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.test_map_labels import AZL, PLAYER, open_explore

LEVELS = """() => { const p = globalThis.FE_PLAYER, cv = p.cv.acc;
  const colours = Object.fromEntries(p.store.meta.charts[0].series.map((m) => [m.name, m.colour]));
  return {levels: cv.feLevels || [], colours: colours, done: p.store.done,
          lines: p.store.limits ? p.store.limits.lines : null}; }"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_azl_explore_draws_each_converged_limit(page: Page, server_log, wait_for_app, theme: str,
                                                tmp_path) -> None:
    open_explore(page, wait_for_app, "azl-resnet", {**AZL, "T": 12}, theme)
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_function("() => { const cv = globalThis.FE_PLAYER.cv.acc;"
                           " return cv.feLevels && cv.feLevels.length === 2; }",
                           timeout=180_000, polling=200)
    got = page.evaluate(LEVELS)
    assert got["done"], got
    texts = sorted(lv["text"] for lv in got["levels"])
    assert texts == ["NTK (2-layer) converged limit", "last layer (CK) converged limit"], got
    for lv, ln in zip(got["levels"], got["lines"], strict=True):
        name = ln["name"]
        assert lv["colour"] == got["colours"][name] == ln["colour"], got  # the curve's colour
        assert lv["y"] == ln["value"] and 0.1 <= lv["y"] <= 30, got
        assert ln["converged"] and ln["certificate"] <= 1e-4, got
    boxes = sorted((lv["box"]["y0"], lv["box"]["y1"]) for lv in got["levels"])
    assert boxes[0][1] <= boxes[1][0] + 0.5, boxes  # the two labels do not overlap
    # a limit off the chart's scale is labelled at its edge with its value (not dropped, no line)
    off = page.evaluate("""() => [8.371, -2].map((y) => FE.onScale(
      {y: y, text: "NTK converged limit", colour: "#000"},
      {lo: 0.1, hi: 1, say: (v) => String(+v.toPrecision(3))}))""")
    assert [(o["y"], o["text"], o.get("off")) for o in off] == [
        (1, "NTK converged limit 8.37 ↑", True), (0.1, "NTK converged limit -2 ↓", True)], off
    inside = page.evaluate("() => FE.onScale({y: 0.5, text: 'x'}, {lo: 0.1, hi: 1})")
    assert inside == {"y": 0.5, "text": "x"}, inside
    page.locator(f"{PLAYER} .fe-acc").screenshot(path=str(tmp_path / f"limits-{theme}.png"))
    print("screenshot:", tmp_path / f"limits-{theme}.png")
    assert "Traceback" not in server_log, server_log.text
