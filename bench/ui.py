"""The Explore player in a real browser: blank frames, playback rate, scrub, pause, first chart.

    python -m bench.ui                          # the paper default and quick-parity
    python -m bench.ui --query "preset=quick-parity" --play-s 8

Starts `streamlit run app.py` (scripts/serve.py), opens Explore in headless system Chromium and
measures from the browser's side, for each setting:
  first chart   seconds from a key press on the p_o slider until the player holds the new run
                and has drawn its step 0 (median of --changes presses)
  blank frames  during Play, every 60 ms: each chart canvas that was drawn before is checked for
                drawn pixels (and the player for being there); a frame is blank when any is empty
  playback fps  distinct steps drawn per second while replaying computed frames at 50 steps/s
                (from step 0; the player asks the server only for frames a few seconds ahead)
  scrub         ms from the press on the scrubber until the new step is drawn (10 clicks)
  pause         ms from the Pause click until the last change of the shown step
  play start    seconds from Play to step 1 and to step 2 on screen, Play pressed as soon as
                step 0 is drawn ("at once") and 3 s later (a teacher talks over step 0 first),
                on a page just opened and right after a setting changed (a new run), and the
                batches of frames the player saw go missing (a gap it had to ask for again)
Prints the figures and writes them as JSON to bench/results/ui-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

from scripts.serve import CHROMIUM_ARGS, ROOT, find_chromium, start_app, wait_for_app_run

PLAYER = ".fe-player"
SAMPLER_JS = (Path(__file__).with_name("ui_sampler.js")).read_text()


def dataset(page) -> dict:
    return page.eval_on_selector(PLAYER, "e => ({...e.dataset})")


def wait_player(page, timeout_s: float, old_run: str | None = None) -> None:
    """Until the player holds a run other than old_run with step 0 drawn."""
    page.wait_for_function(
        """old => { const e = document.querySelector('.fe-player');
                    return e && e.dataset.run && e.dataset.run !== old && +e.dataset.frames >= 1
                           && e.dataset.step === '0'; }""",
        arg=old_run or "", timeout=timeout_s * 1000, polling=10)


def first_chart_s(page, timeout_s: float) -> float:
    """One step of the p_o slider (or, in a world that does not read p_o, of the first slider
    it shows); seconds until the new run's step 0 is drawn."""
    old = dataset(page)["run"]
    sliders = page.locator('[data-testid="stSlider"]')
    chosen = sliders.filter(has_text="p_o")
    slider = (chosen if chosen.count() else sliders).first.get_by_role("slider")
    slider.focus()
    t0 = time.perf_counter()
    page.keyboard.press("ArrowRight")
    wait_player(page, timeout_s, old)
    return time.perf_counter() - t0


def play_blank(page, seconds: float) -> dict:
    """Press Play; sample the charts every 80 ms; count blank samples."""
    page.evaluate(SAMPLER_JS)
    page.evaluate("() => window.__feBench.start(60)")
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_timeout(seconds * 1000)
    res = page.evaluate("() => window.__feBench.stop()")
    res["frames_computed"] = int(dataset(page)["frames"]) - 1
    res["remounts"] = int(dataset(page).get("moves") or 0)  # the player moved to a new container
    return res


def pause_ms(page) -> float:
    """Play, click Pause, and measure until the shown step last changed."""
    page.evaluate("() => window.__feBench.watch()")
    if dataset(page).get("playing") != "1":
        page.click(f"{PLAYER} .fe-play")
    page.wait_for_timeout(700)
    page.click(f"{PLAYER} .fe-play")  # now labelled Pause
    page.wait_for_timeout(800)
    return page.evaluate("() => window.__feBench.pauseLatency()")


def playback_fps(page, timeout_s: float, speed: int = 50, frames: int = 151) -> dict:
    """Replay computed frames from step 0 at `speed` steps/s: distinct steps drawn per second.

    First plays until `frames` frames (or the whole run) are computed, so that the replay
    measures the browser's drawing, not the server's training."""
    if dataset(page).get("playing") != "1":
        page.click(f"{PLAYER} .fe-play")
    page.wait_for_function(
        """n => { const p = document.querySelector('.fe-player');
                  return p && (+p.dataset.frames >= n
                               || /all \\d+ steps computed/.test(p.textContent)); }""",
        arg=frames, timeout=timeout_s * 1000, polling=100)
    if dataset(page).get("playing") == "1":
        page.click(f"{PLAYER} .fe-play")
    have = int(dataset(page)["frames"])
    seconds = min(3.0, 0.9 * (have - 1) / speed)  # stop before the computed edge
    page.select_option(f"{PLAYER} select.fe-speed", str(speed))
    page.click(f"{PLAYER} .fe-reset")
    page.evaluate("() => window.__feBench.watch()")
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_timeout(seconds * 1000)
    out = page.evaluate("() => window.__feBench.rate()")
    out["frames_computed"] = have - 1
    if dataset(page).get("playing") == "1":
        page.click(f"{PLAYER} .fe-play")
    return out


def scrub_ms(page, clicks: int = 10) -> list[float]:
    """Click along the scrubber; ms from the press (in the page) until the new step was drawn."""
    page.evaluate("() => window.__feBench.watch()")
    box = page.locator(f"{PLAYER} .fe-scrub").bounding_box()
    out = []
    for k in range(clicks):
        before = dataset(page)["step"]
        x = box["x"] + box["width"] * (0.05 + 0.9 * ((k * 7) % clicks) / clicks)
        page.mouse.click(x, box["y"] + box["height"] / 2)
        page.wait_for_function("s => document.querySelector('.fe-player').dataset.step !== s",
                               arg=before, timeout=5000, polling=5)
        out.append(page.evaluate("() => window.__feBench.scrubLatency()"))
        page.wait_for_timeout(150)
    return out


