"""A Ray head that goes away while the server uses it (issue 38, the note of session 13): Ray's
C++ ends a driver process whose cluster stops (exit code 1), and the web server was that driver.
Now the driver is a child process (engine/hub/ray_proc.py): the hub moves to local workers,
says so in one log line, and this process (the server's stand-in) keeps serving. A real
`ray start --head`, stopped by its process group."""

from __future__ import annotations

import logging
import os
import time

import pytest

from engine.hub import make_hub
from engine.hub.ray_proc import GONE
from tests.engine.own_process import ray_inner_only, run_in_own_process
from tests.engine.test_hub import wait_for
from tests.engine.test_hub_frames import TINY, _stop_group, ray_head_process


@ray_inner_only
def test_the_hub_serves_locally_when_its_ray_head_goes_away(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv("RAY_gcs_rpc_server_reconnect_timeout_s", "5")  # the server's is 15 s
    t0 = time.monotonic()
    with ray_head_process(tmp_path, monkeypatch) as (address, head):
        hub = make_hub(workers=1, ray_address=address)
        try:
            hub.start()
            assert hub.pool.executor == "ray", hub.pool.note
            key = hub.subscribe(TINY, "a", want=TINY.T + 1)
            wait_for(lambda: hub.status(key)["state"] == "done", 60)
            driver = hub.pool.process.pid
            _stop_group(head)  # the cluster stops: Ray ends its driver
            stopped = time.monotonic()
            wait_for(lambda: hub.pool.executor == "local", 60)
            moved = time.monotonic()
            assert not os.path.exists(f"/proc/{driver}/status") or "Z" in open(
                f"/proc/{driver}/status").read().split("State:")[1][:4]
            other = hub.subscribe(TINY.replace(seed=7), "b", want=TINY.T + 1)
            wait_for(lambda: hub.status(other)["state"] == "done", 120)
            assert hub.status(other)["n"] == TINY.T + 1 and hub.status(key)["n"] == TINY.T + 1
            note = hub.pool.note
        finally:
            hub.close()
            print(f"head stopped at {stopped - t0:.1f} s; local at {moved - t0:.1f} s; "
                  f"a new run done at {time.monotonic() - t0:.1f} s")
    lines = [r.getMessage() for r in caplog.records if "went away" in r.getMessage()]
    assert lines == [note] and note.startswith(GONE.split("{")[0]), (lines, note)


@pytest.mark.slow
def test_ray_head_goes_away_in_its_own_process():
    """The test above in a pytest of its own: should the driver ever be this process again,
    Ray's exit ends only that pytest (tests/engine/own_process.py)."""
    run_in_own_process(f"{__file__}::test_the_hub_serves_locally_when_its_ray_head_goes_away",
                       timeout_s=180)
