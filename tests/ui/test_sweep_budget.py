"""A page sweep's time budget and its one running sweep per session (issue 30, finding 6):
the form accepted 24 runs × 5 methods at T = 5000, n = 20 000 (1-2 CPU-hours per click), and
nothing stopped a second sweep beside it."""

from __future__ import annotations

import threading

import pytest

from engine import guard
from engine.config import ConfigError
from engine.sweep.spec import check
from ui import sweep_run
from ui.state import SweepState

BIG = ("quick-parity", ["k=1,3,5,7", "p_o=0.1,0.2,0.3"], "T=5000 n=20000 n_test=5000", 2,
       ["network", "ntk", "rf", "one_step", "two_step"])
TINY = ("quick-parity", ["k=1,3"], "T=4 n=600 n_test=200 d=40 D=20 m=8 batch=100", 1,
        ["network"])


def test_a_grid_over_the_time_budget_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("FEX_MAX_SECONDS", "1000000")
    spec = sweep_run.spec_from_form(*BIG)  # every cell alone is within the guard
    monkeypatch.setenv("FEX_MAX_SECONDS", "120")
    for _, cfg in check(spec):
        guard.check(cfg, spec.methods, embed=False)
    assert sweep_run.grid_seconds(spec) > 3600
    with pytest.raises(ConfigError) as err:
        sweep_run.spec_from_form(*BIG)
    msg = str(err.value)
    assert err.value.name == "grid" and "\n" not in msg, msg
    assert "FEX_MAX_SECONDS" in msg and "120 s" in msg and "12 settings × 2 seeds × 5" in msg


def test_the_forms_default_grid_fits_the_budget():
    spec = sweep_run.spec_from_form("quick-parity", ["k=1,3,5", "p_o=0.2,0.4"],
                                    "T=100 n=4000 n_test=2000", 2, ["network", "ntk"])
    assert 0 < sweep_run.grid_seconds(spec) <= guard.limit("FEX_MAX_SECONDS")


def test_one_running_page_sweep_per_session_and_a_few_per_server(tmp_path):
    """A real tiny sweep holds its session's slot until it ends (it waits in its progress
    callback here); a second in that session, or one past the server's cap, is refused."""
    mine, other, third = SweepState(), SweepState(), SweepState()
    started, release, errors = threading.Event(), threading.Event(), []

    def tick(i, n, rows):
        started.set()
        release.wait(60)

    def first():
        try:
            with sweep_run.page_slot(mine):
                sweep_run.run_in_tmp(sweep_run.spec_from_form(*TINY), tick)
        except Exception as err:  # reported below: the thread must not hide it
            errors.append(err)

    worker = threading.Thread(target=first)
    worker.start()
    try:
        assert started.wait(120), errors
        with pytest.raises(ConfigError, match="one running page sweep per session"):
            with sweep_run.page_slot(mine):
                pass
        with sweep_run.page_slot(other):  # another session may run one beside it
            with pytest.raises(ConfigError, match=f"at most {sweep_run.MAX_RUNNING} page"):
                with sweep_run.page_slot(third):
                    pass
    finally:
        release.set()
        worker.join(120)
    assert not errors, errors
    with sweep_run.page_slot(mine):  # free again once the sweep ended
        pass
