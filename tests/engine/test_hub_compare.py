"""Compare on the hub (issue 37): a comparison is computed once by a real worker process for
every session on its link, its rows equal the in-session CompareStream's, its report and limits
arrive, and its rows count against the hub's memory."""

from __future__ import annotations

import time

import pytest

from engine.config import Config
from engine.frames.compare import CompareStream
from engine.hub.compare import HubCompare

TINY = Config().replace(n=400, n_test=200, d=20, D=10, m=8, T=12, batch=100)
METHODS = ("network", "rf")


def timeless(value):
    """value without its wall-clock fields (elapsed seconds differ between two computations)."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in ("elapsed", "time_s")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def play(view: HubCompare, timeout: float = 300.0) -> None:
    """Tick the view as the page does until the comparison is done."""
    deadline = time.monotonic() + timeout
    while not view.done:
        assert time.monotonic() < deadline, "timed out"
        view.advance(0.2)
        time.sleep(0.05)


@pytest.fixture(scope="module")
def hub(one_worker_hub):
    return one_worker_hub  # tests/engine/conftest.py


def test_three_sessions_share_one_comparison_equal_to_the_sessions_own(hub):
    views = [HubCompare(TINY, METHODS, 2, hub, f"s{i}") for i in range(3)]
    for view in views:
        play(view)
    m = hub.metrics()
    assert m["runs_computed_total"] == 1  # one computation for three sessions
    # every method's every step of both seeds, once (steps 0..T)
    assert m["steps_computed_total"] == len(METHODS) * 2 * (TINY.T + 1)
    local = CompareStream(TINY, METHODS, 2, device="cpu")
    while not local.done:
        local.advance(None)
    for view in views:
        assert view.finished == 2 and view.t == TINY.T
        assert timeless(view.rows()) == timeless(local.rows())
        assert view.csv().splitlines()[0] == local.csv().splitlines()[0]
        report, own = timeless(view.report()), timeless(local.report())
        assert report["methods"] == own["methods"] and report["history"] == own["history"]
    assert m["memory_mb"] > 0 and hub.runs[views[0].key].nbytes > 0  # counted by the guard


def test_limits_arrive_and_other_methods_are_another_run(hub):
    view = HubCompare(TINY, METHODS, 1, hub, "lim")
    play(view)
    deadline = time.monotonic() + 300
    while view.limits_pending():
        assert time.monotonic() < deadline, "limits never came"
        time.sleep(0.1)
    assert "rf" in view.limits()
    other = HubCompare(TINY, ("network",), 1, hub, "other")
    assert other.key != view.key
    other.close()
    view.close()
