"""The run hub's bookkeeping on real worker processes (forked from the forkserver, as on the
server): one computation per key, late joiners, leaving, a killed worker, fairness, the memory
limit, the disk cache and /metrics. The stream is a cheap stand-in (tests/engine/hub_streams.py);
the hub on the real FrameStream is tests/engine/test_hub_frames.py."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from engine.config import Config, ConfigError
from engine.hub import Hub, packing, prometheus, run_key
from engine.hub.local import LocalPool
from engine.hub.store import cache_dir

STREAM = "tests.engine.hub_streams:CountStream"
TINY = Config().replace(n=600, n_test=200, d=40, D=20, m=8, T=40, batch=100)


def make(workers: int = 2, cache=None) -> Hub:
    return Hub(lambda deliver, crashed: LocalPool(workers, STREAM, deliver, crashed), cache)


def wait_for(pred, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def hub():
    h = make()
    yield h
    h.close()


def test_the_key_is_what_the_run_reads():
    assert run_key(TINY) == run_key(Config().replace(n=600, n_test=200, d=40, D=20, m=8, T=40,
                                                     batch=100))
    assert run_key(TINY) != run_key(TINY.replace(seed=1))
    assert run_key(TINY) != run_key(TINY.replace(T=41))
    # t1 is read only under the interval labeling: the paper's parity run ignores it
    assert run_key(TINY) == run_key(TINY.replace(t1=TINY.t1 + 1 if TINY.t1 < TINY.k else 1))
    # "auto" and the world's own procedure are one run
    assert run_key(TINY) == run_key(TINY.replace(procedure="shi2022"))


def test_packing_round_trip():
    batch = {"step": [0, 1, 2], "pos": "AAECAwQFBgcICQoL", "text": ["a", "b", "c"]}
    frames = packing.split(batch)
    assert [f["step"] for f in frames] == [0, 1, 2] and len(frames[1]["pos"]) == 4
    assert packing.join(frames) == batch
    assert packing.join(frames[1:2]) == {"step": [1], "pos": "BAUGBw==", "text": ["b"]}
    assert packing.join([], packing.kinds(batch)) == {"step": [], "pos": "", "text": []}


def test_one_run_for_many_watchers_and_late_joiners_get_every_frame(hub):
    cfg = TINY.replace(seed=11)
    before = hub.metrics()
    key = hub.subscribe(cfg, "a", want=cfg.T + 1)
    assert hub.subscribe(cfg, "b") == key
    wait_for(lambda: hub.status(key)["state"] == "done")
    late = hub.subscribe(cfg, "c")
    got = hub.batch(key, 0, limit=1000)
    assert late == key and got["done"] and got["error"] == ""
    assert got["frames"]["step"] == list(range(cfg.T + 1))
    after = hub.metrics()
    assert after["runs_computed_total"] - before["runs_computed_total"] == 1
    assert after["steps_computed_total"] - before["steps_computed_total"] == cfg.T + 1
    assert after["cache_hits_total"] - before["cache_hits_total"] == 1  # "c" joined a done run
    for w in "abc":
        hub.leave(w)


def test_only_asked_frames_are_computed_and_an_unwatched_run_stops(hub):
    cfg = TINY.replace(seed=12, T=400)
    key = hub.subscribe(cfg, "a")  # steps 0-2 before anyone asks
    wait_for(lambda: hub.status(key)["n"] >= 3)
    time.sleep(0.3)
    assert hub.status(key)["n"] == 3 and hub.status(key)["state"] == "live"
    hub.want(key, "a", 30)
    wait_for(lambda: hub.status(key)["n"] >= 30)
    hub.leave("a")
    assert hub.status(key)["state"] == "stopped"
    held = hub.status(key)["n"]
    # a new watcher gets the frames held at once, and the run goes on from there
    hub.subscribe(cfg, "b", want=60)
    assert hub.batch(key, 0, 1000)["frames"]["step"][:held] == list(range(held))
    wait_for(lambda: hub.status(key)["n"] >= 60)
    assert hub.batch(key, 0, 1000)["frames"]["step"] == list(range(hub.status(key)["n"]))
    hub.leave("b")


def test_a_killed_worker_fails_only_its_run(hub):
    slow, other = TINY.replace(seed=21, T=3000), TINY.replace(seed=22, T=150)
    k1 = hub.subscribe(slow, "s", want=slow.T + 1)
    k2 = hub.subscribe(other, "o", want=other.T + 1)
    pool = hub.pool
    wait_for(lambda: hub.status(k1)["n"] > 5 and hub.status(k2)["n"] > 5)
    victim = pool.where[k1]
    assert pool.where[k2] is not victim  # two runs, two workers
    os.kill(victim.process.pid, signal.SIGKILL)
    wait_for(lambda: hub.status(k1)["state"] == "failed")
    assert "worker computing this run stopped" in hub.status(k1)["error"]
    assert hub.batch(k1, 0)["error"] == hub.status(k1)["error"]  # what its watchers are told
    wait_for(lambda: hub.status(k2)["state"] == "done")
    assert hub.status(k2)["error"] == "" and hub.status(k2)["n"] == other.T + 1
    assert all(w.process.is_alive() for w in pool.workers)  # a fresh worker took its place
    hub.leave("s")
    hub.leave("o")


def test_runs_on_one_worker_take_turns():
    h = make(workers=1)
    try:
        big, small = TINY.replace(seed=31, T=4000), TINY.replace(seed=32, T=40)
        kb = h.subscribe(big, "big", want=big.T + 1)
        wait_for(lambda: h.status(kb)["n"] > 3)
        ks = h.subscribe(small, "small", want=small.T + 1)
        wait_for(lambda: h.status(ks)["state"] == "done")
        # the small run did not wait for the big one (4000 steps of 10 ms)
        assert h.status(kb)["state"] == "live" and h.status(kb)["n"] < 1000
        assert h.metrics()["queue_length"] == 0  # the small one is done: nobody waits
    finally:
        h.close()


def test_fifty_distinct_runs_stay_within_the_limit(hub, monkeypatch):
    # 2 workers × 400 MB, one tiny run's estimate (40.4 MB) and about 1.5 MB of frames
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", "842")
    peak = 0.0
    for seed in range(100, 150):
        cfg = TINY.replace(seed=seed)
        key = hub.subscribe(cfg, "student", want=cfg.T + 1)
        wait_for(lambda k=key: hub.status(k)["state"] == "done")
        peak = max(peak, hub.metrics()["memory_mb"])
    hub.leave("student")
    assert peak <= 842
    # the least recently used went: about 1.5 MB of ~45 KB runs stay
    assert 10 < hub.metrics()["runs_cached"] < 50


def test_a_full_hub_refuses_with_one_line(hub, monkeypatch):
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", "850")
    key = hub.subscribe(TINY.replace(seed=41, T=3000), "x", want=3001)
    with pytest.raises(ConfigError) as err:
        hub.subscribe(TINY.replace(seed=42, T=3000), "y")
    msg = str(err.value)
    assert "\n" not in msg and "FEX_HUB_MEMORY_MB" in msg and "server is full" in msg
    hub.leave("x")
    assert hub.status(key)["state"] == "stopped"


def test_the_disk_cache_replays_without_computing(tmp_path, monkeypatch):
    monkeypatch.setenv("FEX_FRAME_CACHE", str(tmp_path))
    cfg = TINY.replace(seed=51)
    first = make(workers=1, cache=cache_dir())
    try:
        key = first.subscribe(cfg, "a", want=cfg.T + 1)
        wait_for(lambda: (tmp_path / f"{key}.json.gz").exists())
        want = first.batch(key, 0, 1000)
    finally:
        first.close()
    second = make(workers=1, cache=cache_dir())
    try:
        assert second.subscribe(cfg, "b") == key
        assert second.batch(key, 0, 1000) == want
        m = second.metrics()
        assert m["cache_hits_total"] == 1 and m["runs_computed_total"] == 0
        assert second.pool is None  # nothing was computed: no worker was even started
    finally:
        second.close()


def test_metrics_text_format(hub):
    text = prometheus(hub.metrics())
    names = {line.split()[0].split("{")[0] for line in text.splitlines()
             if not line.startswith("#")}
    assert names == {"fex_sessions", "fex_runs_live", "fex_runs_cached",
                     "fex_runs_computed_total", "fex_steps_computed_total",
                     "fex_cache_hits_total", "fex_queue_length", "fex_workers",
                     "fex_hub_memory_mb"}
    assert 'fex_workers{executor="local"} 2' in text and 'fex_workers{executor="ray"} 0' in text
    assert "# TYPE fex_steps_computed_total counter" in text


def test_hub_stream_keeps_the_frame_contract(hub):
    from engine.hub import HubStream

    cfg = TINY.replace(seed=61)
    stream = HubStream(cfg, hub, "page")  # waits for step 0
    assert stream.T == cfg.T and len(stream) >= 1 and stream.meta()["run"] == "count-61"
    assert stream.advance(0.2, 10) == 0  # the executor takes the steps, not the page
    wait_for(lambda: len(stream) >= 10)
    assert stream.frames(0, 10)["step"] == list(range(10))
    stream.advance()  # None: the whole run
    wait_for(lambda: stream.done)
    assert stream.error == "" and len(stream) == cfg.T + 1
    stream.close()
    assert hub.status(run_key(cfg))["state"] == "done"


def test_a_bad_worker_setting_fails_the_page_in_one_line(monkeypatch):
    from engine.hub import HubStream, RunFailed

    h = Hub(lambda d, c: LocalPool(1, "tests.engine.hub_streams:NoStream", d, c))
    try:
        with pytest.raises(RunFailed) as err:
            HubStream(TINY, h, "page")
        assert str(err.value).startswith("the run stopped: AttributeError") and \
            "\n" not in str(err.value)
    finally:
        h.close()


def test_workers_fit_the_memory_limit_and_bad_values_are_refused(monkeypatch):
    from engine.hub.budget import hub_enabled, workers_setting

    monkeypatch.delenv("FEX_WORKERS", raising=False)
    monkeypatch.delenv("FEX_HUB_MEMORY_MB", raising=False)
    assert workers_setting(cores=2) == 2
    assert workers_setting(cores=16) == 3  # 60 % of 2560 MB holds three 400 MB workers
    monkeypatch.setenv("FEX_WORKERS", "0")
    assert not hub_enabled()  # each session computes its own run
    for bad in ("x", "-1", "65", "２"):
        monkeypatch.setenv("FEX_WORKERS", bad)
        with pytest.raises(ConfigError, match="FEX_WORKERS=.* a whole number from 0"):
            workers_setting()
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", "lots")
    with pytest.raises(ConfigError, match="FEX_HUB_MEMORY_MB"):
        Hub(None).budget.cap()


def test_a_hub_started_by_a_short_lived_thread_keeps_its_first_run():
    """`streamlit run app.py` starts the hub lazily, inside a page's script run (a thread that
    ends after the first frame): the workers and the first subscription outlive that thread
    (they were killed with it: "computed 0 of 600 steps", Play stuck)."""
    h, cfg, out = make(workers=1), TINY.replace(seed=31), {}

    def page_run():  # subscribe, wait for step 0 (as HubStream does), end
        out["key"] = h.subscribe(cfg, "first")
        wait_for(lambda: h.status(out["key"])["n"] > 0)
        out["pids"] = h.pool.pids()

    try:
        t = threading.Thread(target=page_run)
        t.start()
        t.join()
        time.sleep(1.0)  # the worker's death signal, when it came, came at once
        h.want(out["key"], "first", cfg.T + 1)  # Play
        wait_for(lambda: h.status(out["key"])["state"] in ("done", "failed"))
        st = h.status(out["key"])
        assert (st["state"], st["error"], st["n"]) == ("done", "", cfg.T + 1)
        assert h.pool.pids() == out["pids"]
    finally:
        h.close()
