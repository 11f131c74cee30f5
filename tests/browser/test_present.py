"""Presentation mode in front of a class: the keys work wherever the focus is, and the map, the
accuracy chart and the whole narration stay on screen without overlapping (issue 23)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PLAYER = ".fe-player"
# Boxes of the three parts, the viewport, and whether the narration's text fits its box.
LAYOUT_JS = """() => {
  const box = (s) => { const r = document.querySelector('.fe-player ' + s).getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const n = document.querySelector('.fe-player .fe-narr');
  return {map: box('.fe-map'), acc: box('.fe-acc'), narr: box('.fe-narr'),
          vw: window.innerWidth, vh: window.innerHeight, scrollY: window.scrollY,
          narrFits: n.scrollHeight <= n.clientHeight + 1 && n.textContent.length > 20}; }"""


# what the AZL frames put on screen: the map's stars (neurons + 32 rows of marks), whether the
# test-error chart is shown, the number of labelled star groups, whether the colour menu shows
AZL_SHOWN = """() => { const p = globalThis.FE_PLAYER, m = p.store.meta;
  return {stars: m.points - m.neurons, acc: p.cv.acc.style.display !== 'none',
          kinds: p.cv.map.feStars.length,
          colourMenu: p.colour.parentElement.style.display !== 'none'}; }"""


def layout_problems(page: Page) -> list[str]:
    """What is off screen, overlapping or cut; [] when the layout holds."""
    lay, out = page.evaluate(LAYOUT_JS), []
    for part in ("map", "acc", "narr"):
        b = lay[part]
        if b["x"] < 0 or b["y"] < 0 or b["right"] > lay["vw"] or b["bottom"] > lay["vh"]:
            out.append(f"{part} off screen: {b}")
        if b["w"] < 300 or b["h"] < (60 if part == "narr" else 250):
            out.append(f"{part} too small: {b}")
    m, a, n = lay["map"], lay["acc"], lay["narr"]
    if m["right"] > a["x"] + 0.5:
        out.append(f"map runs into the accuracy chart: {m} {a}")
    if n["y"] + 0.5 < max(m["bottom"], a["bottom"]):
        out.append(f"the charts run into the narration: {m} {a} {n}")
    if not lay["narrFits"]:
        out.append("the narration does not fit its box")
    return out


def assert_layout_holds(page: Page, when: str) -> None:
    try:  # the player re-fits when the page above it changes: give it a moment
        page.wait_for_function(f"() => {{ const l = ({LAYOUT_JS})(); const ok = (b) => b.x >= 0 "
                               "&& b.y >= 0 && b.right <= l.vw && b.bottom <= l.vh; return "
                               "ok(l.map) && ok(l.acc) && ok(l.narr) && l.narrFits; }",
                               timeout=10_000, polling=100)
    except Exception:  # noqa: BLE001 - the assertion below says what is wrong
        pass
    assert layout_problems(page) == [], when


def open_present(page: Page, wait_for_app, width: int, height: int, theme: str,
                 preset: str = "quick-parity") -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"/?preset={preset}&present=1&theme={theme}")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)
    expect(page.locator(PLAYER)).to_have_attribute("data-theme", theme)


def step(page: Page) -> int:
    return int(page.eval_on_selector(PLAYER, "e => e.dataset.step"))


def wait_step(page: Page, value: int) -> None:
    page.wait_for_function(f"() => document.querySelector('{PLAYER}')?.dataset.step === "
                           f"'{value}'", timeout=60_000, polling=20)


# the AZL world (issue 24): its map with 32 pair stars, its test-error chart with the kα² line
# in the accuracy chart's place, and its longer narration
CASES = [(w, h, theme, "quick-parity") for w, h in [(1280, 800), (1920, 1080)]
         for theme in ("light", "dark")] + [(1280, 800, "light", "azl-resnet"),
                                             (1920, 1080, "dark", "azl-resnet")]


@pytest.mark.parametrize(("width", "height", "theme", "preset"), CASES)
def test_map_accuracy_and_narration_stay_on_screen(page: Page, wait_for_app, width: int,
                                                   height: int, theme: str, preset: str) -> None:
    open_present(page, wait_for_app, width, height, theme, preset)
    if preset == "azl-resnet":  # the world's own chart and words, not the accuracy chart's
        expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("kα² = 0.72")
        # no "sign of a_i" colouring: the AZL neurons have no single output weight
        assert page.evaluate(AZL_SHOWN) == {"stars": 32, "acc": True, "kinds": 8,
                                            "colourMenu": False}
    assert_layout_holds(page, "opened")
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_function(f"() => +document.querySelector('{PLAYER}')?.dataset.step >= 30",
                           timeout=120_000)
    assert_layout_holds(page, "playing")
    page.click(f"{PLAYER} .fe-play")  # Pause
    other = "dark" if theme == "light" else "light"
    page.locator('[data-testid="stMain"] button').filter(has_text=other).click()
    expect(page.locator(PLAYER)).to_have_attribute("data-theme", other, timeout=30_000)
    assert_layout_holds(page, "after a theme switch")
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_function(f"() => +document.querySelector('{PLAYER}')?.dataset.step >= 60",
                           timeout=120_000)
    assert_layout_holds(page, "playing after a theme switch")


def keys_step_and_play(page: Page, where: str) -> None:
    """→, ←, space (twice) and R act on the player, whatever was clicked last."""
    start = step(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, start + 1)
    page.keyboard.press("ArrowLeft")
    wait_step(page, start)
    page.keyboard.press(" ")
    expect(page.locator(PLAYER), where).to_have_attribute("data-playing", "1")
    page.keyboard.press(" ")
    expect(page.locator(PLAYER), where).to_have_attribute("data-playing", "0")
    page.keyboard.press("r")
    wait_step(page, 0)


def test_keys_work_after_a_click_anywhere(page: Page, server_log, wait_for_app) -> None:
    open_present(page, wait_for_app, 1280, 800, "light")
    main = page.locator('[data-testid="stMain"]')
    places = {
        "the map": lambda: page.click(f"{PLAYER} .fe-map"),
        "the accuracy chart": lambda: page.click(f"{PLAYER} .fe-acc"),
        "the narration": lambda: page.click(f"{PLAYER} .fe-narr"),
        "the page background": lambda: page.mouse.click(640, 790),
        "the title": lambda: main.locator("h2").first.click(),
        "the Play button": lambda: (page.click(f"{PLAYER} .fe-play"),
                                    page.click(f"{PLAYER} .fe-play")),
        "Copy link": lambda: page.locator(".fe-copy").click(),
        "the theme switch": lambda: main.locator("button").filter(has_text="dark").click(),
    }
    for where, click in places.items():
        click()
        keys_step_and_play(page, where)
    expect(page.locator(PLAYER)).to_have_attribute("data-theme", "dark")
    toggle = main.get_by_text("Presentation mode")
    toggle.click()  # off: the sidebar comes back; the keys still drive the player
    expect(page.locator('[data-testid="stSidebar"]')).to_be_visible(timeout=30_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=60_000)  # the page was redrawn
    keys_step_and_play(page, "the mode toggle (off)")
    toggle.click()  # and on again
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden(timeout=30_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=60_000)
    keys_step_and_play(page, "the mode toggle (on)")
    assert "present=1" in page.url
    assert "Traceback" not in server_log, server_log.text
