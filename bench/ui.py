"""Dashboard latency in a real browser: first chart after a change of setting, updates during Play.

    python -m bench.ui                      # the paper's default setting, 5 changes, 10 s of Play
    python -m bench.ui --query "n=5000&T=60" --changes 3 --play-s 5

Starts `streamlit run app.py` (scripts/serve.py), opens Explore in headless system Chromium and
measures, from the browser's side:
  first chart  time from a key press on the p_o slider (0.50 → 0.51 → …) until the page shows the
               new setting's summary, `step 0 / T` and a drawn MDS map titled "step 0"
  updates/s    distinct `step t / T` values per second while playing (the counter, the map and the
               charts are drawn by the same fragment run), over the whole window and after the
               two full-batch steps
Prints the figures and writes them as JSON to bench/results/ui-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

from scripts.serve import CHROMIUM_ARGS, ROOT, find_chromium, start_app, wait_for_app_run

COUNTER = re.compile(r"step (\d+) / (\d+)")
MAP_AT_STEP0_JS = """() => {
  const chart = document.querySelector('[data-testid="stPlotlyChart"]');
  const title = chart && chart.querySelector('.gtitle');
  return !!(chart && chart.querySelector('.main-svg') && title
            && /step 0\\b/.test(title.textContent));
}"""


def counter(page) -> tuple[int, int] | None:
    """(t, T) of the `step t / T` line, or None while it is not drawn."""
    for text in page.locator('[data-testid="stMain"] h4').all_inner_texts():
        found = COUNTER.search(text)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def first_chart_s(page, p_o: float, timeout_s: float) -> float:
    """One p_o slider step; seconds until the new setting's step-0 map is drawn."""
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("button", name="Step", exact=True).click()  # the old map leaves step 0
    deadline = time.monotonic() + timeout_s
    while (counter(page) or (0,))[0] < 1 and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role("slider")
    slider.focus()
    t0 = time.perf_counter()
    page.keyboard.press("ArrowRight")
    main.get_by_text(f"p_o={p_o:g}").first.wait_for(state="visible", timeout=timeout_s * 1000)
    page.wait_for_function(MAP_AT_STEP0_JS, timeout=timeout_s * 1000, polling=10)
    return time.perf_counter() - t0


def cpu_s(match) -> float:
    """CPU seconds (user + system) of the processes whose command line satisfies `match`."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if match(cmd):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _is_server(cmd: str) -> bool:
    return "streamlit run" in cmd


def _is_browser(cmd: str) -> bool:
    return "chromium" in cmd


def play_updates(page, seconds: float) -> dict:
    """Press Play; distinct counter values per second over `seconds`, and who used the CPU."""
    cpu0 = (cpu_s(_is_server), cpu_s(_is_browser))
    page.locator('[data-testid="stMain"]').get_by_role("button", name="Play", exact=True).click()
    seen: list[tuple[float, int]] = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        now = counter(page)
        if now and (not seen or now[0] != seen[-1][1]):
            seen.append((time.perf_counter() - t0, now[0]))
        page.wait_for_timeout(10)
    cpu = (cpu_s(_is_server) - cpu0[0], cpu_s(_is_browser) - cpu0[1])
    later = [t for t, step in seen if step > 2]
    span = (later[-1] - later[0]) if len(later) > 1 else 0.0
    times = [t for t, _ in seen]
    return {"updates": len(seen), "updates_per_s": len(seen) / seconds,
            "updates_per_s_after_step2": (len(later) - 1) / span if span else None,
            "last_step": seen[-1][1] if seen else None,
            "cpu_share": {"server": cpu[0] / seconds, "browser": cpu[1] / seconds},
            "gaps_ms": [round(1000 * (b - a)) for a, b in zip(times, times[1:], strict=False)]}


def measure(args: argparse.Namespace) -> dict:
    from playwright.sync_api import sync_playwright

    server = start_app(extra_args=["--server.runOnSave", "false"])
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=find_chromium(), headless=True,
                                         args=list(CHROMIUM_ARGS))
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url + "/" + (f"?{args.query}" if args.query else ""))
            wait_for_app_run(page, timeout_ms=args.timeout * 1000)
            page.wait_for_function(MAP_AT_STEP0_JS, timeout=args.timeout * 1000)
            firsts = [first_chart_s(page, round(0.51 + 0.01 * i, 2), args.timeout)
                      for i in range(args.changes)]
            play = play_updates(page, args.play_s)
            browser.close()
    finally:
        server.stop()
    return {"query": args.query or "(paper default)", "first_chart_s": firsts,
            "first_chart_median_s": statistics.median(firsts), "play": play,
            "load_avg": os.getloadavg(), "date": datetime.now().isoformat(timespec="seconds")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--query", default="", help="URL query of the setting (default: paper's)")
    ap.add_argument("--changes", type=int, default=5, help="p_o changes to time")
    ap.add_argument("--play-s", type=float, default=10.0, help="seconds of Play to sample")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per wait")
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/)")
    args = ap.parse_args(argv)
    if find_chromium() is None:
        print("No system Chromium found (Debian: apt-get install chromium).", file=sys.stderr)
        return 1
    res = measure(args)
    print(f"setting: {res['query']}   load average {res['load_avg']}")
    print(f"first chart after a change: median {res['first_chart_median_s']:.2f} s "
          f"({', '.join(f'{s:.2f}' for s in res['first_chart_s'])})")
    p = res["play"]
    after = p["updates_per_s_after_step2"]
    print(f"Play: {p['updates']} updates in {args.play_s:g} s ({p['updates_per_s']:.1f}/s), "
          f"{after:.1f}/s after step 2, reached step {p['last_step']}" if after else
          f"Play: {p['updates']} updates in {args.play_s:g} s")
    print(f"CPU during Play (cores busy): server {p['cpu_share']['server']:.2f}, "
          f"browser {p['cpu_share']['browser']:.2f}")
    out = args.out or ROOT / "bench" / "results" / f"ui-{datetime.now():%Y-%m-%dT%H%M}.json"
    out.write_text(json.dumps(res, indent=1))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
