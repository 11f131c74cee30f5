"""The Sweeps page's runs on the hub (issue 37): a sweep started from the page is trained by the
hub's worker, once for every session asking the same sweep (the hub's own counters), its rows
equal the in-session path's, and a sweep the hub's memory cannot hold is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine import hub as hubs
from engine.sweep import load, run_sweep
from ui import sweep_run
from ui.state import STATE_KEY, AppState

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "sweep.py")
FIXED = "T=4 n=600 n_test=200 d=40 D=20 m=8 batch=100"
FORM = ("quick-parity", ["k=1,3", ""], FIXED, 1, ["network", "ntk"])
VARYING = ("time_s", "created")  # wall-clock columns: everything else must be equal


pytestmark = pytest.mark.usefixtures("one_worker")  # tests/ui/conftest.py


def submit(grid: str) -> AppTest:
    """A fresh session runs the form's sweep of k over `grid` (seeds 1, network and NTK)."""
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state[STATE_KEY] = AppState()
    at.run()
    at.text_input[0].input(grid)
    at.text_input[1].input("")
    at.text_input[2].input(FIXED)
    at.number_input[0].set_value(1)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def page_rows(at: AppTest) -> list[dict]:
    """The rows of the store the page run left in the session's picker."""
    sources = at.session_state[STATE_KEY].sweep.sources
    (data,) = [v for k, v in sources.items() if k.startswith("this session")]
    return [{k: v for k, v in row.items() if k not in VARYING} for row in load(data)[2]]


def test_two_sessions_asking_one_sweep_train_it_once_with_the_in_session_rows(tmp_path):
    hub = hubs.get_hub()
    before = hub.metrics()
    first = submit("k=1,3")
    assert [s.value for s in first.success][0].startswith("4 rows"), (first.success, first.error)
    after = hub.metrics()
    # 2 settings × 1 seed × 2 methods, each a run of T + 1 = 5 steps
    assert after["runs_computed_total"] - before["runs_computed_total"] == 1
    assert after["steps_computed_total"] - before["steps_computed_total"] == 4 * 5
    second = submit("k=1,3")
    again = hub.metrics()
    assert again["runs_computed_total"] == after["runs_computed_total"]
    assert again["steps_computed_total"] == after["steps_computed_total"]
    assert again["cache_hits_total"] == after["cache_hits_total"] + 1
    spec = sweep_run.spec_from_form(*FORM)
    alone = load(run_sweep(spec, str(tmp_path / "here"))["path"])[2]  # the in-session path
    want = [{k: v for k, v in row.items() if k not in VARYING} for row in alone]
    assert page_rows(first) == want and page_rows(second) == want


def test_a_sweep_over_the_hub_memory_is_refused_in_one_line(monkeypatch):
    hub = hubs.get_hub()
    before = hub.metrics()["runs_computed_total"]
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", "1")
    at = submit("k=1,5")
    assert not at.success
    (err,) = [e.value.replace("\\", "") for e in at.error]  # markdown escapes off
    assert err.startswith("Cannot run this sweep") and "FEX_HUB_MEMORY_MB" in err, err
    assert "\n" not in err
    assert hub.metrics()["runs_computed_total"] == before
    assert not any(k.startswith("this session") for k in at.session_state[STATE_KEY].sweep.sources)
