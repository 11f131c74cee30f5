"""Charts that speak (issue 34, items 2–3): Chromium's accessibility tree of Explore holds the
step, the narration and every chart's current values, read against the frames of the same run
trained here; "Show as table" opens a real table; the live region is throttled while playing and
the Play button says Play ⇄ Pause."""

from __future__ import annotations

import dataclasses
import re
import time

from playwright.sync_api import Page, expect

from engine.frames import FrameStream
from engine.presets import preset_config

PLAYER = ".fe-player"
SIZES = {"n": 1000, "n_test": 500, "m": 20, "T": 20, "batch": 100}
TOLERANCE = {"pct": 0.051, "two": 0.00051, "num": 0.006}  # the words' last digit (speak.js)


def open_run(page: Page, wait_for_app, sizes: dict) -> None:
    query = "&".join(f"{k}={v}" for k, v in sizes.items())
    page.goto(f"/?preset=quick-parity&{query}")
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)


def tree(page: Page) -> str:
    """The player's ARIA snapshot, YAML quoting undone."""
    return page.locator(PLAYER).aria_snapshot().replace("''", "'")


def plain(narration: str) -> str:
    return narration.replace("**", "")


def check_step(page: Page, stream: FrameStream, i: int) -> None:
    """The tree at step index i states the step, the narration, every chart's values."""
    frame, meta, T = stream.frame(i), stream.meta(), stream.T
    expect(page.locator(PLAYER)).to_have_attribute("data-step", str(frame.step))
    expect(page.locator(f"{PLAYER} .fe-live")).to_contain_text(f"Step {frame.step} of {T}.")
    snap = tree(page)
    assert f"step {frame.step} / {T}" in snap, snap
    assert plain(frame.text).split(". ")[0] in snap, (frame.text, snap)
    for chart in meta["charts"]:
        line = next((ln for ln in snap.splitlines() if f'img "{chart["title"]}:' in ln), None)
        assert line and f"at step {frame.step} of {T}" in line, (chart["title"], snap)
        for se in chart["series"]:
            said = re.search(re.escape(se["name"]) + r" (-?[\d.]+)", line)
            want = frame.curves[se["col"]]
            if want is None:  # e.g. no gradient split at a step whose gradient is zero
                assert f"{se['name']} not measured" in line, line
                continue
            assert said, (se["name"], line)
            assert abs(float(said.group(1)) - se["scale"] * want) <= TOLERANCE[chart["fmt"]], line
    plus, minus = frame.curves["plus"], frame.curves["minus"]
    assert re.search(rf"img \"[^\"]* at step {frame.step} of {T}: {plus} neurons on \+Σ_A M, "
                     rf"{minus} neurons on −Σ_A M\"", snap), snap


def test_the_accessibility_tree_states_each_charts_values_at_step_1_and_T(
        page: Page, server_log, wait_for_app) -> None:
    stream = FrameStream(dataclasses.replace(preset_config("quick-parity"), **SIZES))
    stream.advance()  # the same run as the server's: same seed, same numbers
    open_run(page, wait_for_app, SIZES)
    page.locator(f"{PLAYER} .fe-step").focus()
    page.keyboard.press("ArrowRight")
    check_step(page, stream, 1)
    page.keyboard.press(" ")  # play to the end (the server computes the frames as asked)
    expect(page.locator(PLAYER)).to_have_attribute("data-step", "20", timeout=120_000)
    page.keyboard.press("Home")
    expect(page.locator(PLAYER)).to_have_attribute("data-step", "0")
    page.keyboard.press("End")
    check_step(page, stream, len(stream) - 1)
    page.get_by_role("button", name="Show as table: Accuracy per step").click()
    toggle = page.locator(f"{PLAYER} .fe-show[data-key=acc]")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(toggle).to_have_accessible_name("Hide table: Accuracy per step")
    table = page.get_by_role("table", name=re.compile("Accuracy per step at step 20 of 20"))
    expect(table.get_by_role("rowheader", name="test")).to_be_visible()
    expect(table.get_by_role("columnheader", name="Value")).to_be_visible()
    assert "Traceback" not in server_log, server_log.text


def test_play_announces_at_most_every_two_seconds_and_says_pause(page: Page, server_log,
                                                                 wait_for_app) -> None:
    sizes = {**SIZES, "T": 80}
    open_run(page, wait_for_app, sizes)
    play = page.locator(f"{PLAYER} .fe-play")
    expect(play).to_have_accessible_name("Play")
    before = int(page.locator(PLAYER).get_attribute("data-spoken") or 0)
    t0 = time.monotonic()
    play.click()  # 20 steps/s: 80 steps in 4 s or more (the frames are computed meanwhile)
    expect(play).to_have_accessible_name("Pause")
    page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.step === '80' "
                           "&& document.querySelector('.fe-player').dataset.playing === '0'",
                           timeout=120_000, polling=50)
    played_s = time.monotonic() - t0
    expect(play).to_have_accessible_name("Play")
    spoken = int(page.locator(PLAYER).get_attribute("data-spoken")) - before
    # 80 steps drawn, yet one announcement per 2 s at most, and the pause at step T
    assert 2 <= spoken <= played_s / 2 + 2, (spoken, played_s)
    expect(page.locator(f"{PLAYER} .fe-live")).to_contain_text("Step 80 of 80.")
    assert "Traceback" not in server_log, server_log.text
