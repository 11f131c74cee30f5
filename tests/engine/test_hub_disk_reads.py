"""Issue 38 High 2: a session arriving at a full hub costs no read of the frame cache, and the
reads at once are bounded. A read peaks at ~3x its file's inflated size (58 MB for an
m = 2 000, T = 600 run): a wave of sessions read their files side by side, then were refused."""

from __future__ import annotations

import os
import threading

import pytest

from engine.config import ConfigError
from engine.hub import Hub, run_key, store
from engine.hub.local import LocalPool
from tests.engine.test_hub_cache_hostile import put, record
from tests.engine.test_hub_memory import TINY


def test_a_full_hub_refuses_before_reading_the_file(tmp_path, monkeypatch):
    cfg = TINY.replace(seed=31)
    path = put(tmp_path, record(cfg), run_key(cfg))
    os.utime(path, (1000, 1000))  # a read that succeeds touches the file (eviction order)
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", "0.001")
    hub = Hub(lambda d, c: LocalPool(1, "tests.engine.hub_streams:CountStream", d, c),
              tmp_path)
    try:
        with pytest.raises(ConfigError, match="server is full"):
            hub.subscribe(cfg, "a")
        assert path.stat().st_mtime == 1000  # not read
        monkeypatch.setenv("FEX_HUB_MEMORY_MB", "50")
        hub.subscribe(cfg, "a")
        assert path.stat().st_mtime > 1000
    finally:
        hub.close()


def test_at_most_two_files_are_read_at_once(tmp_path):
    cfg = TINY.replace(seed=32)
    put(tmp_path, record(cfg), run_key(cfg))
    got = []
    for _ in range(2):  # two reads under way
        store.LOADS.acquire()
    try:
        third = threading.Thread(target=lambda: got.append(store.load(tmp_path, run_key(cfg),
                                                                      cfg)))
        third.start()
        third.join(0.5)
        assert third.is_alive() and not got  # waits for a slot
    finally:
        store.LOADS.release()
        store.LOADS.release()
    third.join(30)
    assert got and got[0]["T"] == cfg.T
