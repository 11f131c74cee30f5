"""A GFL world's map in the browser: a star per feature direction, each in its own colour, with
the count of neurons within cos 0.9 of it after step 1 (issue 21 item 4)."""

from __future__ import annotations

import dataclasses

from playwright.sync_api import Page, expect

from engine.methods import make_run
from engine.presets import preset_config
from engine.procedures.gfl.probes import layer_probes
from engine.worlds import build_world

PLAYER = ".fe-player"
SIZES = {"n": 600, "n_test": 500, "m": 16, "T": 6, "batch": 100}
# each counted star: its name, count and the colour of the pixel at its centre
STARS = """() => {
  const cv = document.querySelector('.fe-player .fe-map'), ctx = cv.getContext('2d');
  const dpr = cv.width / cv.clientWidth;
  return cv.feStars.map(s => {
    const px = ctx.getImageData(Math.round(s.x * dpr), Math.round(s.y * dpr), 1, 1).data;
    return {name: s.name, count: s.count, rgb: [px[0], px[1], px[2]].join(',')};
  });
}"""


def counts_after_step_1(preset: str) -> list[int]:
    """The per-direction counts of the same run, trained here (same seed, same numbers)."""
    cfg = dataclasses.replace(preset_config(preset), **SIZES)
    run = make_run("network", build_world(cfg))
    run.step()
    return [int(c) for c in layer_probes(run.history[1].weights, run.prep.dirs)["nice"]]

def open_at_step_1(page: Page, wait_for_app, preset: str) -> None:
    """Open Explore on the preset at SIZES (1280×800) and press Step once."""
    page.set_viewport_size({"width": 1280, "height": 800})
    query = "&".join(f"{k}={v}" for k, v in SIZES.items())
    page.goto(f"/?preset={preset}&{query}")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)
    page.click(f"{PLAYER} .fe-step")
    page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.step === '1'",
                           timeout=120_000, polling=50)



def test_gfl_mog_draws_six_coloured_stars_with_their_counts(
        page: Page, server_log, wait_for_app) -> None:
    open_at_step_1(page, wait_for_app, "gfl-mog")
    stars = page.evaluate(STARS)
    assert [s["name"] for s in stars] == [f"D{j}" for j in range(1, 7)], stars
    assert [s["count"] for s in stars] == counts_after_step_1("gfl-mog"), stars
    assert len({s["rgb"] for s in stars}) == 6, stars  # each direction in its own colour
    expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("After step 1")
    expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("coverage")
    assert "Traceback" not in server_log, server_log.text


def test_gfl_multi_index_map_is_drawn_in_the_relevant_plane(
        page: Page, server_log, wait_for_app, tmp_path) -> None:
    """The stars' last rows −u₁ and −u₂ sit at (−1, 0) and (0, −1) of the plane's fixed frame:
    one unit left of the centre and one unit below it (an MDS map has no such frame)."""
    open_at_step_1(page, wait_for_app, "gfl-multi-index")
    stars = page.evaluate("() => document.querySelector('.fe-player .fe-map').feStars")
    assert [s["name"] for s in stars] == ["±D1", "±D2"], stars
    minus_u1, minus_u2 = stars
    unit_x, unit_y = minus_u2["x"] - minus_u1["x"], minus_u2["y"] - minus_u1["y"]
    assert unit_x > 20 and abs(unit_x - unit_y) < 1.0, stars  # (−1, 0) → (0, −1): +1, +1
    page.locator(f"{PLAYER} .fe-map").screenshot(path=str(tmp_path / "plane.png"))
    assert "Traceback" not in server_log, server_log.text
