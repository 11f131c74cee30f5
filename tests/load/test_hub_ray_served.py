"""The served dashboard on a Ray cluster: two sessions on two seeds of one link, through the web
server (asgi.py, FEX_RAY_ADDRESS), each get the whole run, computed as Ray actors (issue 29)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.hub_load import link, metrics
from bench.light import session
from scripts.serve import start_app
from tests.engine.test_hub_frames import ray_head  # noqa: F401 - the fixture

SETTING = {"n": 1000, "n_test": 500, "T": 8, "m": 20, "batch": 100}


async def _two_seeds(url: str) -> list:
    return await asyncio.gather(*(session(url, link(SETTING, seed, SETTING["T"]), seed,
                                          SETTING["T"], 240) for seed in (0, 1)))


def ray_pool_up(url: str, within_s: float = 60) -> dict:
    """The server's metrics once its hub has joined Ray (the pool connects in the background
    after the server answers health: read at once, it said 0 Ray workers in one CI run)."""
    deadline = time.monotonic() + within_s
    found = metrics(url)
    while found["fex_workers_ray"] < 1 and time.monotonic() < deadline:
        time.sleep(0.5)
        found = metrics(url)
    return found


@pytest.mark.slow
def test_two_served_sessions_on_two_seeds_run_on_ray(ray_head, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("FEX_RAY_ADDRESS", ray_head)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    server = start_app(log_path=tmp_path / "server.log", timeout=120)
    try:
        before = ray_pool_up(server.url)
        # its own thread: earlier browser tests leave Playwright's event loop running in this one
        with ThreadPoolExecutor(1) as pool:
            results = pool.submit(asyncio.run, _two_seeds(server.url)).result()
        after = metrics(server.url)
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()[-3000:]
    for res in results:
        assert res.error == "" and res.last_step == SETTING["T"], (res, log)
        assert res.steps_seen == set(range(SETTING["T"] + 1)), (res, log)
    assert before["fex_workers_ray"] >= 1 and before["fex_workers_local"] == 0, before
    assert after["fex_workers_ray"] >= 1 and after["fex_workers_local"] == 0, after
    assert after["fex_runs_computed_total"] - before["fex_runs_computed_total"] == 2, after
    assert after["fex_steps_computed_total"] - before["fex_steps_computed_total"] <= \
        2 * (SETTING["T"] + 1) * 1.1, after
