"""Smoke test in a real browser: the app starts, renders its default page, and nothing raises."""

from __future__ import annotations

import urllib.request

from playwright.sync_api import Page, expect


def test_health_endpoint(app_server: str) -> None:
    with urllib.request.urlopen(app_server + "/_stcore/health", timeout=10) as resp:
        assert resp.status == 200
        assert resp.read().strip() == b"ok"


def test_default_page_renders_without_errors(
    page: Page, app_server: str, server_log, wait_for_app
) -> None:
    page.goto("/")  # relative to pytest-playwright's base_url, i.e. the app_server root
    assert page.url == app_server + "/"
    wait_for_app(page)
    # The default (explore) page has a title, rendered by st.title as an <h1>.
    expect(page.locator('[data-testid="stMain"] h1').first).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
