"""The served hub's own memory under a many-session hold (issue 38 High 2):
`python -m bench.hub_memory [--sessions 24] [--wave 8] [--m 500] [--T 100] [--n 2000]`.

Light clients (bench/light.py) open distinct complete runs (one seed each) in waves, so the hub
holds many runs' frames and the web process serves many sessions' batches; then every session
leaves and the server idles. Printed: the resident memory of the web process and of its workers
(from /proc, not the hub's own gauge), their peaks, the hub's gauge and cap, and the RSS left
with no session, next to FEX_HUB_MEMORY_MB. The issue's hold was 160 sessions on m = 2 000,
T = 600 runs; scale it to the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor

from bench.hub_load import Watch, link, metrics
from bench.light import session

IDLE_S = 20.0  # after the last session: the hub's trim runs within seconds


async def hold(url: str, pid: int, queries: list[str], T: int, wave: int) -> dict:
    """Run the sessions in waves of `wave` at once; sample RSS throughout and after."""
    watch, gauge, results = Watch(pid), [], []
    for start in range(0, len(queries), wave):
        tasks = [asyncio.create_task(session(url, q, start + i, T, 600))
                 for i, q in enumerate(queries[start:start + wave])]
        while not all(t.done() for t in tasks):
            watch.sample()
            gauge.append(metrics(url).get("fex_hub_memory_mb", 0.0))
            await asyncio.sleep(0.5)
        results += [t.result() for t in tasks]
        row = watch.rows[-1]
        print(f"  after {len(results)} sessions: web process {row['rss']:.0f} MB, workers "
              f"{row['workers_rss']:.0f} MB, hub gauge {gauge[-1] if gauge else 0:.0f} MB",
              flush=True)
    peak = watch.summary()
    t0 = time.monotonic()
    while time.monotonic() - t0 < IDLE_S:
        watch.sample()
        await asyncio.sleep(1.0)
    last = watch.rows[-1]
    return {"sessions": len(queries), "finished": sum(r.last_step >= T for r in results),
            "errors": [r.error for r in results if r.error][:3],
            "server_rss_peak_mb": peak["server_rss_mb"],
            "workers_rss_peak_mb": peak["workers_rss_mb"],
            "total_rss_peak_mb": max(r["rss"] + r["workers_rss"] for r in watch.rows),
            "hub_gauge_peak_mb": max(gauge, default=0.0),
            "server_rss_idle_mb": last["rss"], "workers_rss_idle_mb": last["workers_rss"]}


def main(argv=None) -> None:
    from scripts.serve import start_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=24)
    ap.add_argument("--wave", type=int, default=8)
    ap.add_argument("--m", type=int, default=500)
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args(argv)
    query = {"n": args.n, "n_test": max(200, args.n // 4), "m": args.m, "T": args.T,
             "batch": min(100, args.n)}
    queries = [link(query, 5000 + i, args.T) for i in range(args.sessions)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    server = start_app(timeout=180)
    try:
        with ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, hold(server.url, server.process.pid, queries,
                                                args.T, args.wave)).result()
    finally:
        server.stop()
    print(f"setting {query}; {out['sessions']} sessions in waves of {args.wave}, "
          f"{out['finished']} reached step T; FEX_HUB_MEMORY_MB "
          f"{os.environ.get('FEX_HUB_MEMORY_MB', '2560 (default)')}")
    print(f"peak RSS: web process {out['server_rss_peak_mb']:.0f} MB, workers "
          f"{out['workers_rss_peak_mb']:.0f} MB, together {out['total_rss_peak_mb']:.0f} MB; "
          f"hub gauge peak {out['hub_gauge_peak_mb']:.0f} MB")
    print(f"after every session left ({IDLE_S:.0f} s idle): web process "
          f"{out['server_rss_idle_mb']:.0f} MB, workers {out['workers_rss_idle_mb']:.0f} MB")
    for err in out["errors"]:
        print(f"  error: {err}")


if __name__ == "__main__":
    main()
