"""Many sessions against the run hub (issue 29): `python -m bench.load --light N …`.

Light clients (bench/light.py: Streamlit's own WebSocket protocol, no browser) open one link, or
N links that differ only in the seed, with step=T; one more session, a real headless Chromium
page, opens the same link without step=T once the others are in and presses Play (its Play →
step 1 is timed in the page). Before them one light session alone on another fresh link gives
the baseline, in the same run. The server (asgi.py, with its hub and workers) is watched from
outside: resident memory of the server and of its worker processes, CPU seconds of both, and
its /metrics.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
import urllib.request
from pathlib import Path
from statistics import median
from urllib.parse import urlencode

from bench.light import session
from engine.hub.memory import pss_mb  # PSS: shared pages split between their processes

TICK = 0.5  # the outside probe's period (s)
HZ = 100  # /proc clock ticks per second (Linux)


def _proc(pid: int) -> tuple[float, float, float]:
    """(VmRSS MB, VmHWM MB, CPU seconds) of one process (zeros once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0, 0.0
    kb = {ln.split(":")[0]: int(ln.split()[1]) for ln in status.splitlines()
          if ln.startswith(("VmRSS", "VmHWM"))}
    cpu = (int(stat[11]) + int(stat[12])) / HZ  # utime + stime
    return kb.get("VmRSS", 0) / 1024, kb.get("VmHWM", 0) / 1024, cpu


def children(pid: int) -> list[int]:
    """The server's descendant processes: the hub's workers (forked from its forkserver,
    engine/forkserver.py, so grandchildren; or spawned children), the forkserver and
    multiprocessing's helper."""
    parent = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
                parent[int(proc.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, level = [], [pid]
    while level:
        level = [child for child, up in parent.items() if up in level]
        out += level
    return out


def metrics(url: str) -> dict:
    """The server's /metrics as {name: value} (fex_workers by its executor label)."""
    text = urllib.request.urlopen(url + "/metrics", timeout=30).read().decode()
    out = {}
    for line in text.splitlines():
        found = re.match(r'^(fex_\w+)(?:\{executor="(\w+)"\})? (\S+)$', line)
        if found:
            out[found.group(1) + (f"_{found.group(2)}" if found.group(2) else "")] = float(
                found.group(3))
    return out


class Watch:
    """Samples the server and its workers while a phase runs."""

    def __init__(self, pid: int):
        self.pid, self.rows = pid, []

    def sample(self) -> None:
        rss, hwm, cpu = _proc(self.pid)
        pids = children(self.pid)
        kids = [_proc(c) for c in pids]
        self.rows.append({"t": time.monotonic(), "rss": rss, "hwm": hwm, "cpu": cpu,
                          "pss": pss_mb(self.pid), "workers_pss": sum(pss_mb(c) for c in pids),
                          "workers_rss": sum(k[0] for k in kids),
                          "workers_cpu": sum(k[2] for k in kids)})

    def summary(self) -> dict:
        first, last = self.rows[0], self.rows[-1]
        wall = max(1e-9, last["t"] - first["t"])
        return {"server_rss_mb": max(r["rss"] for r in self.rows),
                "workers_rss_mb": max(r["workers_rss"] for r in self.rows),
                "server_cpu": (last["cpu"] - first["cpu"]) / wall,
                "workers_cpu": (last["workers_cpu"] - first["workers_cpu"]) / wall}


async def _watch(watch: Watch, stop: asyncio.Event) -> None:
    while not stop.is_set():
        watch.sample()
        await asyncio.sleep(TICK)
    watch.sample()


def link(query: dict, seed: int, step: int | None) -> str:
    return urlencode({**query, "seed": seed, **({"step": step} if step is not None else {})})


async def phase(url: str, pid: int, queries: list[str], T: int, timeout_s: float,
                browser_query: str | None = None, browser=None) -> dict:
    """Run light sessions (and optionally one browser page) at once; figures of the phase."""
    before, watch, stop = metrics(url), Watch(pid), asyncio.Event()
    watcher = asyncio.create_task(_watch(watch, stop))
    t0 = time.monotonic()
    tasks = [asyncio.create_task(session(url, q, i, T, timeout_s))
             for i, q in enumerate(queries)]
    play = None
    if browser is not None:
        await asyncio.sleep(1.0)  # the light sessions are in: this page comes last
        play = await play_to_step_1(browser, f"{url}/?{browser_query}", timeout_s)
    results = await asyncio.gather(*tasks)
    wall = time.monotonic() - t0
    stop.set()
    await watcher
    after = metrics(url)
    print(f"phase: {len(queries)} light sessions, {wall:.1f} s", file=sys.stderr, flush=True)
    done = [r.final_s for r in results if r.final_s is not None]
    frames = sum(r.frames for r in results)
    span = max(done) if done else wall  # closing the sockets under load is not serving
    steps = after.get("fex_steps_computed_total", 0) - before.get("fex_steps_computed_total", 0)
    return {"sessions": len(queries) + (browser is not None), "light": len(queries),
            "finished": len(done), "to_step_T_s": [round(x, 2) for x in sorted(done)],
            "to_step_T_median_s": round(median(done), 2) if done else None,
            "to_step_T_max_s": round(max(done), 2) if done else None,
            "first_frame_max_s": max((r.first_frame_s or 0) for r in results),
            "play_to_step1_s": play, "wall_s": round(wall, 2),
            "steps_computed": steps, "steps_per_s": round(steps / span, 2),
            "frames_delivered_per_s": round(frames / span, 1),
            "asks": sum(r.asks for r in results),
            "runs_computed": after.get("fex_runs_computed_total", 0)
            - before.get("fex_runs_computed_total", 0),
            "errors": [r.error for r in results if r.error], **watch.summary()}


PLAY = """async () => {
  const root = document.querySelector('.fe-player');
  const t0 = performance.now(); root.querySelector('.fe-play').click();
  // at 20 steps/s a slow animation frame may show step 2 first: step 1 or later counts
  while (+root.dataset.step < 1 && performance.now() - t0 < 60000)
    await new Promise(r => setTimeout(r, 5));
  return (performance.now() - t0) / 1000; }"""


async def play_to_step_1(browser, url: str, timeout_s: float) -> float | None:
    """Open the page, wait for step 0 and the app at rest, press Play: seconds to step 1."""
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        page = await context.new_page()
        await page.goto(url, timeout=timeout_s * 1000)
        await page.wait_for_selector(".fe-player[data-step='0']", timeout=timeout_s * 1000)
        await page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                                     timeout=timeout_s * 1000)
        return round(await page.evaluate(PLAY), 3)
    finally:
        await context.close()


async def drive(url: str, pid: int, counts: list[int], spread: bool, query: dict,
                timeout_s: float, browser: bool, base: int = 1000) -> dict:
    """A warm-up, the baseline (one light session alone), then for each count that many
    sessions at once on a fresh link (or, spread, each on its own seed); the last session of
    each is a browser page pressing Play."""
    from playwright.async_api import async_playwright

    from scripts.serve import CHROMIUM_ARGS, find_chromium

    T = int(query["T"])
    # the workers' first run pays for imports and first-call compilation: not the baseline's
    await phase(url, pid, [link({**query, "T": 3}, base - 1, 3)], 3, timeout_s)
    alone = await phase(url, pid, [link(query, base, T)], T, timeout_s)
    many = []
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=find_chromium(), headless=True,
                                            args=list(CHROMIUM_ARGS)) if browser else None
        for j, count in enumerate(counts):
            first = base + 100 * (j + 1)
            seeds = [first + i for i in range(count)] if spread else [first] * count
            light = [link(query, s, T) for s in seeds[:count - (chromium is not None)]]
            many.append(await phase(url, pid, light, T, timeout_s, link(query, seeds[-1], None),
                                    chromium))
        if chromium is not None:
            await chromium.close()
    return {"alone": alone, "many": many}


def run(counts: list[int], spread: bool, query: dict, timeout_s: float = 1800,
        browser: bool = True) -> dict:
    """Start the server (asgi.py: hub, workers, /metrics), drive the phases, stop it."""
    import concurrent.futures

    from bench.load_server import start_server

    server = start_server()
    try:
        coro = drive(server.url, server.process.pid, counts, spread, query, timeout_s, browser)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, coro).result()
    finally:
        server.stop()
    return {"counts": counts, "spread": spread, "query": query, **out}


