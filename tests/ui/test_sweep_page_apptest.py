"""Sweep page under AppTest: heat map numbers from a stored sweep, Network − NTK, a run from the
page's form."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from engine.sweep import SweepSpec, run_sweep
from ui.figures import lines
from ui.state import STATE_KEY, AppState

ROOT = Path(__file__).resolve().parents[2]
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 6, "batch": 100}


def marker_colors(chart) -> np.ndarray:
    """The heat map's cell values (marker colours), decoding Plotly's base64 arrays."""
    color = json.loads(chart.proto.spec)["data"][0]["marker"]["color"]
    if isinstance(color, dict):
        return np.frombuffer(base64.b64decode(color["bdata"]), dtype=color["dtype"])
    return np.asarray(color, dtype=float)


def page_with(path) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "sweep.py"), default_timeout=120)
    state = AppState()
    state.sweep.sources["tiny"] = Path(path)
    at.session_state[STATE_KEY] = state
    at.session_state["sweep_pick"] = "tiny"
    at.run()
    assert not at.exception, at.exception
    return at


def test_heat_map_shows_the_mean_over_seeds_and_the_difference(tmp_path):
    spec = SweepSpec("quick-parity", TINY, (("k", (1, 3)), ("p_o", (0.2, 0.4))), (), 2, 0,
                     ("network", "ntk"))
    path = run_sweep(spec, str(tmp_path / "s"))["path"]
    df = pd.read_sql("SELECT * FROM results", sqlite3.connect(path))
    at = page_with(path)
    heat = at.get("plotly_chart")[0]
    want = df[df.method == "network"].groupby(["k", "p_o"])["test_acc"].mean().to_numpy()
    assert np.allclose(np.sort(marker_colors(heat)), np.sort(want))
    at.selectbox[[s.label for s in at.selectbox].index("method")].select("Network − NTK").run()
    assert not at.exception, at.exception
    wide = df.pivot_table(index=["k", "p_o", "seed"], columns="method", values="test_acc")
    diff = (wide["network"] - wide["ntk"]).groupby(["k", "p_o"]).mean().to_numpy()
    assert np.allclose(np.sort(marker_colors(at.get("plotly_chart")[0])), np.sort(diff))
    assert len(at.get("plotly_chart")) == 2  # heat map and lines


def test_small_sweep_runs_from_the_page(tmp_path):
    spec = SweepSpec("quick-parity", TINY, (("k", (1,)),), (), 1, 0, ("network",))
    at = page_with(run_sweep(spec, str(tmp_path / "s"))["path"])
    at.text_input[0].input("k=1,3")
    at.text_input[1].input("")
    at.text_input[2].input("T=4 n=600 n_test=200 d=40 D=20 m=8 batch=100")
    at.button[0].click().run()
    assert not at.exception, at.exception
    # 2 values of k × 2 seeds × 2 methods (the form's defaults)
    assert [s.value for s in at.success][0].startswith("8 rows in"), (at.success, at.error)
    assert at.session_state["sweep_pick"].startswith("this session: k")
    at.text_input[0].input("k=1,3,5,7,9,11,13")
    at.text_input[1].input("p_o=0.1,0.2,0.3,0.4")
    at.button[0].click().run()
    assert any("at most 24 runs" in e.value for e in at.error), at.error


def test_lines_tick_only_the_swept_values():
    agg = pd.DataFrame({"k": [1, 3, 5] * 2, "method": ["network"] * 3 + ["ntk"] * 3,
                        "mean": [1.0, 1.0, 1.0, 1.0, 0.7, 0.75], "std": [0.0] * 6})
    fig = lines(agg, "k", "test accuracy over k", "test accuracy")
    assert fig.layout.xaxis.tickvals == (1, 3, 5) and fig.layout.xaxis.ticktext == ("1", "3", "5")
    assert [t.name for t in fig.data] == ["Network", "NTK"]


def test_a_one_setting_sweep_shows_lines_of_every_method_and_no_heat_map_picker():
    """docs/results/sweep-separation-vs-k.sqlite sweeps k alone: no heat map, so no control
    that would pick one method for it (it used to show 'method: Network' doing nothing)."""
    at = page_with(ROOT / "docs/results/sweep-separation-vs-k.sqlite")
    assert "method" not in [s.label for s in at.selectbox]
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    names = [t["name"] for t in json.loads(charts[0].proto.spec)["data"]]
    assert {"Network", "NTK", "RF"} <= set(names), names


def test_a_broken_store_in_sweeps_is_listed_with_a_note_and_never_opened(tmp_path,
                                                                         monkeypatch):
    from ui import sweep_run

    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "a-broken.sqlite").write_bytes(b"\x00garbage" * 100)
    spec = SweepSpec("quick-parity", TINY, (("k", (1, 3)),), (), 1, 0, ("network",))
    run_sweep(spec, str(tmp_path / "sweeps" / "b-good"))
    monkeypatch.setattr(sweep_run, "ROOT", tmp_path)
    at = AppTest.from_file(str(ROOT / "pages" / "sweep.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    picker = at.selectbox(key="sweep_pick")
    assert picker.value == "sweeps/b-good.sqlite"  # the sound store is the default
    assert picker.options[-1] == "sweeps/a-broken.sqlite — cannot be opened"
    picker.set_value("sweeps/a-broken.sqlite").run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert "cannot be opened" in at.warning[0].value and not at.get("plotly_chart")


def test_page_runs_leave_no_temp_folder_and_old_ones_are_removed(tmp_path):
    import os
    import tempfile

    from ui import sweep_run

    before = set(Path(tempfile.gettempdir()).glob("fex-sweep-*"))
    spec = SweepSpec("quick-parity", TINY, (("k", (1,)),), (), 1, 0, ("network",))
    res, data = sweep_run.run_in_tmp(spec, None)
    assert res["written"] == 1 and data[:15] == b"SQLite format 3"
    assert set(Path(tempfile.gettempdir()).glob("fex-sweep-*")) == before
    old, new = tmp_path / "fex-sweep-old", tmp_path / "fex-sweep-new"
    old.mkdir(), new.mkdir()
    os.utime(old, (0, 0))
    assert sweep_run.remove_stale_tmp(root=str(tmp_path)) == 1
    assert not old.exists() and new.exists()


def test_the_structure_strength_sweep_opens_on_its_structured_slice():
    """Its lines opened at structure = 0: the first picture told the opposite of the paper."""
    at = page_with(ROOT / "docs/results/sweep-structure-strength.sqlite")
    slice_box = next(s for s in at.selectbox if s.label == "lines at structure =")
    assert slice_box.value == 1


def test_uploads_off_hides_the_uploader(monkeypatch):
    at = page_with(ROOT / "docs/results/sweep-separation-vs-k.sqlite")
    assert len(at.get("file_uploader")) == 1
    monkeypatch.setenv("FEX_ALLOW_UPLOADS", "0")  # the image's default (docs/hosting.md)
    at = page_with(ROOT / "docs/results/sweep-separation-vs-k.sqlite")
    assert at.get("file_uploader") == []


def test_a_cell_list_with_tied_settings_opens_on_its_own_summaries():
    """The stored gfl-parity-threshold sweep (cells n × d with D = d): the summary picker offers
    its step-1 share, the heat map is n × d with no picker for the tied D (a picker would leave
    one d's cells empty), and its cells hold the stored share after step 1."""
    path = ROOT / "docs/results/sweep-gfl-parity-threshold.sqlite"
    at = page_with(path)
    labels = [s.label for s in at.selectbox]
    assert "D (fixed)" not in labels and "d (fixed)" not in labels
    summary = at.selectbox[labels.index("summary")]
    assert "relevant share after step 1" in summary.options
    assert "test error E‖out − y‖²" not in summary.options  # no row of this sweep has one
    summary.select("share_1").run()
    assert not at.exception, at.exception
    y_axis = at.selectbox[[s.label for s in at.selectbox].index("y axis")]
    assert y_axis.value == "d" and y_axis.options == ["d", "D"]
    df = pd.read_sql("SELECT * FROM results", sqlite3.connect(path))
    want = df[df.method == "one_step"].groupby(["n", "d"])["share_1"].mean().to_numpy()
    assert np.allclose(np.sort(marker_colors(at.get("plotly_chart")[0])), np.sort(want))
