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
    # a limit far off the chart's scale (as gfl-multi-index's NTK at λ → 0, 8.4 on a chart up to
    # 1) is labelled at the chart's edge with its value and an arrow: not dropped, no line
    off = page.evaluate("""() => { const p = globalThis.FE_PLAYER;
      p.store.limits.lines[0].value = 1000; p.sig = null; p.draw();  // sig: draw() skips repaints
      return p.cv.acc.feLevels.map((lv) => ({text: lv.text, off: !!lv.off, box: lv.box})); }""")
    name = got["lines"][0]["name"]
    edge = [lv for lv in off if lv["text"].startswith(name)]
    assert [lv["text"] for lv in edge] == [f"{name} converged limit 1000 ↑"], off
    assert edge[0]["off"] and edge[0]["box"]["y0"] >= 0 and sum(lv["off"] for lv in off) == 1, off
    page.locator(f"{PLAYER} .fe-acc").screenshot(path=str(tmp_path / f"limits-{theme}.png"))
    print("screenshot:", tmp_path / f"limits-{theme}.png")
    assert "Traceback" not in server_log, server_log.text
