"""Real-browser tests of the Explore page (headless Chromium against `streamlit run app.py`)."""

from __future__ import annotations

import re
import time
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

SMALL = {"n": 2000, "n_test": 1000, "T": 40, "m": 50, "batch": 200}
EXCEPTION = '[data-testid="stException"]'
COUNTER = re.compile(r"step (\d+) / (\d+)")


def counter(page: Page) -> tuple[int, int] | None:
    """(t, T) of the `step t / T` line, or None while it is not drawn."""
    for text in page.locator('[data-testid="stMain"] h4').all_inner_texts():
        found = COUNTER.search(text)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def wait_counter(page: Page, want: tuple[int, int], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if counter(page) == want:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"counter is {counter(page)}, expected {want}")


def open_small(page: Page, wait_for_app, **extra) -> None:
    page.goto("/?" + urlencode({**SMALL, **extra}))
    # generous: the first visit to a fresh server imports torch and builds the data
    wait_for_app(page, timeout_ms=180_000)
    wait_counter(page, (0, 40), timeout_s=120)


def test_counter_and_three_charts(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("step 0 / 40")).to_be_visible()
    charts = main.locator('[data-testid="stPlotlyChart"] .main-svg')
    expect(charts.first).to_be_visible()
    assert main.locator('[data-testid="stPlotlyChart"]').count() >= 3
    expect(main.get_by_text("d=500 · D=100 · k=5 · p_o=0.5 · m=50")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_play_runs_live_to_the_end(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app)
    page.locator('[data-testid="stMain"]').get_by_role("button", name="Play", exact=True).click()
    seen: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and 40 not in seen:
        now = counter(page)
        if now and now[0] not in seen:
            seen.append(now[0])
        page.wait_for_timeout(40)
    assert seen[-1] == 40, f"Play did not reach the end: {seen}"
    assert len([s for s in seen if 0 < s < 40]) >= 2, f"too few live values: {seen}"
    assert seen == sorted(seen)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("finished", exact=False)).to_be_visible()
    expect(main.get_by_role("button", name="Metrics CSV")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_moving_a_slider_restarts(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app)
    page.locator('[data-testid="stMain"]').get_by_role("button", name="Step", exact=True).click()
    wait_counter(page, (1, 40))
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # p_o 0.50 → 0.51
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("k=5 · p_o=0.51 · m=50")).to_be_visible(timeout=30_000)
    wait_counter(page, (0, 40))
    assert "p_o=0.51" in page.url
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_url_opens_explore_with_k7(page: Page, server_log, wait_for_app) -> None:
    page.goto("/?k=7&p_o=0.3")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("d=500 · D=100 · k=7 · p_o=0.3 · m=300")).to_be_visible(
        timeout=60_000)
    expect(page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]')
           .filter(has_text="k").first).to_be_visible()
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_have_count(0)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_bad_url_value_warns(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app, k="abc")
    expect(page.get_by_text("k='abc' is not allowed", exact=False)).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
