"""Right after a setting change, steps 1 and 2 reach the browser in the batches the server
sends unasked, none lost on the way (headless Chromium, paper default). Where the new setting's
run is already complete on the hub (in CI an earlier test warmed it), its frames go in one large
batch that the player acknowledges (ui/player_view.outgoing): gaps=1 before that protocol."""

from __future__ import annotations

from playwright.sync_api import Page, expect

PLAYER = ".fe-player"
EXCEPTION = '[data-testid="stException"]'


def dataset(page: Page) -> dict:
    return page.eval_on_selector(PLAYER, "e => ({...e.dataset})")


def test_steps_1_and_2_arrive_after_a_setting_change(page: Page, server_log,
                                                     wait_for_app) -> None:
    """Steps 1 and 2 of the paper default each take longer than a fragment tick, so the
    browser's queued ticks start the next run at once; Streamlit then cleared the batch not yet
    sent, and the player (paused, holding frames) never asked for it: it stayed at 2 frames, or
    saw a gap. Nothing is pressed here, so no re-ask can hide a loss."""
    page.goto("/")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step='0']", timeout=120_000)
    old = dataset(page)["run"]
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # a new run
    page.wait_for_function(
        """old => { const e = document.querySelector('.fe-player');
                    return e && e.dataset.run !== old && +e.dataset.frames >= 3; }""",
        arg=old, timeout=60_000, polling=20)
    shown = dataset(page)
    assert not shown.get("gaps") and not shown.get("reasks"), shown
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
