"""One hub worker's start, in a fresh process (bench/startup.py runs it):
`python -m bench.worker_start MODE` with MODE spawn (the old start), forkserver (started by the
hub) or prestarted (the server starts the forkserver first thing, as asgi.py and app.py do).

Prints one JSON line: seconds from the process's start to the engine imported, from the hub's
start to a tiny run's first frame (a worker ready), from SIGKILL of that worker to a new run's
first frame on its replacement, and the CPU seconds of this process and every process under it.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402

from engine import forkserver  # noqa: E402  (no torch)

MODE = sys.argv[1] if len(sys.argv) > 1 else "forkserver"
if MODE == "prestarted":
    forkserver.prestart()

from engine.config import Config  # noqa: E402
from engine.hub.hub import Hub  # noqa: E402
from engine.hub.local import LocalPool  # noqa: E402
from engine.hub.slot import FACTORY  # noqa: E402

TINY = {"n": 200, "n_test": 100, "d": 40, "D": 20, "m": 4, "T": 3, "batch": 50}


def first_frame(hub: Hub, seed: int) -> None:
    """Subscribe a tiny run and wait for its first frame."""
    key = hub.subscribe(Config().replace(seed=seed, **TINY), f"w{seed}")
    while hub.status(key)["n"] == 0:
        time.sleep(0.002)


def tree_cpu() -> float:
    """CPU seconds of this process and of every process under it (the reaped ones included)."""
    kids: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(pid)] = fields
        kids.setdefault(int(fields[1]), []).append(int(pid))
    tick, todo, total = os.sysconf("SC_CLK_TCK"), [os.getpid()], 0.0
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += sum(int(x) for x in stats[pid][11:15]) / tick  # utime stime cutime cstime
        todo += kids.get(pid, [])
    return total


def main() -> None:
    imported = time.perf_counter() - T0
    method = "spawn" if MODE == "spawn" else "forkserver"
    t0 = time.perf_counter()
    hub = Hub(lambda d, c: LocalPool(1, FACTORY, d, c, method=method))
    first_frame(hub, 1)
    ready = time.perf_counter() - t0
    old = hub.pool.pids()
    t1 = time.perf_counter()
    os.kill(old[0], signal.SIGKILL)
    while hub.pool.pids() == old:
        time.sleep(0.002)
    first_frame(hub, 2)
    replaced = time.perf_counter() - t1
    out = {"mode": MODE, "imported_s": imported, "ready_s": ready, "replaced_s": replaced,
           "whole_s": time.perf_counter() - T0, "cpu_s": tree_cpu()}
    hub.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
