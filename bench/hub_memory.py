"""The served hub's own memory under a many-session hold (issue 38 High 2):
`python -m bench.hub_memory [--sessions 24] [--wave 8] [--m 500] [--T 100] [--n 2000]
[--seed0 5000] [--cache DIR] [--one-by-one]`.

Light clients (bench/light.py) open distinct runs (one seed each, from seed0) in waves of `wave`
at once (`--one-by-one`: one after another), so the hub holds many runs' frames and the web
process serves many sessions' batches; then every session leaves and the server idles. With
`--cache DIR` (FEX_FRAME_CACHE, filled first by `python -m engine warm --seed SEED0 --seeds N
--set …` with the same settings) the runs are complete ones replayed from disk, as in the
issue. Printed: the resident memory of the web process and of its workers (from /proc, not the
hub's own gauge) every few seconds, their peaks, the hub's gauge and cap, and what is left with
no session, next to FEX_HUB_MEMORY_MB. The issue's hold was 160 sessions (70 at once) on
m = 2 000, T = 600 runs; scale it to the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.hub_load import Watch, link, metrics
from bench.light import session

IDLE_S = 20.0  # after the last session: the hub's trim runs within seconds
SESSION_S = 150.0  # a session refused ("the server is full") gets no frames: it ends here
PRINT_S = 5.0  # a timeline line this often


class Timeline:
    """RSS of the web process and its workers, and the hub's gauge, sampled and printed."""

    def __init__(self, url: str, pid: int):
        self.url, self.watch, self.gauge, self.printed = url, Watch(pid), [], 0.0
        self.t0, self.stalls = time.monotonic(), 0

    def sample(self, sessions: int) -> None:
        self.watch.sample()
        try:
            m = metrics(self.url)
        except OSError:  # /metrics did not answer in 30 s: the server's loop stalled
            self.stalls += 1
            m = {"fex_hub_memory_mb": self.gauge[-1] if self.gauge else 0.0}
        self.gauge.append(m.get("fex_hub_memory_mb", 0.0))
        row = self.watch.rows[-1]
        if row["t"] - self.printed >= PRINT_S:
            self.printed = row["t"]
            hub = m.get("fex_sessions", 0)
            print(f"  {row['t'] - self.t0:6.0f} s  sessions {sessions:3d} (hub {hub:.0f})  web "
                  f"{row['rss']:5.0f} MB  workers {row['workers_rss']:5.0f} MB  together "
                  f"{row['rss'] + row['workers_rss']:5.0f} MB (PSS {row['pss']:5.0f} + "
                  f"{row['workers_pss']:4.0f} MB)  hub gauge {self.gauge[-1]:5.0f} MB",
                  flush=True)


async def hold(url: str, pid: int, queries: list[str], T: int, wave: int,
               idle_s: float = IDLE_S, session_s: float = SESSION_S) -> dict:
    """Run the sessions, at most `wave` at once (a new one as soon as one ends); sample RSS
    throughout and for IDLE_S after."""
    line, results, todo = Timeline(url, pid), [], list(enumerate(queries))
    line.sample(0)
    base = line.watch.rows[-1]
    running: set[asyncio.Task] = set()
    while todo or running:
        while todo and len(running) < wave:
            i, q = todo.pop(0)
            running.add(asyncio.create_task(session(url, q, i, T, session_s)))
        done = {t for t in running if t.done()}
        results += [t.result() for t in done]
        running -= done
        line.sample(len(running))
        await asyncio.sleep(0.5)
    rows = list(line.watch.rows)
    t0 = time.monotonic()
    while time.monotonic() - t0 < idle_s:
        line.sample(0)
        await asyncio.sleep(1.0)
    last = line.watch.rows[-1]
    return {"sessions": len(queries), "finished": sum(r.last_step >= T for r in results),
            "no_frames": sum(r.last_step < 0 for r in results),
            "errors": [r.error for r in results if r.error][:3],
            "server_rss_start_mb": base["rss"], "workers_rss_start_mb": base["workers_rss"],
            "server_rss_peak_mb": max(r["rss"] for r in rows),
            "workers_rss_peak_mb": max(r["workers_rss"] for r in rows),
            "total_rss_peak_mb": max(r["rss"] + r["workers_rss"] for r in rows),
            "workers_pss_peak_mb": max(r["workers_pss"] for r in rows),
            "total_pss_peak_mb": max(r["pss"] + r["workers_pss"] for r in rows),
            # the web process's RSS (its own) and the workers' PSS (their shared pages once)
            "mixed_peak_mb": max(r["rss"] + r["workers_pss"] for r in rows),
            "hub_gauge_peak_mb": max(line.gauge, default=0.0),
            "cache_hits": metrics(url).get("fex_cache_hits_total", 0.0),
            "metrics_stalls": line.stalls,
            "server_rss_idle_mb": last["rss"], "workers_rss_idle_mb": last["workers_rss"]}


