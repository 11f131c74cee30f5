"""The exported run opens from file:// with the network off and plays on its own."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from engine.config import Config
from engine.frames import FrameStream
from ui import export
from ui.state import AppState, ExploreState


def test_exported_html_plays_offline_from_a_file(browser: Browser, tmp_path) -> None:
    cfg = Config(n=1000, n_test=500, T=30, m=20, batch=100)
    state = AppState(cfg=cfg, explore=ExploreState(stream=FrameStream(cfg), run_cfg=cfg))
    state.explore.stream.advance()  # all T steps
    path = tmp_path / "run.html"
    path.write_text(export.export_html(state, "offline run"), encoding="utf-8")
    context = browser.new_context(offline=True)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.goto(path.as_uri())
    label = page.locator(".fe-player .fe-label")
    expect(label).to_have_text("step 0 / 30")
    page.click(".fe-player .fe-play")
    expect(label).not_to_have_text("step 0 / 30", timeout=5_000)
    expect(label).to_have_text("step 30 / 30", timeout=20_000)  # 20 steps/s: about 1.5 s
    page.locator("body").press("r")
    expect(label).to_have_text("step 0 / 30")
    assert [u for u in requests if not u.startswith("file:")] == [], requests
    context.close()


def test_the_azl_world_exports_its_own_player(browser: Browser, tmp_path) -> None:
    """The AZL world's offline file (issue 24): the 32 pair stars as 8 counted groups, the
    test-error chart of all five methods with the kα² line, the narration; no request."""
    cfg = Config(scenario="azl_hier", d=30, D=30, k=8, n=600, n_test=400, m=30, T=12,
                 batch=100, azl_drop_epoch=0)
    state = AppState(cfg=cfg, explore=ExploreState(stream=FrameStream(cfg), run_cfg=cfg))
    state.explore.stream.advance()
    path = tmp_path / "azl.html"
    path.write_text(export.export_html(state, "AZL offline"), encoding="utf-8")
    context = browser.new_context(offline=True)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.goto(path.as_uri())
    expect(page.locator(".fe-player .fe-label")).to_have_text("step 0 / 12")
    page.locator("body").press("ArrowRight")
    expect(page.locator(".fe-player .fe-label")).to_have_text("step 1 / 12")
    expect(page.locator(".fe-player .fe-narr")).to_contain_text("Step 1 · 3-layer ResNet")
    shown = page.evaluate("""() => { const cv = document.querySelector('.fe-player .fe-map');
      const acc = document.querySelector('.fe-player .fe-acc');
      return {groups: cv.feStars.map(s => s.name).length, acc: acc.style.display !== 'none',
              counts: cv.feStars.map(s => s.count)}; }""")
    counts = state.explore.stream.run.history[1].extra["pair_counts"]
    assert shown == {"groups": 8, "acc": True, "counts": counts}, shown
    assert [u for u in requests if not u.startswith("file:")] == [], requests
    context.close()
