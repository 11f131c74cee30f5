"""The Sweeps page in Chromium on a store with converged limits: the "value" choice switches the
heat map and the lines from T-step to converged limit (light and dark)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from engine.sweep import SweepSpec, run_sweep


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_sweep_page_shows_the_converged_limit(page: Page, tmp_path, server_log, wait_for_app,
                                             theme: str) -> None:
    spec = SweepSpec("gfl-xor", {"n_test": 300, "T": 4}, (("m", (8, 10)), ("n", (200, 300))),
                     (), 1, 0, ("network", "rf"))
    path = run_sweep(spec, str(tmp_path / "lim"))["path"]
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"sweep?theme={theme}")
    wait_for_app(page, timeout_ms=180_000)
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(path)
    heat = main.locator('[data-testid="stPlotlyChart"]').first
    expect(heat.locator(".scatterlayer .point")).to_have_count(4, timeout=60_000)
    main.get_by_text("converged limit", exact=True).click()
    expect(main.get_by_text("Network: test accuracy · at T (no limit: not fixed-feature)")
           ).to_be_visible(timeout=60_000)
    main.get_by_role("combobox", name="method", exact=True).click()  # RF: its limit
    page.get_by_role("option", name="RF", exact=True).click()  # beside "Network − RF"
    expect(main.get_by_text("RF: test accuracy · converged limit")).to_be_visible(timeout=60_000)
    page.screenshot(path=str(tmp_path / f"sweep-limits-{theme}.png"), full_page=True)
    print("screenshot:", tmp_path / f"sweep-limits-{theme}.png")
    assert "Traceback" not in server_log, server_log.text
