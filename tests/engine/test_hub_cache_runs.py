"""Issue 38, the frame cache with the hub on real worker processes: a crafted file under a key
is recomputed (never shown as that run), the file is read outside the hub's lock, and a run
whose limits come after "done" is written once, with them (issue 37's "replays without its limit
lines"). Streams: tests/engine/hub_streams.py."""

from __future__ import annotations

import gzip
import json
import time

from engine.config import Config
from engine.hub import Hub, run_key, store
from engine.hub.local import LocalPool
from engine.hub.warm import warm
from tests.engine.test_hub_cache_hostile import record

TINY = Config().replace(n=600, n_test=200, d=40, D=20, m=8, T=40, batch=100)


def make(cache, stream="tests.engine.hub_streams:CountStream") -> Hub:
    return Hub(lambda deliver, crashed: LocalPool(1, stream, deliver, crashed), cache)


def wait_for(pred, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_another_seeds_frames_under_a_key_are_recomputed(tmp_path):
    cfg = TINY.replace(seed=1010)
    key = run_key(cfg)
    impostor = {**record(TINY.replace(seed=5)), "key": key}
    (tmp_path / f"{key}.json.gz").write_bytes(gzip.compress(json.dumps(impostor).encode()))
    hub = make(tmp_path)
    try:
        hub.subscribe(cfg, "a", want=cfg.T + 1)
        wait_for(lambda: hub.status(key)["state"] == "done")
        got = hub.batch(key, 0, 1000)["frames"]
        assert hub.metrics()["runs_computed_total"] == 1
    finally:
        hub.close()
    assert got == record(cfg)["frames"] and got != impostor["frames"]


def test_the_cache_is_read_outside_the_hub_lock(tmp_path, monkeypatch):
    cfg = TINY.replace(seed=1011)
    body = record(cfg)
    (tmp_path / f"{run_key(cfg)}.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))
    hub, held = make(tmp_path), []
    real = store.load

    def watched(*args, **kwargs):  # the real load; notes whether the hub's lock is held
        held.append(hub.lock._is_owned())
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "load", watched)
    try:
        key = hub.subscribe(cfg, "a")
        assert hub.status(key)["state"] == "done" and hub.pool is None
    finally:
        hub.close()
    assert held == [False]


def test_a_run_is_cached_once_with_its_limits(tmp_path):
    cfg = TINY.replace(seed=1012)
    key = run_key(cfg)
    path = tmp_path / f"{key}.json.gz"
    hub = make(tmp_path, "tests.engine.hub_streams:LimitStream")
    try:
        hub.subscribe(cfg, "a", want=cfg.T + 1)
        wait_for(path.exists)
        first = json.loads(gzip.decompress(path.read_bytes()))
    finally:
        hub.close()
    assert first["meta"]["limits"]["pending"] is False  # never a file without them
    again = make(tmp_path, "tests.engine.hub_streams:LimitStream")
    try:
        again.subscribe(cfg, "b")
        assert again.status(key)["meta"]["limits"]["lines"]
        assert again.pool is None  # replayed, not computed
    finally:
        again.close()


def test_engine_warm_writes_the_limits(tmp_path):
    cfg = TINY.replace(seed=1013)
    path, computed = warm(cfg, tmp_path, factory="tests.engine.hub_streams:LimitStream")
    assert computed
    body = json.loads(gzip.decompress(path.read_bytes()))
    assert body["meta"]["limits"] == {"pending": False, "lines": [{"curve": "test",
                                                                    "value": 0.5}]}
    assert warm(cfg, tmp_path, factory="tests.engine.hub_streams:LimitStream")[1] is False
