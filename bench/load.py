"""Load test: N concurrent headless Chromium sessions each play the Explore page to the end.

    python -m bench.load --sessions 8               # the paper's default setting in every session
    python -m bench.load --sessions 3 --small       # n=5000, n_test=2000, T=60 (what CI runs)

The app is served by `streamlit run app.py` inside this module (`--serve`), with a probe thread
that samples the server's own numbers twice a second: resident memory (VmRSS, peak VmHWM), live
engine Run objects and active Streamlit sessions. That is how "at most one live run per session"
and "memory is released when sessions end" are measured, without changing the app.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"n": 5000, "n_test": 2000, "T": 60}
COUNTER = re.compile(r"step (\d+) / (\d+)")
EXCEPTION = '[data-testid="stException"]'


# ------------------------------------------------------------------ server side (the probe)


def _status_kb(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def _probe(path: str, every: float) -> None:
    """Append one JSON line per sample: time, RSS, peak RSS, live Runs, active sessions."""
    from engine.hub import peek_hub
    from engine.run import Run

    while True:
        try:
            from streamlit.runtime import Runtime

            mgr = Runtime.instance()._session_mgr
            sessions, stored = mgr.num_active_sessions(), mgr.num_sessions()
            # private counters: a browser that lost its connection under load shows here
            drops = getattr(mgr, "_disconnect_count", -1), getattr(mgr, "_reconnect_count", -1)
        except Exception:  # noqa: BLE001 - the runtime is not up yet
            sessions = stored = -1
            drops = (-1, -1)
        if os.path.exists(path + ".gc"):  # asked by the driver: a full collection, once
            os.remove(path + ".gc")
            gc.collect()
            _dump_referrers(path + ".refs", Run)
        runs = sum(1 for o in gc.get_objects() if type(o) is Run)
        hub = peek_hub()  # runs the hub's workers compute for this server's sessions
        runs += hub.metrics()["runs_live"] if hub is not None else 0
        row = {"t": time.time(), "rss_mb": _status_kb("VmRSS") / 1024,
               "peak_mb": _status_kb("VmHWM") / 1024, "runs": runs, "sessions": sessions,
               "stored_sessions": stored, "disconnects": drops[0], "reconnects": drops[1]}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        time.sleep(every)


def _dump_referrers(path: str, cls) -> None:
    """Who still holds each live Run (types three levels up), to find what keeps it alive."""
    lines = []
    for obj in [o for o in gc.get_objects() if type(o) is cls]:
        level = [obj]
        for depth in range(11):
            nxt = [r for o in level for r in gc.get_referrers(o)
                   if r is not level and type(r).__name__ not in ("frame", "list_iterator")][:4]
            lines.append(f"{depth}: " + ", ".join(
                type(r).__name__ + (f"[{sorted(r)[:6]}]" if isinstance(r, dict) and all(
                    isinstance(k, str) for k in r) else "") for r in nxt))
            level = nxt
        lines.append("--")
    Path(path).write_text("\n".join(lines))


def serve(probe_path: str, port: int, extra: list[str]) -> None:
    """Run `streamlit run app.py` in this process with the probe thread beside it."""
    threading.Thread(target=_probe, args=(probe_path, 0.5), daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", "asgi.py", "--server.headless", "true",
                "--server.address", "127.0.0.1", "--server.port", str(port),
                "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                "--server.disconnectedSessionTTL", "2", *extra]
    cli.main()


@dataclass
class Server:
    """The app server process and its probe file."""

    url: str
    process: subprocess.Popen
    probe: Path
    log: Path

    def samples(self) -> list[dict]:
        """Every probe sample so far."""
        if not self.probe.exists():
            return []
        return [json.loads(line) for line in self.probe.read_text().splitlines() if line]

    def latest(self) -> dict:
        rows = self.samples()
        return rows[-1] if rows else {}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_server(timeout: float = 90.0) -> Server:
    """Start the app with the probe on a free port; wait until it answers its health check."""
    from scripts.serve import free_port, health_ok

    work = Path(tempfile.mkdtemp(prefix="fex-load-"))
    port = free_port()
    probe, log = work / "probe.jsonl", work / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "bench.load", "--serve", str(probe),
                                 "--port", str(port)], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = Server(f"http://127.0.0.1:{port}", proc, probe, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if health_ok(server.url):
            return server
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"app server did not start:\n{log.read_text(errors='replace')[-3000:]}")


# ------------------------------------------------------------------ browser side


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
    """CLI: serve mode (internal) or drive the load and print the figures."""
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
    p.add_argument("--serve", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port, [])
        return 0
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
