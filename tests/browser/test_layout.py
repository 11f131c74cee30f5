"""Real-browser checks of what a narrow screen and a first visit show (issue 12)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

CUT_LABELS = """() => [...document.querySelectorAll('[data-testid="stMain"] button')]
  .filter(b => b.innerText.includes('Open in'))
  .map(b => b.querySelector('[data-testid="stMarkdownContainer"]'))
  .map(t => [t.innerText, t.scrollWidth, t.clientWidth])"""


def test_reproduce_buttons_are_not_cut_at_768px(browser, app_server: str, wait_for_app) -> None:
    page = browser.new_page(viewport={"width": 768, "height": 900})
    page.goto(app_server + "/reproduce")
    wait_for_app(page)
    # at least 3 figure cards and 8 table cards, two buttons each; the cards render one by one
    buttons = page.locator('[data-testid="stMain"] button').filter(has_text="Open in")
    expect(buttons.nth(21)).to_be_attached(timeout=60_000)
    labels = page.evaluate(CUT_LABELS)
    assert len(labels) >= 22, labels
    cut = [lab for lab in labels if lab[1] > lab[2]]  # text wider than its box: "Ope…"
    assert cut == [], cut
    page.close()


def test_the_preset_box_names_the_preset_the_defaults_are(page: Page, app_server: str,
                                                          wait_for_app) -> None:
    page.goto(app_server + "/compare")  # the default setting: paper-parity's
    wait_for_app(page)
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first
    box = box.get_by_role("combobox")  # the shown value is the combobox's input value
    preset = re.compile("^paper-parity — ")
    expect(box).to_have_value(preset, timeout=60_000)
    main = page.locator('[data-testid="stMain"]')
    pick = main.get_by_text("Pick a preset of Shi, Wei & Liang")
    expect(main.get_by_text("The paper's numbers")).to_be_visible()  # the page agrees
    expect(pick).to_have_count(0)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # p_o 0.50 → 0.51: no longer the preset
    expect(box).to_have_value("(custom)")
    expect(pick).to_be_visible()
    page.keyboard.press("ArrowLeft")  # back to the preset's setting
    expect(box).to_have_value(preset)
    expect(main.get_by_text("The paper's numbers")).to_be_visible()


# Every text the player writes on its canvases, checked against the canvas's width as drawn.
RECORD_CUT_TEXT = """(() => {
  const fill = CanvasRenderingContext2D.prototype.fillText;
  window.__cutText = [];
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y) {
    const w = this.measureText(text).width, cw = this.canvas.clientWidth;
    const left = this.textAlign === 'center' ? x - w / 2
      : this.textAlign === 'right' || this.textAlign === 'end' ? x - w : x;
    const out = left < -0.5 || left + w > cw + 0.5;
    if (cw > 0 && out) window.__cutText.push([String(text), left, w, cw]);
    return fill.apply(this, arguments);
  };
})()"""


def _play_to_the_end(page: Page) -> None:
    page.select_option(".fe-player select.fe-speed", "100")
    page.click(".fe-player .fe-play")
    page.wait_for_function("() => document.querySelector('.fe-player').dataset.step === '200'",
                           timeout=180_000)


def test_nothing_is_clipped_at_1280(browser, app_server: str, wait_for_app) -> None:
    """At 1280×800 the map's legend, the gradient note and the "Presentation mode" label were
    cut off; every canvas text of a whole run must fit its canvas, in both modes."""
    for query in ("preset=quick-parity", "preset=quick-parity&present=1"):
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(RECORD_CUT_TEXT)
        page.goto(f"{app_server}/?{query}")
        wait_for_app(page, timeout_ms=180_000)
        page.wait_for_selector(".fe-player[data-step]", timeout=120_000)
        label = page.locator('[data-testid="stMain"] label').filter(has_text="Presentation mode")
        cut = label.evaluate("e => [...e.querySelectorAll('*')].filter(c => (c.innerText || '')"
                             ".trim() && c.scrollWidth > c.clientWidth + 1).map(c => c.innerText)")
        assert cut == [], (query, cut)
        _play_to_the_end(page)
        for part in ("colour", "speed"):  # the other colouring's legend, at the last step
            page.select_option(".fe-player select.fe-colour", "sign" if part == "colour" else
                               "cosine")
        cut = page.evaluate("() => window.__cutText")
        assert cut == [], (query, len(cut), sorted({c[0] for c in cut})[:10], cut[:3])
        page.close()
