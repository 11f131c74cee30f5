"""Real-browser tests of the Compare, Reproduce and Guide pages (headless Chromium)."""

from __future__ import annotations

import re
import time
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from scripts.serve import start_app, wait_for_app_run

# T large enough that even an idle fast machine needs several 0.2 s ticks (live steps visible)
TINY = {"n": 2000, "n_test": 1000, "T": 600, "m": 40, "batch": 200, "d": 100, "D": 20,
        "methods": "network,ntk,rf"}
EXCEPTION = '[data-testid="stException"]'


def counters(page: Page, main, timeout_s: float = 120.0) -> list[int]:
    """Poll the live 'step t / T' counter until it reaches T; the distinct values seen."""
    last = TINY["T"]
    seen: list[int] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for text in main.locator("h2").all_inner_texts():
            match = re.match(rf"step (\d+) / {last}", text)
            if match and int(match.group(1)) not in seen:
                seen.append(int(match.group(1)))
        if last in seen:
            return seen
        page.wait_for_timeout(50)
    raise AssertionError(f"the counter never reached {last}/{last}: {seen}")


def test_compare_plays_a_tiny_setting_to_the_table(page: Page, server_log, wait_for_app) -> None:
    page.goto("compare?" + urlencode(TINY))
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("d=100 · D=20 · k=5 · p_o=0.5 · m=40")).to_be_visible()
    main.get_by_role("button", name="Play").click()
    seen = counters(page, main)
    assert any(0 < s < TINY["T"] for s in seen), f"no live intermediate step was shown: {seen}"
    expect(main.get_by_text("Table 1 layout", exact=False)).to_be_visible(timeout=60_000)
    table = main.locator('[data-testid="stDataFrame"]').first
    expect(table).to_be_visible()
    expect(main.locator(".js-plotly-plot")).to_have_count(1)
    for label in ("Network", "NTK", "RF"):
        expect(main.locator(".js-plotly-plot").get_by_text(label, exact=True)).to_have_count(1)
    expect(main.get_by_role("button", name="Report (JSON)")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "m=40" in page.url and "methods=network%2Cntk%2Crf" in page.url
    assert "Traceback" not in server_log, server_log.text


def test_reproduce_and_guide_render_without_errors(page: Page, server_log, wait_for_app) -> None:
    page.goto("reproduce")
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Tables 1–5")).to_be_visible()
    expect(main.get_by_role("button", name="Open in Compare").nth(10)).to_be_attached()
    # 3 figure cards and 8 table cards at least, each with both buttons
    assert main.get_by_role("button", name="Open in Compare").count() >= 11
    assert main.get_by_role("button", name="Open in Explore").count() >= 11
    page.goto("guide")
    wait_for_app(page)
    expect(page.locator(".katex").first).to_be_visible(timeout=30_000)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_a_shared_sub_page_link_on_a_fresh_server_goes_through_the_router(
        page: Page, tmp_path) -> None:
    with start_app(log_path=tmp_path / "fresh.log") as server:  # nobody has opened "/" yet
        page.goto(server.url + "/compare?" + urlencode(TINY))
        wait_for_app_run(page)
        nav = page.locator('[data-testid="stSidebarNav"]')
        expect(nav.get_by_text("Reproduce the sources")).to_be_visible(timeout=10_000)
        assert page.title() == "Feature emergence explorer"
        # the router kept the requested page: Compare, not the default Explore
        expect(page.get_by_role("heading", name="Compare", exact=False).first).to_be_visible(
            timeout=10_000)
        assert "/compare" in page.url


def test_a_paper_preset_link_shows_the_papers_numbers_in_a_fresh_browser(
        browser, app_server: str, server_log) -> None:
    context = browser.new_context()  # nothing from earlier tests: cookies, storage, session
    page = context.new_page()
    page.goto(app_server + "/compare?preset=paper-parity-d100")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("The paper's numbers (Table 3, App. E.2.1)")).to_be_visible(
        timeout=120_000)
    for number in ("81.5", "78.3", "0.967", "0.354"):  # NTK/RF test %, One Step/RF cos
        expect(main.get_by_role("table").get_by_text(number, exact=True).first).to_be_visible()
    expect(main.get_by_text("preset paper-parity-d100", exact=False)).to_be_visible()
    assert "preset=paper-parity-d100" in page.url
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator(".fe-copied")).to_contain_text("preset=paper-parity-d100")
    expect(page.locator(EXCEPTION)).to_have_count(0)
    context.close()
    assert "Traceback" not in server_log, server_log.text


def test_an_unknown_page_says_page_not_found(page: Page, app_server: str) -> None:
    page.goto(app_server + "/no-such-page")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="Page not found")).to_be_visible(timeout=60_000)
    expect(page.locator(".fe-player")).to_have_count(0)  # not silently the Explore page


def test_unknown_deep_paths_say_page_not_found_and_fetch_nothing(page: Page,
                                                                 app_server: str) -> None:
    """/a/b once gave a blank page (index.html's relative asset links resolved under /a/).

    Served as scripts/run.sh and the Docker image serve it: asgi.py, app.py as an st.App (the
    session's server, tests/browser/conftest.py: scripts.serve.start_app's default)."""
    _check_not_found(page, app_server)


def _check_not_found(page: Page, app_server: str) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for path in ("/a/b", "/x/y/z", "/compare/extra?k=3"):
        response = page.goto(app_server + path)
        assert response is not None and response.status == 404, path
        expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
        expect(page.locator("code")).to_have_text(path.split("?")[0])
        expect(page.get_by_role("link", name="Compare")).to_have_attribute("href", "/compare")
        page.wait_for_timeout(200)  # a late favicon or font would show up in `requests`
    foreign = [u for u in requests if not u.startswith(app_server)]
    assert foreign == [], foreign
    # only the three documents (and perhaps the browser's own favicon probe)
    assert {u.split("?")[0] for u in requests} <= {
        app_server + p for p in ("/a/b", "/x/y/z", "/compare/extra", "/favicon.ico")}, requests
    page.goto(app_server + "/")  # the app itself is untouched by the middleware
    expect(page.locator(".fe-player")).to_be_attached(timeout=60_000)
