"""Load test: N concurrent headless Chromium sessions each play the Explore page to the end.

    python -m bench.load --sessions 8               # the paper's default setting in every session
    python -m bench.load --sessions 3 --small       # n=5000, n_test=2000, T=60 (what CI runs)

The app is served by bench/load_server.py (`streamlit run asgi.py` in its own process, with a
probe thread sampling its memory, live runs and sessions); each session is a page of
bench/load_pages.py. Here: all sessions at once, then the rapid-change check, then the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from bench.load_pages import IDLE_WAIT_S, play_session, rapid_changes
from bench.load_server import Server, start_server

SMALL = {"n": 5000, "n_test": 2000, "T": 60}


async def _first_sample(server: Server, timeout_s: float = 30) -> dict:
    """The probe's first sample (the idle server)."""
    deadline = time.monotonic() + timeout_s
    while not server.samples() and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return server.latest()


async def drive(server: Server, sessions: int, query: dict, timeout_s: float,
                changes: int, settle_s: float = 0.0) -> dict:
    """All sessions at once, then (alone) the rapid-change check; figures from the probe."""
    from playwright.async_api import async_playwright

    from scripts.serve import CHROMIUM_ARGS, find_chromium

    url = server.url + "/?" + urlencode(query) if query else server.url + "/"
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=find_chromium(), headless=True,
                                           args=list(CHROMIUM_ARGS))
        base = await _first_sample(server)
        t0 = time.monotonic()
        results = await asyncio.gather(*(play_session(browser, url, i, timeout_s)
                                         for i in range(sessions)))
        wall = time.monotonic() - t0
        during = server.samples()
        await asyncio.sleep(5)  # sessions end, their state is dropped after the TTL (2 s)
        released = server.latest()
        await asyncio.sleep(settle_s)
        Path(str(server.probe) + ".gc").touch()  # then one full gc.collect() in the server
        await asyncio.sleep(2)
        collected = server.latest()
        rapid = await rapid_changes(browser, server, url, changes, 10.0) if changes else None
        await browser.close()
    return {"sessions": sessions, "query": query, "wall_s": wall,
            "results": [r.__dict__ for r in results],
            "baseline_rss_mb": base.get("rss_mb"),
            "peak_rss_mb": max(s["peak_mb"] for s in during),
            "max_live_runs": max(s["runs"] for s in during),
            "max_sessions": max(s["sessions"] for s in during),
            "disconnects": during[-1].get("disconnects"),
            "reconnects": during[-1].get("reconnects"),
            "after_close": {k: released.get(k) for k in ("rss_mb", "runs", "sessions",
                                                          "stored_sessions")},
            "after_gc": {k: collected.get(k) for k in ("rss_mb", "runs", "stored_sessions")},
            "rapid": rapid, "settle_s": settle_s}


def run_load(sessions: int = 3, query: dict | None = None, timeout_s: float = 600,
             changes: int = 30, settle_s: float = 0.0) -> dict:
    """Start the server, drive the sessions, stop the server; returns the figures."""
    server = start_server()
    try:
        coro = drive(server, sessions, SMALL if query is None else query, timeout_s, changes,
                     settle_s)
        # A thread of its own: under pytest, pytest-playwright's sync API keeps an event loop
        # running in the main thread, and asyncio.run refuses to start inside one.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, coro).result()
    finally:
        server.stop()
    if any(r["error"] for r in out["results"]):  # the server's side of a red load test
        out["server_log_tail"] = server.log.read_text(errors="replace")[-4000:]
    return out


def main(argv=None) -> int:
    """CLI: drive the sessions (or --light: the hub's light clients) and print the figures."""
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0])
    p.add_argument("--sessions", type=int, default=8)
    p.add_argument("--small", action="store_true", help="n=5000, n_test=2000, T=60")
    p.add_argument("--timeout", type=float, default=1500, help="seconds per session")
    p.add_argument("--changes", type=int, default=30, help="rapid slider changes (0: skip)")
    p.add_argument("--settle", type=float, default=30.0,
                   help="seconds to wait after the sessions closed before the gc check")
    p.add_argument("--out", help="write the figures as JSON here")
    p.add_argument("--light", default="", metavar="N[,N…]",
                   help="N sessions against the run hub, light clients (bench/hub_load.py)")
    p.add_argument("--spread", action="store_true", help="--light: each session its own seed")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="--light: a setting of the link (repeatable)")
    p.add_argument("--no-browser", action="store_true",
                   help="--light: no Chromium page (no Play → step 1)")
    args = p.parse_args(argv)
    if args.light:
        return _light(args)
    out = run_load(args.sessions, SMALL if args.small else {}, args.timeout, args.changes,
                   args.settle)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))
    print(summary(out))
    return 0 if all(r["finished"] and not r["exceptions"] for r in out["results"]) else 1


def _light(args) -> int:
    """--light: many sessions against the hub (bench/hub_load.py)."""
    from bench import hub_load

    query = dict(SMALL) if args.small else {"T": 600}  # the client reads T from the link
    query.update(dict(pair.split("=", 1) for pair in args.set))
    counts = [int(c) for c in args.light.split(",")]
    out = hub_load.run(counts, args.spread, query, args.timeout, not args.no_browser)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))
    print(hub_load.summary(out))
    return 0 if all(m["finished"] == m["light"] for m in out["many"]) else 1


def summary(out: dict) -> str:
    """Human-readable figures."""
    done = sum(r["finished"] and not r["exceptions"] for r in out["results"])
    times = sorted(r["seconds"] for r in out["results"])
    lines = [f"{out['sessions']} sessions, setting {out['query'] or 'paper default'}: "
             f"{done}/{out['sessions']} finished without error in {out['wall_s']:.0f} s "
             f"(per session {times[0]:.0f}-{times[-1]:.0f} s)",
             f"server RSS: {out['baseline_rss_mb']:.0f} MB idle, peak {out['peak_rss_mb']:.0f} MB"
             f"; max live runs {out['max_live_runs']} for max {out['max_sessions']} sessions"
             f"; {out.get('disconnects')} disconnects, {out.get('reconnects')} reconnects",
             f"after the sessions closed: RSS {out['after_close']['rss_mb']:.0f} MB, live runs "
             f"{out['after_close']['runs']}, sessions {out['after_close']['sessions']} active / "
             f"{out['after_close']['stored_sessions']} stored; {out['settle_s']:.0f} s later and "
             f"one gc.collect(): "
             f"RSS {out['after_gc']['rss_mb']:.0f} MB, live runs {out['after_gc']['runs']}"]
    busy = sum(r["detail"].get("idle_at_play") is False for r in out["results"])
    if busy:
        lines.append(f"{busy} session(s) pressed Play while the page was still running (its live "
                     f"fragment ticking after {IDLE_WAIT_S:.0f} s)")
    for r in out["results"]:
        if r["error"]:
            lines.append(f"session {r['index']}: {r['error']} {r.get('detail') or ''}")
    if out.get("server_log_tail"):
        lines.append("the server's log, its end:\n" + out["server_log_tail"])
    if out["rapid"]:
        r = out["rapid"]
        lines.append(f"rapid changes: {r['changes']} in {r['seconds']:.1f} s; live runs at most "
                     f"{r['live_runs_during_max']} during, {r['live_runs_after']} after")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
