"""What the map and charts show a class, measured in the drawn canvas, light and dark (issue 28
item 3): a count label covers no star and no other label, every star and label chip stands out
from the background (the eighth group colour is black), a chart value off its axis is marked and
named, and the AZL world's per-pair counts have a chart of their own beside the map."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PLAYER = ".fe-player"
GFL = {"n": 600, "n_test": 500, "m": 16, "T": 6, "batch": 100}  # as tests/browser/test_gfl_stars
AZL = {"n": 1000, "n_test": 600, "m": 40, "T": 30, "batch": 100, "azl_drop_epoch": 0}
# Every problem of the map's labels: a box over a marker, two boxes over each other, a label that
# found no free spot, and a star or a label's colour chip whose pixel is (nearly) the background.
LABEL_PROBLEMS = """() => {
  const cv = document.querySelector('.fe-player .fe-map'), ctx = cv.getContext('2d');
  const dpr = cv.width / cv.clientWidth, out = [];
  const px = (x, y) => ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
  const bg = px(2, 2), far = (p) => Math.hypot(p[0] - bg[0], p[1] - bg[1], p[2] - bg[2]) > 60;
  const near = (b, x, y) => Math.hypot(x - Math.max(b.x0, Math.min(b.x1, x)),
                                       y - Math.max(b.y0, Math.min(b.y1, y)));
  const boxes = cv.feLabels;
  if (!boxes || boxes.length !== cv.feStars.length) return ['labels not reported'];
  if (cv.feClash) out.push(cv.feClash + ' labels found no free spot');
  boxes.forEach((b, q) => {
    for (const s of cv.feMarks) if (near(b, s.x, s.y) < s.r) out.push(b.name + ' covers a marker');
    boxes.slice(q + 1).forEach((c) => {
      const hit = b.x0 < c.x1 && c.x0 < b.x1 && b.y0 < c.y1 && c.y0 < b.y1;
      if (hit) out.push(b.name + ' / ' + c.name);
    });
    const chip = px(b.x0 + 9, (b.y0 + b.y1) / 2);
    if (!far(chip)) out.push(b.name + ': chip invisible ' + Array.from(chip));
  });
  for (const s of cv.feStars) if (!far(px(s.x, s.y))) out.push(s.name + ': star invisible');
  return out;
}"""


def open_explore(page: Page, wait_for_app, preset: str, sizes: dict, theme: str) -> None:
    """Explore on the preset at the given sizes and theme, 1280×800, ready at step 0."""
    page.set_viewport_size({"width": 1280, "height": 800})
    query = "&".join(f"{k}={v}" for k, v in {**sizes, "theme": theme}.items())
    page.goto(f"/?preset={preset}&{query}")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)


def step_to(page: Page, step: int) -> None:
    """Press Step until the player shows `step`."""
    for k in range(int(page.locator(PLAYER).get_attribute("data-step")) + 1, step + 1):
        page.click(f"{PLAYER} .fe-step")
        page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.step === "
                               f"'{k}'", timeout=120_000, polling=50)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_gfl_mog_labels_cover_no_star_and_no_label(page: Page, server_log, wait_for_app,
                                                    theme: str) -> None:
    open_explore(page, wait_for_app, "gfl-mog", GFL, theme)
    for step in (1, 3, 6):  # the stars D5/D6 sit close together at every step
        step_to(page, step)
        assert page.evaluate(LABEL_PROBLEMS) == [], (theme, step)
    assert "Traceback" not in server_log, server_log.text


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_azl_pair_labels_stay_apart_and_pair_counts_have_their_own_chart(
        page: Page, server_log, wait_for_app, theme: str, tmp_path) -> None:
    open_explore(page, wait_for_app, "azl-resnet", AZL, theme)
    for step in (1, 12):
        step_to(page, step)
        assert page.evaluate(LABEL_PROBLEMS) == [], (theme, step)
    chart = page.evaluate("""() => { const p = globalThis.FE_PLAYER, i = p.cur;
      const cv = p.cv.pairs, spec = cv.feSpec;
      return {shown: cv.style.display !== 'none' && cv.clientHeight > 150, title: spec.title,
              names: spec.series.map((s) => s.name),
              now: spec.series.map((s) => s.values(p.store)[i]),
              counts: p.store.s.counts[i], labels: p.cv.map.feStars.map((s) => s.name),
              mapBottom: p.cv.map.getBoundingClientRect().bottom,
              chartBottom: cv.getBoundingClientRect().bottom}; }""")
    assert chart["shown"] and "per pair" in chart["title"], chart
    assert chart["names"] == chart["labels"] and len(chart["names"]) == 8, chart
    assert chart["now"] == chart["counts"], chart  # the map's counts, one line per pair
    assert abs(chart["mapBottom"] - chart["chartBottom"]) < 30, chart  # beside the map
    page.locator(f"{PLAYER} .fe-grid").screenshot(path=str(tmp_path / f"azl-{theme}.png"))
    assert "Traceback" not in server_log, server_log.text


# every shown chart: where its title ends and its first legend row (beside the title) starts
TITLES = """() => Array.from(document.querySelectorAll('.fe-player .fe-side canvas'))
  .filter((cv) => cv.style.display !== 'none' && cv.feTitle)
  .map((cv) => ({cls: cv.className, ...cv.feTitle}))"""


def test_a_regression_error_above_the_axis_is_marked_and_named(
        page: Page, server_log, wait_for_app) -> None:
    """gfl-multi-index's test MSE / Var(y) jumps to ≈ 6 at step 1 (41.99 at the preset's size)
    on an axis that ends at 1.5: the chart says so and names the value. At 1000 px wide no
    legend runs into its chart's title ("Coverage and shares (Algorithm 1's probes)")."""
    open_explore(page, wait_for_app, "gfl-multi-index", GFL, "light")
    page.set_viewport_size({"width": 1000, "height": 800})
    step_to(page, 1)
    titles = page.evaluate(TITLES)
    assert len(titles) == 2, titles
    assert all(t["legendLeft"] is None or t["right"] + 8 <= t["legendLeft"] for t in titles), titles
    off = page.evaluate("""() => { const p = globalThis.FE_PLAYER;
      return {...p.cv.acc.feOff, test: p.store.s.test[1]}; }""")
    assert off["test"] > 1.5, off
    assert off["max"] == pytest.approx(off["test"]) and off["maxStep"] == 1, off
    assert f"{off['test']:.4g}" in off["text"] and "above 1.50" in off["text"], off
    expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("After step 1")
    assert "Traceback" not in server_log, server_log.text