def main(argv=None) -> None:
    from scripts.serve import start_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=24)
    ap.add_argument("--wave", type=int, default=8, help="sessions at once")
    ap.add_argument("--one-by-one", action="store_true", help="sessions one after another")
    ap.add_argument("--m", type=int, default=500)
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed0", type=int, default=5000)
    ap.add_argument("--idle", type=float, default=IDLE_S, help="seconds watched after")
    ap.add_argument("--cache", help="FEX_FRAME_CACHE: complete runs replayed from disk")
    ap.add_argument("--rekey", action="store_true", help="file the cache's records under this "
                    "code's keys and cycle the sessions over their seeds")
    ap.add_argument("--session-s", type=float, default=SESSION_S,
                    help="a session not at step T by then leaves (a refused one gets no frames)")
    ap.add_argument("--trace", help="a folder: the web process writes what grew (tracemalloc, "
                    "by traceback) there every FEX_TRACE_EVERY s (bench/heap/sitecustomize.py)")
    ap.add_argument("--clones", type=int, default=0, help="with --rekey: file this many distinct "
                    "runs (seeds seed0..), each a copy of a warmed record under its own key")
    args = ap.parse_args(argv)
    query = {"n": args.n, "n_test": max(200, args.n // 4), "m": args.m, "T": args.T,
             "batch": min(100, args.n)}
    seeds = list(range(args.seed0, args.seed0 + args.sessions))
    if args.rekey:
        seeds = rekey(Path(args.cache), query, args.seed0, args.clones)
        print(f"{len(seeds)} cached runs (seeds {seeds[0]}..{seeds[-1]}) filed under this code's "
              "keys", flush=True)
    queries = [link(query, seeds[i % len(seeds)], args.T) for i in range(args.sessions)]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.cache:
        os.environ["FEX_FRAME_CACHE"] = args.cache
    wave = 1 if args.one_by_one else args.wave
    if args.trace:
        os.environ["FEX_TRACE_DIR"] = str(Path(args.trace).resolve())
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).parent / "heap"), os.environ.get("PYTHONPATH", "")])
    server = start_app(timeout=180)
    try:
        with ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, hold(server.url, server.process.pid, queries,
                                                args.T, wave, args.idle,
                                                args.session_s)).result()
    finally:
        server.stop()
    report(out, query, wave, args.idle)


def rekey(folder: Path, query: dict, seed0: int = 0, clones: int = 0) -> list[int]:
    """File each cached record under this code's key (a key includes a digest of the engine's
    source, so any edit, training or not, misses a cache warmed before it): the seeds filed.
    Only for a bench across commits whose training code is the same (preset_numbers).
    clones: seeds seed0.. each get a copy of a warmed record (cycled) under their own key and
    setting, so a hold on many distinct runs needs only a few computed (each copy holds as
    much memory as a run of its own; its numbers are the warmed seed's)."""
    from engine.config import Config
    from engine.hub import run_key
    from engine.hub.key import canonical

    records = [json.loads(gzip.decompress(p.read_bytes()))
               for p in sorted(folder.glob("*.json.gz"))]
    warmed = sorted({r["settings"]["seed"] for r in records})
    records = [next(r for r in records if r["settings"]["seed"] == s) for s in warmed]
    seeds = warmed if not clones else list(range(seed0, seed0 + clones))
    for i, seed in enumerate(seeds):
        record = records[i % len(records)] if clones else records[i]
        cfg = Config().replace(**query, seed=seed)
        key = run_key(cfg)
        if not (folder / f"{key}.json.gz").exists():
            (folder / f"{key}.json.gz").write_bytes(gzip.compress(json.dumps(
                {**record, "key": key, "settings": canonical(cfg)}).encode(), 1))
    return seeds


def report(out: dict, query: dict, wave: int, idle_s: float) -> None:
    cap = os.environ.get("FEX_HUB_MEMORY_MB", "2560 (default)")
    print(f"setting {query}; {out['sessions']} sessions, at most {wave} at once, "
          f"{out['finished']} reached step T, {out['no_frames']} got no frame (refused), "
          f"{out['cache_hits']:.0f} replayed from the cache; "
          f"FEX_HUB_MEMORY_MB {cap}")
    print(f"before: web process {out['server_rss_start_mb']:.0f} MB, workers "
          f"{out['workers_rss_start_mb']:.0f} MB")
    print(f"peak RSS: web process {out['server_rss_peak_mb']:.0f} MB, workers "
          f"{out['workers_rss_peak_mb']:.0f} MB, together {out['total_rss_peak_mb']:.0f} MB; "
          f"hub gauge peak {out['hub_gauge_peak_mb']:.0f} MB; /metrics did not answer in 30 s "
          f"{out['metrics_stalls']} times")
    limit = float(cap.split()[0]) + out["server_rss_start_mb"]
    print(f"peak PSS (shared pages split between the processes sharing them): workers "
          f"{out['workers_pss_peak_mb']:.0f} MB, together {out['total_pss_peak_mb']:.0f} MB; "
          f"web RSS + workers PSS {out['mixed_peak_mb']:.0f} MB")
    print(f"derived limit (FEX_HUB_MEMORY_MB + the web process at start): {limit:.0f} MB; peak "
          f"together {out['total_rss_peak_mb'] - limit:+.0f} MB (RSS), "
          f"{out['total_pss_peak_mb'] - limit:+.0f} MB (PSS), "
          f"{out['mixed_peak_mb'] - limit:+.0f} MB (web RSS + workers PSS) beyond it")
    print(f"after every session left ({idle_s:.0f} s idle): web process "
          f"{out['server_rss_idle_mb']:.0f} MB, workers {out['workers_rss_idle_mb']:.0f} MB")
    for err in out["errors"]:
        print(f"  error: {err}")


if __name__ == "__main__":
    main()
