"""A sweep over one setting in Chromium: a click on a point of its lines opens that setting in
Explore, as a heat-map cell does for two settings (issue 28 item 3)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

STORE = Path(__file__).resolve().parents[2] / "docs" / "results" / "sweep-separation-vs-k.sqlite"


def test_a_point_of_a_one_axis_sweep_opens_explore(page: Page, server_log, wait_for_app) -> None:
    page.goto("sweep")
    wait_for_app(page, timeout_ms=180_000)
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(STORE))
    chart = main.locator('[data-testid="stPlotlyChart"]').first  # no heat map: the lines
    expect(chart.locator(".scatterlayer .trace").first.locator(".point")).to_have_count(
        5, timeout=60_000)  # k = 1, 3, 5, 7, 9
    expect(main.get_by_text("Click a point to open that setting")).to_be_visible()
    chart.locator(".scatterlayer .trace").first.locator(".point").nth(3).click(force=True)
    link = main.get_by_role("link", name="Open in Explore")
    expect(link).to_be_visible(timeout=30_000)
    expect(main.get_by_text("k=7", exact=True)).to_be_visible()
    assert "k=7" in link.get_attribute("href")
    assert "Traceback" not in server_log, server_log.text
