"""No uncaught page error on resize or theme switch (issue 37): presentation mode on small runs
of a plane-map world, the paper's world and the AZL world, resized to 900×700 and back, light to
dark and back (gfl-multi-index threw "Failed to execute 'arc' … radius (-37.037) is negative")."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PLAYER = ".fe-player"
SIZES = {"gfl-multi-index": "n=600&n_test=500&m=16&T=6&batch=100",
         "quick-parity": "n=1000&n_test=500&m=20&T=6&batch=100",
         "azl-resnet": "n=600&n_test=400&m=30&T=6&batch=100&azl_drop_epoch=0"}


@pytest.mark.parametrize("preset", list(SIZES))
def test_resize_and_theme_switch_raise_no_page_error(page: Page, server_log, wait_for_app,
                                                     preset: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"/?preset={preset}&{SIZES[preset]}&present=1&theme=light")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)
    page.keyboard.press("ArrowRight")
    expect(page.locator(PLAYER)).to_have_attribute("data-step", "1", timeout=60_000)
    for size, theme in (((900, 700), "dark"), ((1280, 800), "light"), ((900, 700), "light")):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(300)
        current = page.locator(PLAYER).get_attribute("data-theme")
        if current != theme:
            page.locator('[data-testid="stMain"] button').filter(has_text=theme).click()
            expect(page.locator(PLAYER)).to_have_attribute("data-theme", theme, timeout=30_000)
        page.wait_for_timeout(500)  # the re-fit and the redraws after it
    assert errors == [], errors
    assert "Traceback" not in server_log, server_log.text