PLAY_START_JS = """() => new Promise((done) => {
  const p = document.querySelector('.fe-player'), seen = {};
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    const s = +p.dataset.step, t = (performance.now() - t0) / 1000;  // a frame may skip a step
    for (const k of ['1', '2']) if (s >= +k && !(k in seen)) seen[k] = t;
    if ('2' in seen) { obs.disconnect(); done(seen); }
  });
  obs.observe(p, {attributes: true, attributeFilter: ['data-step']});
  p.querySelector('.fe-play').click();
})"""


def play_start_s(page, url: str, args: argparse.Namespace, delay_s: float,
                 change: bool = False) -> dict:
    """Open the page (and change p_o: a new run), wait delay_s after its step 0 is drawn,
    press Play: seconds until steps 1 and 2 are on screen."""
    page.goto(url)
    wait_for_app_run(page, timeout_ms=args.timeout * 1000)
    wait_player(page, args.timeout)
    if change:
        first_chart_s(page, args.timeout)
    page.wait_for_timeout(delay_s * 1000)
    seen = page.evaluate(PLAY_START_JS)
    page.click(f"{PLAYER} .fe-play")  # Pause
    return {"step1_s": seen.get("1"), "step2_s": seen.get("2"),
            "lost_batches": int(dataset(page).get("gaps") or 0)}


def play_starts(page, url: str, args: argparse.Namespace) -> dict:
    """Play to steps 1 and 2: on a page just opened, and right after a setting changed."""
    return {"page opened, at once": play_start_s(page, url, args, 0.0),
            "page opened, after 3 s": play_start_s(page, url, args, 3.0),
            "setting changed, at once": play_start_s(page, url, args, 0.0, change=True),
            "setting changed, after 3 s": play_start_s(page, url, args, 3.0, change=True)}


def measure_one(page, url: str, args: argparse.Namespace) -> dict:
    starts = {} if args.skip_play_start else play_starts(page, url, args)
    page.goto(url)
    wait_for_app_run(page, timeout_ms=args.timeout * 1000)
    wait_player(page, args.timeout)
    firsts = [first_chart_s(page, args.timeout) for _ in range(args.changes)]
    blank = play_blank(page, args.play_s)
    pause = pause_ms(page)
    fps = playback_fps(page, args.timeout)
    scrub = scrub_ms(page)
    return {"play_start": starts, "first_chart_s": firsts,
            "first_chart_median_s": statistics.median(firsts),
            "blank": blank, "pause_ms": pause, "playback": fps, "scrub_ms": scrub,
            "scrub_median_ms": statistics.median(scrub), "scrub_max_ms": max(scrub)}


def measure(args: argparse.Namespace) -> dict:
    from playwright.sync_api import sync_playwright

    server = start_app(extra_args=["--server.runOnSave", "false"])
    out = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=find_chromium(), headless=True,
                                         args=list(CHROMIUM_ARGS))
            for query in args.query or ["", "preset=quick-parity"]:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                out[query or "(paper default)"] = measure_one(
                    page, server.url + "/" + (f"?{query}" if query else ""), args)
                page.close()
            browser.close()
    finally:
        server.stop()
    return {"settings": out, "load_avg": os.getloadavg(),
            "date": datetime.now().isoformat(timespec="seconds")}


def report(res: dict) -> None:
    print(f"load average {res['load_avg']}")
    for name, r in res["settings"].items():
        b, p = r["blank"], r["playback"]
        print(f"{name}: first chart median {r['first_chart_median_s']:.2f} s "
              f"({', '.join(f'{s:.2f}' for s in r['first_chart_s'])}); "
              f"blank {b['blank']} of {b['samples']} samples during Play "
              f"(reached step {b['last_step']}, {b['frames_computed']} computed); "
              f"playback {p['fps']:.1f} frames/s at 50 steps/s "
              f"(draw {p.get('draw_ms_median')} ms); "
              f"scrub median {r['scrub_median_ms']:.0f} ms, max {r['scrub_max_ms']:.0f} ms; "
              f"pause {r['pause_ms']} ms")
        for when, t in r["play_start"].items():
            print(f"  Play {when}: step 1 after {t['step1_s']:.2f} s, "
                  f"step 2 after {t['step2_s']:.2f} s, {t.get('lost_batches')} batches lost")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--query", action="append", help="URL query of a setting (repeatable)")
    ap.add_argument("--changes", type=int, default=5, help="p_o changes to time")
    ap.add_argument("--play-s", type=float, default=12.0, help="seconds of Play to sample")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per wait")
    ap.add_argument("--skip-play-start", action="store_true",
                    help="leave out the four Play-start measurements")
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/)")
    args = ap.parse_args(argv)
    if find_chromium() is None:
        print("No system Chromium found (Debian: apt-get install chromium).", file=sys.stderr)
        return 1
    res = measure(args)
    out = args.out or ROOT / "bench" / "results" / f"ui-{datetime.now():%Y-%m-%dT%H%M}.json"
    out.write_text(json.dumps(res, indent=1))
    report(res)
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
