"""The hub on the real FrameStream: frames computed by worker processes, by `engine warm` and by
Ray actors on a local Ray head equal a FrameStream run in this process."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from engine.config import Config
from engine.frames import FrameStream
from engine.hub import make_hub, prometheus, run_key
from engine.hub.warm import warm
from tests.engine.own_process import ray_inner_only, run_in_own_process
from tests.engine.test_hub import wait_for

TINY = Config(n=1000, n_test=500, T=8, m=20, batch=100)


def numbers(batch: dict) -> str:
    """The batch as JSON text without the wall-clock `elapsed` of its rows and summaries (the
    only column that is not a function of the setting)."""
    def strip(items):
        return [{k: v for k, v in item.items() if k != "elapsed"} for item in items]
    out = {**batch, "rows": strip(batch["rows"]), "summary": strip(batch["summary"])}
    return json.dumps(out, sort_keys=True)


def local_frames(cfg: Config) -> str:
    stream = FrameStream(cfg)
    stream.advance()
    return numbers(stream.frames(0, len(stream)))


def hub_frames(hub, cfg: Config, watcher: str) -> str:
    key = hub.subscribe(cfg, watcher, want=cfg.T + 1)
    wait_for(lambda: hub.status(key)["state"] in ("done", "failed"), 180)
    got = hub.batch(key, 0, 1000)
    assert got["error"] == "" and got["done"]
    return numbers(got["frames"])


def test_workers_and_warm_give_the_frames_of_a_run_in_this_process(tmp_path, monkeypatch):
    monkeypatch.setenv("FEX_FRAME_CACHE", str(tmp_path))
    want = local_frames(TINY)
    hub = make_hub(workers=1)
    try:
        assert hub_frames(hub, TINY, "a") == want
    finally:
        hub.close()
    key = run_key(TINY)
    wait_for(lambda: (tmp_path / f"{key}.json.gz").exists())
    os.remove(tmp_path / f"{key}.json.gz")
    path, computed = warm(TINY, tmp_path)
    assert computed and path.name == f"{key}.json.gz"
    cached = make_hub(workers=1)
    try:
        assert hub_frames(cached, TINY, "b") == want
        assert cached.metrics()["runs_computed_total"] == 0
    finally:
        cached.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ray_head(tmp_path, monkeypatch):
    """`ray start --head` on 127.0.0.1 (2 CPUs), stopped after by its own process group."""
    with ray_head_process(tmp_path, monkeypatch) as (address, _):
        yield address


@contextlib.contextmanager
def ray_head_process(tmp_path, monkeypatch):
    """(address, head's Popen) of `ray start --head`; stopped after by its own process group.
    Its own RAY_TMPDIR: Ray's default /tmp/ray names "the current cluster" for every user of
    the machine, so another Ray started meanwhile would be joined instead."""
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    port = free_port()
    short = tempfile.mkdtemp(prefix="fexray-", dir="/tmp")  # Ray's socket paths: ≤ 107 bytes
    monkeypatch.setenv("RAY_TMPDIR", short)
    # likewise ~/.ray/auth_token, which any Ray started on the machine may write: this head
    # and its one client run without token auth (both on 127.0.0.1 inside the test)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    log = open(tmp_path / "ray.log", "wb")
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
         "--port", str(port), "--num-cpus", "2", "--include-dashboard", "false",
         "--disable-usage-stats"], stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None and time.monotonic() < deadline, \
                    (tmp_path / "ray.log").read_text()[-2000:]
                time.sleep(0.5)
        yield f"127.0.0.1:{port}", head
    finally:
        _stop_group(head)
        log.close()
        shutil.rmtree(short, ignore_errors=True)


def _stop_group(head: subprocess.Popen) -> None:
    """SIGTERM the head's process group (the head and every process it started), then
    SIGKILL what is left after 5 s (a blocking head took the whole 30 s it was once given: a
    minute of CI for nothing, since every process it started is in the group)."""
    try:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(5)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)


@ray_inner_only
def test_two_seeds_on_ray_give_the_local_frames(ray_head, monkeypatch):
    import ray

    monkeypatch.setenv("FEX_RAY_ADDRESS", ray_head)
    hub = make_hub()
    try:
        got = {seed: hub_frames(hub, TINY.replace(seed=seed), f"s{seed}") for seed in (0, 1)}
        text = prometheus(hub.metrics())
        assert 'fex_workers{executor="ray"} 2' in text and 'executor="local"} 0' in text
        assert "fex_runs_computed_total 2" in text
    finally:
        hub.close()
        ray.shutdown()
    for seed in (0, 1):
        assert got[seed] == local_frames(TINY.replace(seed=seed))
    assert got[0] != got[1]


def test_two_seeds_on_ray_in_its_own_process():
    """The Ray test above, in a pytest of its own (tests/engine/conftest.py says why)."""
    run_in_own_process(f"{__file__}::test_two_seeds_on_ray_give_the_local_frames")


def test_hub_sends_the_azl_limits_after_done(tmp_path, monkeypatch):
    """The worker says "done" at once and sends the converged limits of the AZL chart's NTK and
    last layer when its background solve ends; HubStream.limits() then equals the local one."""
    from engine.hub import HubStream
    from tests.engine.frames_settings import SETTINGS
    from tests.engine.test_frame_limits import _finish
    monkeypatch.setenv("FEX_FRAME_CACHE", str(tmp_path))
    cfg = SETTINGS["azl"].replace(T=6)
    local = FrameStream(cfg)
    local.advance()
    want = _finish(local)
    hub = make_hub(workers=1)
    try:
        stream = HubStream(cfg, hub, "a")
        stream.advance()
        wait_for(lambda: not stream.limits()["pending"], 180)
        assert stream.done and stream.limits() == want and len(want["lines"]) == 2
    finally:
        hub.close()
