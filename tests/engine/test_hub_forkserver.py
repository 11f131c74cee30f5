"""The hub's local workers are forked from a forkserver that imported torch and the engine once
(engine/forkserver.py; issue 37: a worker ready in under 2 s, figures in bench/startup.py): a
forked worker computes what a spawned one does, a killed one is replaced from the forkserver and
serves, a worker reads the server's environment of its start, the forkserver forks from one
thread. Real processes, tiny runs, no timing asserted."""

from __future__ import annotations

import json
import multiprocessing.forkserver
import os
import signal
import subprocess
import sys
from pathlib import Path

from engine import forkserver
from engine.config import Config
from engine.hub import Hub
from engine.hub.local import LocalPool
from engine.hub.slot import FACTORY
from tests.engine.test_hub import TINY, wait_for
from tests.engine.test_hub_frames import hub_frames, local_frames

ENV_STREAM = "tests.engine.hub_streams:EnvStream"
ROOT = Path(__file__).resolve().parents[2]


def pool_hub(method: str | None, stream: str = FACTORY) -> Hub:
    return Hub(lambda deliver, crashed: LocalPool(1, stream, deliver, crashed, method=method))


def server_pid() -> int:
    """The forkserver's pid (started if it was not)."""
    forkserver.context()
    multiprocessing.forkserver.ensure_running()
    return multiprocessing.forkserver._forkserver._forkserver_pid


def meta_of(hub: Hub, cfg: Config, watcher: str) -> dict:
    key = hub.subscribe(cfg, watcher, want=cfg.T + 1)
    wait_for(lambda: hub.status(key)["state"] in ("done", "failed"), 120)
    got = hub.batch(key, 0)
    assert got["error"] == "", got["error"]
    return got["meta"]


def test_a_forked_worker_computes_the_frames_of_a_spawned_one():
    # 202 map points of 200 features: the maps take scipy's eigh (engine/mds.py), which the
    # forkserver preloads and a spawned worker imports on its first frame
    cfg = Config(n=1000, n_test=500, T=4, m=200, D=200, d=400, batch=100, seed=5)
    got = {}
    for method in ("spawn", "forkserver"):
        hub = pool_hub(method)
        try:
            got[method] = hub_frames(hub, cfg, method)
        finally:
            hub.close()
    assert got["forkserver"] == got["spawn"] == local_frames(cfg)


def test_workers_fork_from_the_forkserver_and_a_killed_one_is_replaced_and_serves():
    assert forkserver.METHOD == "forkserver"  # Linux: the hub's default start
    hub = pool_hub(None, ENV_STREAM)
    try:
        first = meta_of(hub, TINY.replace(seed=41, T=5), "a")
        assert first["ppid"] == server_pid() != os.getpid()
        os.kill(first["pid"], signal.SIGKILL)
        wait_for(lambda: hub.pool.pids()[0] != first["pid"])
        second = meta_of(hub, TINY.replace(seed=42, T=5), "b")
        assert second["pid"] != first["pid"] and second["ppid"] == server_pid()
    finally:
        hub.close()


def test_a_killed_forkserver_is_started_again_and_the_hub_serves():
    # its worker dies with it; the replacement's start came before the forkserver was seen dead
    # and failed, which ended the hub's reader thread: no run was served again
    hub = pool_hub(None, ENV_STREAM)
    try:
        first = meta_of(hub, TINY.replace(seed=45, T=3), "e")
        os.kill(first["ppid"], signal.SIGKILL)
        wait_for(lambda: hub.pool.pids()[0] != first["pid"])
        second = meta_of(hub, TINY.replace(seed=46, T=3), "f")
        assert second["ppid"] == server_pid() != first["ppid"]
    finally:
        hub.close()


def test_a_worker_reads_the_servers_environment_of_its_start(monkeypatch):
    server_pid()  # the forkserver's environment is fixed now, without the probe
    monkeypatch.setenv("FEX_TEST_PROBE", "set after the forkserver started")
    hub = pool_hub(None, ENV_STREAM)
    try:
        assert meta_of(hub, TINY.replace(seed=43, T=3), "c")["probe"] == \
            "set after the forkserver started"
    finally:
        hub.close()


def test_the_forkserver_forks_its_workers_from_one_thread():
    # a fork copies only the calling thread: a thread pool running in the forkserver (torch's
    # OpenMP, a BLAS) would be dead in every worker. Importing numpy starts OpenBLAS threads,
    # which OpenBLAS itself stops before a fork (pthread_atfork) and only a BLAS call restarts.
    pid = server_pid()
    hub = pool_hub(None, ENV_STREAM)
    try:
        meta_of(hub, TINY.replace(seed=44, T=2), "d")  # a worker was forked
    finally:
        hub.close()
    assert os.listdir(f"/proc/{pid}/task") == [str(pid)]


def test_the_worker_start_bench_runs_the_servers_prestarted_path():
    # bench/worker_start.py as asgi.py does it: prestart() first thing, then the engine's
    # imports, then the hub; a worker serves, and after SIGKILL its replacement does
    out = subprocess.run([sys.executable, "-m", "bench.worker_start", "prestarted"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["mode"] == "prestarted" and got["ready_s"] > 0 and got["replaced_s"] > 0
    assert got["cpu_s"] > 0
