"""axe-core on every page (issue 34): no serious or critical WCAG 2.1 AA violation.

axe-core 4.12.1 comes bundled in the axe-playwright-python package (requirements-test.lock), so
nothing is downloaded at test time. Pages: the landing page, Explore on gfl-xor and azl-resnet,
every page of ui/page_list.py, presentation mode in the light and the dark theme, the dark
player outside presentation mode, and the offline HTML player in both themes. Streamlit's own
theme is fixed to light in .streamlit/config.toml (and the minimal toolbar has no settings menu
to change it), so "dark" is the app's theme switch of presentation mode and the player.

A failure prints each violation: rule id, impact, the nodes' targets and what to fix. One
browser page serves every case of the module (the server is the session's).
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from engine.config import Config
from engine.frames import FrameStream
from ui import export
from ui.page_list import DEFAULT, PAGES
from ui.state import AppState, ExploreState

PLAYER = ".fe-player[data-step]"
# Moderate and minor rules whose cause is the app's own markup (Streamlit draws what the scripts
# ask for, the offline file is ours): kept at zero like the serious ones. Left out: Streamlit's
# file uploader on Sweeps (presentation-role-conflict, minor: its drop zone's role="presentation"
# is Streamlit's own markup).
OWN_MODERATE = {"heading-order", "empty-table-header", "landmark-one-main",
                "page-has-heading-one", "region"}

CASES = [
    ("landing", "/"),
    ("explore-gfl-xor", "/explore?preset=gfl-xor"),
    ("explore-azl-resnet", "/explore?preset=azl-resnet"),
    *[(p.slug, f"/{p.slug}") for p in PAGES if p is not DEFAULT],
    ("present-light", "/?present=1"),
    ("present-dark", "/explore?preset=gfl-xor&present=1&theme=dark"),
    ("present-dark-azl", "/explore?preset=azl-resnet&present=1&theme=dark"),
    ("player-dark", "/explore?preset=gfl-xor&theme=dark"),
]

# Scroll the page through once (Streamlit draws some parts, e.g. data frames, when they come
# into view), then back to the top.
SCROLL_THROUGH = """async () => {
  const main = document.querySelector('[data-testid="stMain"]');
  const boxes = [document.scrollingElement, main, main && main.parentElement].filter(
    (e) => e && e.scrollHeight > e.clientHeight + 1);
  for (const box of boxes) {
    for (let y = 0; y < box.scrollHeight; y += box.clientHeight) {
      box.scrollTop = y; await new Promise((r) => setTimeout(r, 60));
    }
    box.scrollTop = 0;
  }
}"""


def serious(violations: list[dict]) -> list[dict]:
    """The violations this test does not allow."""
    return [v for v in violations
            if v["impact"] in ("serious", "critical") or v["id"] in OWN_MODERATE]


def describe(violations: list[dict]) -> str:
    """One line per violation and node: rule id, impact, target, what to fix."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for node in v["nodes"][:8]:
            summary = " ".join((node.get("failureSummary") or "").split())[:240]
            lines.append(f"    {' > '.join(map(str, node['target']))[-200:]} :: {summary}")
    return "\n".join(lines)


def axe_violations(page: Page) -> list[dict]:
    """axe-core's violations on the page as it is now (every rule but the experimental ones)."""
    return Axe().run(page).response["violations"]


@pytest.fixture(scope="module")
def axe_page(browser: Browser, app_server: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=app_server)
    page = context.new_page()
    yield page
    context.close()


def settle(page: Page, wait_for_app, url: str) -> None:
    """Open the page and wait until it is drawn: script done, player frames, the page's a11y
    marker (ui/a11y.py) installed and run."""
    page.goto(url)
    wait_for_app(page, timeout_ms=180_000)
    if url.startswith(("/?", "/explore")) or url == "/":
        page.wait_for_selector(PLAYER, timeout=120_000)
    try:
        page.wait_for_function("() => globalThis.FE_A11Y", timeout=30_000)
    except PlaywrightTimeout:  # no marker: what it would have fixed shows in axe's report
        pass
    page.evaluate(SCROLL_THROUGH)
    page.wait_for_timeout(600)  # the marker looks again 250 ms after the page last changed


@pytest.mark.parametrize(("name", "url"), CASES, ids=[c[0] for c in CASES])
def test_page_has_no_serious_accessibility_violation(axe_page: Page, wait_for_app, name: str,
                                                     url: str) -> None:
    settle(axe_page, wait_for_app, url)
    if "theme=dark" in url:
        assert axe_page.eval_on_selector(".fe-player", "e => e.dataset.theme") == "dark"
    found = axe_violations(axe_page)
    print(f"axe {name}: " + (describe(found) or "no violations"))
    assert serious(found) == [], f"axe on {name} ({url}):\n{describe(serious(found))}"


def _export(cfg: Config, theme: str) -> str:
    state = AppState(cfg=cfg, explore=ExploreState(stream=FrameStream(cfg), run_cfg=cfg))
    state.explore.stream.advance()
    text = export.export_html(state, f"offline run ({theme})")
    dark = text.replace("data-theme='light'", "data-theme='dark'", 1)
    assert theme == "light" or dark != text, "the export's body no longer names its theme"
    return dark if theme == "dark" else text


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_offline_player_has_no_serious_accessibility_violation(browser: Browser, tmp_path,
                                                               theme: str) -> None:
    path = tmp_path / "run.html"
    path.write_text(_export(Config(n=1000, n_test=500, T=20, m=20, batch=100), theme),
                    encoding="utf-8")
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(path.as_uri())
    page.wait_for_selector(PLAYER)
    page.keyboard.press("ArrowRight")  # a step with numbers in every chart
    assert page.eval_on_selector(".fe-player", "e => e.dataset.theme") == theme
    found = axe_violations(page)
    print(f"axe offline {theme}: " + (describe(found) or "no violations"))
    context.close()
    assert serious(found) == [], f"axe on the offline player ({theme}):\n{describe(serious(found))}"
