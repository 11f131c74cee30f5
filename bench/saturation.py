"""Sessions per web process until saturation (issue 37): `python -m bench.saturation`.

The served app (asgi.py: its hub and workers, started by bench.load_server.start_server) first
computes one link's run (a warm-up session), so every later phase only routes frames: N light
sessions (bench/light.py: Streamlit's WebSocket protocol, the fragment timer, no browser) open
that link with step=T at once, for N = 1, 10, 20, 40 … until the frames/s routed stop growing or the
latency grows, or the server uses a whole core (one interpreter: Streamlit's work shares one
lock). Per phase: sessions, frames/s routed, time to step T (median / last), the server's CPU
(cores, from /proc), its peak RSS and the RSS per session above the idle server. The clients
run on the same machine (their CPU is printed too): on a small machine they share its cores.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import sys
import time
from pathlib import Path

from bench.hub_load import TICK, Watch, _proc, link, phase
from bench.light import session

COUNTS = (1, 10, 20, 40, 80, 160, 320)
GROWTH = 1.10  # frames/s must grow by 10 % when the sessions grow, else saturated
LATENCY = 3.0  # median time to step T over the first phase's: saturated
CORE = 0.90  # the server's cores in use: one interpreter cannot use more than one
SEED = 4242


def saturated(rows: list[dict]) -> str:
    """Why the last phase is past saturation ('' while it is not)."""
    last, first = rows[-1], rows[0]
    if len(rows) > 1 and last["frames_per_s"] < GROWTH * rows[-2]["frames_per_s"]:
        return "frames/s routed stopped growing"
    if last["median_s"] and first["median_s"] and last["median_s"] > LATENCY * first["median_s"]:
        return f"median time to step T over {LATENCY:g}× one session's"
    if last["server_cpu"] >= CORE:
        return f"server at {last['server_cpu']:.2f} of a core"
    if last["finished"] < last["sessions"]:
        return "sessions did not finish"
    return ""


async def burst(url: str, pid: int, query: str, count: int, T: int, timeout_s: float,
                idle_mb: float) -> dict:
    """count light sessions open the link at once; the row's figures, the CPU counted until
    the last one had step T (closing the sockets afterwards is not serving)."""
    watch, c0, t0 = Watch(pid), time.process_time(), time.monotonic()
    watch.sample()
    tasks = [asyncio.create_task(session(url, query, i, T, timeout_s)) for i in range(count)]
    while not all(t.done() for t in tasks):
        await asyncio.sleep(TICK)
        watch.sample()
    results = [t.result() for t in tasks]
    done = sorted(r.final_s for r in results if r.final_s is not None)
    span = done[-1] if done else time.monotonic() - t0
    end = next((w for w in watch.rows if w["t"] >= t0 + span), watch.rows[-1])
    first = watch.rows[0]
    cpu = (end["cpu"] - first["cpu"]) / max(1e-9, end["t"] - first["t"])
    peak = max(w["rss"] for w in watch.rows)
    return {"sessions": count, "finished": len(done),
            "frames_per_s": round(sum(r.frames for r in results) / span, 1),
            "median_s": round(done[len(done) // 2], 2) if done else None,
            "last_s": round(span, 2), "server_cpu": round(cpu, 2),
            "server_rss_mb": round(peak), "rss_per_session_mb": round((peak - idle_mb) / count, 2),
            "client_cpu": round((time.process_time() - c0) / (time.monotonic() - t0), 2),
            "asks": sum(r.asks for r in results),  # batches lost and asked again
            # received per session until the server took its ack (copies of unacked batches)
            "mb_per_session": round(sum(r.bytes for r in results) / count / 1e6, 2),
            "acked_last_s": max((r.acked_s for r in results if r.acked_s), default=None),
            "errors": [r.error for r in results if r.error][:3],
            "load": [round(x, 1) for x in os.getloadavg()]}


async def drive(url: str, pid: int, counts: list[int], query: dict, timeout_s: float,
                live: bool = False) -> dict:
    """Warm the link, then the phases until saturation; {idle_mb, warm, rows, why}. live:
    each phase on a fresh seed, its sessions watching the run while the hub computes it."""
    T = int(query["T"])
    q = link(query, SEED, T)
    warm = await phase(url, pid, [q], T, timeout_s)  # the run computed once, here
    await asyncio.sleep(2.0)
    idle_mb = _proc(pid)[0]
    rows, why = [], ""
    for count in counts:
        seeded = link(query, SEED + count, T) if live else q
        rows.append(await burst(url, pid, seeded, count, T, timeout_s, idle_mb))
        await asyncio.sleep(2.0)  # the ended sessions' sockets close
        rows[-1]["rss_after_mb"] = round(_proc(pid)[0])  # what stays once they have gone
        print(line(rows[-1]), file=sys.stderr, flush=True)
        why = saturated(rows)
        if why:
            break
    return {"idle_mb": round(idle_mb), "warm_s": warm["to_step_T_max_s"], "rows": rows,
            "why": why or "not reached"}


def line(r: dict) -> str:
    return (f"{r['sessions']:4d} sessions: {r['finished']} finished, {r['frames_per_s']:8.0f} "
            f"frames/s, step T median {r['median_s']} s / last {r['last_s']} s, server CPU "
            f"{r['server_cpu']:.2f} cores, RSS {r['server_rss_mb']} MB "
            f"({r['rss_per_session_mb']:+.2f} MB/session; {r.get('rss_after_mb')} MB after), "
            f"re-asks {r['asks']}, received "
            f"{r.get('mb_per_session')} MB/session, acked by {r.get('acked_last_s')} s, "
            f"clients CPU {r['client_cpu']:.2f}, "
            f"load {r['load'][0]}")


def run(counts: list[int], query: dict, timeout_s: float, live: bool = False) -> dict:
    """Start the served app, drive it, stop it."""
    from bench.load_server import start_server

    server = start_server()
    load0 = os.getloadavg()
    try:
        coro = drive(server.url, server.process.pid, counts, query, timeout_s, live)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, coro).result()
    finally:
        server.stop()
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "query": query,
            "live": live,
            "cpus": os.cpu_count(), "load_start": [round(x, 1) for x in load0],
            "load_end": [round(x, 1) for x in os.getloadavg()], **out}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.saturation",
                                description=__doc__.split("\n")[0])
    p.add_argument("--counts", default=",".join(map(str, COUNTS)), help="sessions per phase")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting of the link (default: the paper default, T = 600)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per phase")
    p.add_argument("--live", action="store_true",
                   help="each phase on a fresh seed: sessions watch a run being computed")
    p.add_argument("--out", help="write the figures as JSON here")
    args = p.parse_args(argv)
    query = {"T": "600", **dict(kv.split("=", 1) for kv in args.set)}
    out = run([int(c) for c in args.counts.split(",")], query, args.timeout, args.live)
    how = "live" if args.live else "warmed"
    print(f"link {query} ({how}); idle server {out['idle_mb']} MB; load {out['load_start']} → "
          f"{out['load_end']} on {out['cpus']} CPUs")
    for r in out["rows"]:
        print(line(r))
    print(f"saturation: {out['why']}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