def summary(out: dict) -> str:
    """Human-readable figures of a --light run."""
    a = out["alone"]
    how = "each on its own seed" if out["spread"] else "on one link"
    lines = [f"setting {out['query']}; sessions {how}",
             f"alone: step T in {a['to_step_T_max_s']} s, {a['steps_per_s']} steps/s; server "
             f"RSS {a['server_rss_mb']:.0f} MB, workers {a['workers_rss_mb']:.0f} MB; CPU "
             f"server {a['server_cpu']:.2f}, workers {a['workers_cpu']:.2f} cores"]
    for m in out["many"]:
        lines += [f"{m['sessions']} sessions ({m['light']} light"
                  f"{' + 1 browser' if m['sessions'] > m['light'] else ''}): "
                  f"{m['finished']}/{m['light']} reached step T, median "
                  f"{m['to_step_T_median_s']} s, last {m['to_step_T_max_s']} s (ratio to alone "
                  f"{_ratio(m['to_step_T_max_s'], a['to_step_T_max_s'])}); Play → step 1 "
                  f"{m['play_to_step1_s']} s",
                  f"  steps computed {m['steps_computed']:.0f} ({m['runs_computed']:.0f} runs), "
                  f"{m['steps_per_s']} steps/s (ratio to alone "
                  f"{_ratio(m['steps_per_s'], a['steps_per_s'])}); frames delivered "
                  f"{m['frames_delivered_per_s']}/s; server RSS {m['server_rss_mb']:.0f} MB, "
                  f"workers {m['workers_rss_mb']:.0f} MB; CPU server {m['server_cpu']:.2f}, "
                  f"workers {m['workers_cpu']:.2f} cores"]
        lines += [f"  error: {e}" for e in m["errors"][:5]]
    return "\n".join(lines)


def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if a and b else "n/a"
