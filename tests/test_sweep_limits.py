"""Sweeps store both (issue 31): each fixed-feature method's converged limit beside its T-step
value (limit_test_* columns, by default; --no-limits skips them), old stores without the columns
still open, and the Sweeps page shows either basis ("T-step" / "converged limit")."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.compare import Comparison
from engine.limits import limit_of
from engine.sweep import Store, SweepSpec, load, run_sweep
from tests.ui.test_sweep_page_apptest import marker_colors, page_with
from ui import sweep_data as sd

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n_test": 300, "T": 4}
AXES = (("m", (8, 10)), ("n", (200, 300)))


def _spec() -> SweepSpec:
    return SweepSpec("gfl-xor", TINY, AXES, (), 1, 0, ("network", "rf"))


def _rows(path) -> pd.DataFrame:
    return pd.read_sql("SELECT * FROM results", sqlite3.connect(path))


@pytest.fixture(scope="module")
def store_path(tmp_path_factory) -> str:
    return run_sweep(_spec(), str(tmp_path_factory.mktemp("sw") / "s"))["path"]


def test_sweep_stores_each_fixed_feature_limit_beside_its_t_step_value(store_path):
    df = _rows(store_path)
    rf, net = df[df.method == "rf"], df[df.method == "network"]
    assert len(rf) == 4 and rf["limit_test_acc"].notna().all()
    assert (rf["limit_certificate"] <= 1e-4).all() and net["limit_test_acc"].isna().all()
    row = rf[(rf.m == 10) & (rf.n == 300)].iloc[0]
    comp = Comparison(_spec().config({"m": 10, "n": 300}, 0), ("rf",), device="cpu")
    comp.run_all()
    lim = limit_of(comp.runs["rf"])  # the same solve in this process, on the same run
    assert row["limit_test_acc"] == pytest.approx(lim["test_acc"], abs=1e-9)
    assert row["test_acc"] == pytest.approx(comp.summary()["rf"]["test_acc"], abs=1e-9)


def test_no_limits_leaves_the_columns_empty(tmp_path, capsys):
    out = tmp_path / "q"
    args = ["sweep", "--preset", "gfl-xor", "--set", "n_test=300", "--set", "T=3",
            "--set", "n=200", "--grid", "m=6", "--methods", "network,rf", "--quiet"]
    assert main([*args, "--no-limits", "--out", str(out)]) == 0
    assert _rows(f"{out}.sqlite")["limit_test_acc"].isna().all()


def test_an_old_store_without_the_columns_opens_and_gains_them(tmp_path):
    old = tmp_path / "old.sqlite"
    shutil.copy(ROOT / "docs" / "results" / "sweep-gfl-xor-gap.sqlite", old)
    cols = {r[1] for r in sqlite3.connect(old).execute("PRAGMA table_info(results)")}
    assert "limit_test_acc" not in cols  # made before the limits existed
    _, _, rows = load(old)
    df = pd.DataFrame(rows)
    assert len(df) and not sd.has_limits(df, "test_acc")
    at = page_with(old)  # the page opens it, with no basis picker
    assert not at.exception and not [r for r in at.radio if r.label == "value"]
    Store(old).close()  # opened for writing (a resumed sweep): the columns are added, NULL
    assert pd.DataFrame(load(old)[2])["limit_test_acc"].isna().all()


def test_sweeps_page_switches_the_heat_map_to_the_converged_limit(store_path):
    df = _rows(store_path)
    at = page_with(store_path)
    at.selectbox[[s.label for s in at.selectbox].index("method")].select("RF").run()
    t_step = np.sort(marker_colors(at.get("plotly_chart")[0]))
    want = df[df.method == "rf"].groupby(["m", "n"])["test_acc"].mean().to_numpy()
    assert np.allclose(t_step, np.sort(want))
    at.radio(key="sweep_basis").set_value("converged limit").run()
    assert not at.exception, at.exception
    got = np.sort(marker_colors(at.get("plotly_chart")[0]))
    lim = df[df.method == "rf"].groupby(["m", "n"])["limit_test_acc"].mean().to_numpy()
    assert np.allclose(got, np.sort(lim)) and not np.allclose(got, t_step)
