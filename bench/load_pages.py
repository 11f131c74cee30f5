"""One browser session of the load test (bench/load.py): a headless Chromium page opens Explore,
presses Play and waits for `step T / T`; and the rapid-change check (the p_o slider moved
thirty times in ten seconds, the server's live runs counted meanwhile)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from bench.load_server import Server

COUNTER = re.compile(r"step (\d+) / (\d+)")
EXCEPTION = '[data-testid="stException"]'


@dataclass
class SessionResult:
    """What one browser session saw."""

    index: int
    finished: bool = False
    final: tuple | None = None
    exceptions: int = 0
    seconds: float = 0.0
    error: str = ""
    counters: list = field(default_factory=list)
    detail: dict = field(default_factory=dict)  # the player's state when it did not finish


PLAYER_STATE = """() => { const r = document.querySelector('.fe-player');
  if (!r) return {player: false};
  return {...r.dataset, status: (r.querySelector('.fe-status') || {}).textContent,
          url: location.search, script: (document.querySelector('[data-testid=stApp]') || {
          dataset: {}}).dataset.testScriptState}; }"""


PAGE_STATE = """() => { const app = document.querySelector('[data-testid=stApp]');
  const play = document.querySelector('.fe-player .fe-play');
  return {script: app ? app.dataset.testScriptState : null,
          play: play ? (play.disabled ? 'disabled' : 'enabled') : 'absent',
          captions: [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
            .map(c => c.textContent).filter(t => t).slice(0, 6)}; }"""


async def _counter(page) -> tuple[int, int] | None:
    # the Explore player's label (the browser's own `step t / T`)
    for text in await page.locator(".fe-player .fe-label").all_inner_texts():
        found = COUNTER.search(text)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


async def _wait_counter(page, pred, timeout_s: float) -> tuple[int, int] | None:
    deadline = time.monotonic() + timeout_s
    now = None
    while time.monotonic() < deadline:
        now = await _counter(page)
        if now is not None and pred(now):
            return now
        if await page.locator(EXCEPTION).count():
            return now
        await page.wait_for_timeout(200)
    return now


IDLE_WAIT_S = 60.0  # the longest a session waits for the page to be idle before Play
PLAY_TRIES = 5  # Play pressed again where the player did not start (a click lost in a redraw)


def _left(t0: float, timeout_s: float) -> float:
    return max(1.0, timeout_s - (time.monotonic() - t0))


async def _settle(page, timeout_s: float) -> bool:
    """Wait for the app to finish its script run (under load the first, drawing the data, took
    minutes); False if it is still running: a page that joined a run others were playing keeps
    its fragment's timer on while frames or the limits come (the app reports "running" for as
    long), and its Play works meanwhile, as a student's would."""
    try:
        await page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                                     timeout=timeout_s * 1000)
        return True
    except Exception:  # noqa: BLE001 - Playwright's TimeoutError: press Play all the same
        return False


async def _press_play(page, timeout_s: float) -> None:
    """Press Play until the player says it plays (data-playing) or its counter moved."""
    play = page.locator(".fe-player .fe-play")
    for _ in range(PLAY_TRIES):
        await play.click(timeout=timeout_s * 1000)
        for _ in range(25):  # 5 s
            now = await _counter(page)
            if await page.locator('.fe-player[data-playing="1"]').count() or (now and now[0]):
                return
            await page.wait_for_timeout(200)


async def play_session(browser, url: str, index: int, timeout_s: float) -> SessionResult:
    """Open the Explore page at url, press Play, wait for `step T / T`."""
    res, t0 = SessionResult(index), time.monotonic()
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = None
    try:
        page = await context.new_page()
        await page.goto(url, timeout=timeout_s * 1000)
        first = await _wait_counter(page, lambda c: c[0] == 0, timeout_s)
        if first is None:
            res.error = "the step counter never appeared"
            return res
        res.detail["idle_at_play"] = await _settle(page, min(IDLE_WAIT_S, _left(t0, timeout_s)))
        run_id = await page.locator(".fe-player").get_attribute("data-run")
        await _press_play(page, _left(t0, timeout_s))
        left = timeout_s - (time.monotonic() - t0)
        res.final = await _wait_counter(page, lambda c: c[0] == c[1] > 0, left)
        res.finished = res.final is not None and res.final[0] == res.final[1] > 0
        res.exceptions = await page.locator(EXCEPTION).count()
        if not res.finished and not res.error:
            res.error = f"stopped at {res.final}"
            res.detail.update({"run_at_play": run_id, **await page.evaluate(PLAYER_STATE)})
    except Exception as exc:  # noqa: BLE001 - report, do not crash the other sessions
        res.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        try:  # what the page showed when it gave up (a red load test says what happened)
            res.detail.update({"at": "error", **await page.evaluate(PAGE_STATE)})
        except Exception as late:  # noqa: BLE001 - the page itself may be gone
            res.detail.update({"at": "error", "page": type(late).__name__})
    finally:
        res.seconds = time.monotonic() - t0
        await context.close()
    return res


async def rapid_changes(browser, server: Server, url: str, changes: int, span_s: float) -> dict:
    """Move the p_o slider `changes` times within `span_s` seconds in one session; then count
    the server's live Run objects while that session is the only one."""
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        page = await context.new_page()
        await page.goto(url)
        await _wait_counter(page, lambda c: c[0] == 0, 120)
        slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role(
            "slider")
        await slider.focus()
        t0 = time.monotonic()
        peak_runs = 0
        for i in range(changes):
            await page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            peak_runs = max(peak_runs, server.latest().get("runs", 0))
            wait = t0 + (i + 1) * span_s / changes - time.monotonic()
            if wait > 0:
                await page.wait_for_timeout(wait * 1000)
        spent = time.monotonic() - t0
        await page.wait_for_timeout(3000)  # let the last rerun settle
        await _wait_counter(page, lambda c: c[0] == 0, 60)
        after = [s["runs"] for s in server.samples()[-4:]]
        return {"changes": changes, "seconds": spent, "live_runs_during_max": peak_runs,
                "live_runs_after": max(after) if after else None,
                "exceptions": await page.locator(EXCEPTION).count()}
    finally:
        await context.close()
