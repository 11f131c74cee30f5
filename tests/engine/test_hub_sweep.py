"""Page sweeps on the hub (issue 37): sessions asking one sweep at once watch one computation by a
real worker process, their rows equal the in-session units', and the rows count against the
hub's memory."""

from __future__ import annotations

import time

import pytest

from engine.hub.sweep import HubSweep
from engine.sweep import SweepSpec, plan
from engine.sweep.runner import run_unit

TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 4, "batch": 100}
SPEC = SweepSpec("quick-parity", TINY, (("k", (1, 3)),), (), 2, 0, ("network", "ntk"))


def timeless(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "time_s"} for r in rows]


@pytest.fixture(scope="module")
def hub(one_worker_hub):
    return one_worker_hub  # tests/engine/conftest.py


def test_sessions_asking_one_sweep_at_once_share_one_computation(hub):
    views = [HubSweep(SPEC, hub, f"s{i}") for i in range(3)]  # all in before any unit is done
    assert len({v.key for v in views}) == 1
    deadline = time.monotonic() + 300
    while not all(v.done for v in views):
        assert time.monotonic() < deadline, "timed out"
        for view in views:
            view.advance()
        time.sleep(0.1)
    m = hub.metrics()
    rows = 2 * 2 * 2  # settings × seeds × methods
    assert m["runs_computed_total"] == 1
    assert m["steps_computed_total"] == rows * (TINY["T"] + 1)
    local = [row for unit in plan(SPEC, None, force=True).units for row in run_unit(unit)]
    for view in views:
        assert view.finished == view.units == 4
        assert timeless(view.rows) == timeless(local)
    run = hub.runs[views[0].key]
    assert run.nbytes > rows * 1000  # every row (and its curve) counted in the hub's memory
    assert m["memory_mb"] >= run.nbytes / 2**20
    for view in views:
        view.close()
    assert not hub.runs[views[0].key].watchers
