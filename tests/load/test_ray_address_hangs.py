"""Issue 38 High 4: a FEX_RAY_ADDRESS that hangs or is not Ray. The hub's join is bounded and
falls back to local workers with one log line, so the web server starts, serves Explore and
stays up (it used to exit 25 s after start with the CLI's wording, and a plain listener cost
every Explore page 10 s). The listeners are real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.hub_load import link, metrics
from bench.light import session
from engine.config import Config, ConfigError
from engine.hub import executor_note, make_hub
from engine.hub.ray_pool import JOIN_S, gcs_answers, join
from scripts.serve import start_app
from tests.engine.test_hub_frames import ray_head  # noqa: F401 - the fixture

SETTINGS_FRAME = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # an empty HTTP/2 SETTINGS frame
SETTING = {"n": 600, "n_test": 200, "T": 4, "m": 8, "batch": 100}


class Listener:
    """Accepts on 127.0.0.1 and holds every connection (after `greeting`, if any)."""

    def __init__(self, greeting: bytes = b""):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.greeting, self.held = greeting, []
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.greeting:
                conn.sendall(self.greeting)
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture(params=["plain TCP", "HTTP/2 SETTINGS"])
def listener(request):
    lst = Listener(SETTINGS_FRAME if request.param == "HTTP/2 SETTINGS" else b"")
    yield lst
    lst.close()


def test_the_join_is_bounded_and_one_line(listener):
    t0 = time.monotonic()
    with pytest.raises(ConfigError) as err:
        join(listener.address, limit=2.0)
    waited = time.monotonic() - t0
    assert "FEX_RAY_ADDRESS" in str(err.value) and "\n" not in str(err.value)
    assert waited < 2.0 + 10  # bounded by its limit (the join never blocks unbounded)


def test_the_hub_falls_back_to_local_workers(listener, monkeypatch, caplog):
    monkeypatch.setenv("FEX_RAY_ADDRESS", listener.address)
    hub = make_hub(workers=1, factory="tests.engine.hub_streams:CountStream")
    try:
        hub.start()
        assert hub.pool.executor == "local" and "Ray not joined" in hub.pool.note
        cfg = Config().replace(n=600, n_test=200, d=40, D=20, m=8, T=5, batch=100)
        key = hub.subscribe(cfg, "a", want=6)
        deadline = time.monotonic() + 120
        while hub.status(key)["state"] != "done":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        hub.close()
    lines = [r.getMessage() for r in caplog.records if "Ray not joined" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0]


def test_the_gcs_probe_tells_a_fake_from_a_head(listener):
    with pytest.raises(ConfigError) as err:
        gcs_answers(listener.address, 2.0)
    assert "GCS" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow
def test_a_real_head_answers_the_gcs_probe(ray_head):  # noqa: F811
    gcs_answers(ray_head, 10.0)  # a real GCS: no error


def test_executor_note_is_empty_without_a_hub():
    assert executor_note() == ""


@pytest.mark.slow
def test_the_server_serves_explore_locally_and_stays_up(listener, monkeypatch, tmp_path):
    monkeypatch.setenv("FEX_RAY_ADDRESS", listener.address)
    monkeypatch.setenv("FEX_WORKERS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    t0 = time.monotonic()
    server = start_app(log_path=tmp_path / "server.log", timeout=120)
    started = time.monotonic() - t0
    try:
        query = link(SETTING, 3, SETTING["T"])
        with ThreadPoolExecutor(1) as pool:  # its own loop (Playwright may hold this one's)
            res = pool.submit(asyncio.run, session(server.url, query, 0, SETTING["T"],
                                                   240)).result()
        while time.monotonic() - t0 < 35:  # past the 25 s after which the server used to exit
            time.sleep(1)
        assert server.alive()
        assert metrics(server.url).get("fex_workers_local", 0) >= 1  # fell back to local
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert res.error == "" and res.last_step == SETTING["T"], (res, log[-2000:])
    assert log.count("Ray not joined") == 1 and "Traceback" not in log, log[-2000:]
    print(f"{listener.address}: healthy after {started:.1f} s (limit {JOIN_S:g} s join)")
