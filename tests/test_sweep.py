"""`engine sweep`: validation before work, the SQLite store, resume after a kill, --force."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from engine.compare import Comparison
from engine.sweep import SweepSpec, load, load_curves, run_sweep

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 8, "batch": 100}
SETS = [arg for k, v in TINY.items() for arg in ("--set", f"{k}={v}")]


def sweep_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python -m engine sweep ...` in a subprocess from the repository root."""
    return subprocess.run([sys.executable, "-m", "engine", "sweep", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, names", [
    (["--grid", "k=1,4"], ["k=4", "odd"]),
    (["--grid", "p_o=0.2,0.9"], ["p_o=0.9", "(0, 2/3]", "in the cell p_o=0.9"]),
    (["--grid", "zz=1"], ["--grid='zz'", "a setting name"]),
    (["--grid", "m=0,5"], ["m=0", "[1, 20000]"]),
    (["--grid", "k=3", "--seeds", "0"], ["--seeds", "[1, 100]"]),
    (["--grid", "k=3", "--methods", "network,svm"], ["--methods", "subset"]),
    (["--grid", "k=3", "--executor", "slurm"], ["--executor", "local, ray"]),
    (["--grid", "k=3", "--grid", "k=5"], ["--grid='k'", "swept once"]),
])
def test_bad_grid_is_one_line_exit_2_before_any_work(tmp_path, args, names):
    out = tmp_path / "bad"
    res = sweep_cli(*args, "--out", str(out))
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.stderr
    for text in names:
        assert text in lines[0]
    assert not (tmp_path / "bad.sqlite").exists()  # validated before the store is created


def tiny_spec(**kw) -> SweepSpec:
    base = dict(preset="quick-parity", fixed=TINY, axes=(("k", (1, 3)), ("p_o", (0.2, 0.4))),
                seeds=2, methods=("network", "ntk", "rf", "one_step"))
    return SweepSpec(**{**base, **kw})


def test_store_rows_match_the_engine_and_pandas_reads_it(tmp_path):
    spec = tiny_spec()
    res = run_sweep(spec, str(tmp_path / "s"), batch=False)
    assert (res["rows"], res["written"], res["skipped"]) == (32, 32, 0)
    con = sqlite3.connect(tmp_path / "s.sqlite")
    df = pd.read_sql("SELECT * FROM results", con)
    assert len(df) == 32 and df["key"].is_unique
    assert set(df.groupby(["k", "p_o", "seed"]).size()) == {4}
    # one row checked against the engine's own comparison of that setting and seed
    comp = Comparison(spec.config({"k": 3, "p_o": 0.4}, 1), spec.methods, "cpu")
    comp.run_all()
    want = comp.summary()
    got = df[(df.k == 3) & (df.p_o == 0.4) & (df.seed == 1)].set_index("method")
    for m in spec.methods:
        assert got.loc[m, "test_acc"] == pytest.approx(want[m]["test_acc"], abs=1e-6)
        assert got.loc[m, "train_acc"] == pytest.approx(want[m]["train_acc"], abs=1e-6)
    assert pd.isna(got.loc["ntk", "cos"]) and got.loc["network", "cos"] > 0
    curves = pd.read_sql("SELECT * FROM curves", con)
    assert set(curves.groupby("key").size()) == {TINY["T"] + 1}  # T=8: every step kept
    meta, axes, rows = load(tmp_path / "s")
    assert axes == ["k", "p_o"] and len(rows) == 32 and "spec" in meta
    assert len(load_curves(tmp_path / "s", [rows[0]["key"]])[rows[0]["key"]]) == TINY["T"] + 1


def test_rerun_skips_and_force_replaces_without_duplicates(tmp_path):
    spec = tiny_spec(axes=(("k", (1, 3)),), seeds=1, methods=("network", "rf"))
    first = run_sweep(spec, str(tmp_path / "s"), batch=False)
    again = run_sweep(spec, str(tmp_path / "s"), batch=False)
    assert (first["written"], again["written"], again["skipped"], again["units"]) == (4, 0, 4, 0)
    forced = run_sweep(spec, str(tmp_path / "s"), batch=False, force=True)
    assert forced["units"] == 2
    con = sqlite3.connect(tmp_path / "s.sqlite")
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (4, 4)
    n_curves = con.execute("SELECT COUNT(*) FROM curves").fetchone()[0]
    assert n_curves == 4 * (TINY["T"] + 1)


def test_killed_sweep_resumes_without_duplicates_or_recomputation(tmp_path):
    out = tmp_path / "kill"
    sets = [a for k, v in {**TINY, "T": 60, "m": 20}.items() for a in ("--set", f"{k}={v}")]
    args = [*sets, "--grid", "k=1,3,5", "--grid",
            "p_o=0.2,0.4,0.6", "--seeds", "2", "--methods", "network,ntk",
            "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "engine", "sweep", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db, stored = out.with_suffix(".sqlite"), 0
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                stored = sqlite3.connect(db).execute("SELECT COUNT(*) FROM results").fetchone()[0]
            except sqlite3.OperationalError:  # table not created yet
                stored = 0
            if stored >= 2:
                proc.send_signal(signal.SIGKILL)
                break
        time.sleep(0.05)
    proc.wait(30)
    con = sqlite3.connect(db)
    before = dict(con.execute("SELECT key, created || '/' || time_s FROM results"))
    assert 2 <= len(before) < 36, "the sweep was not killed midway"
    res = sweep_cli(*args, "--quiet")
    assert res.returncode == 0, res.stderr
    assert f"36 rows, {len(before)} already stored, {36 - len(before)} written" in res.stdout
    after = dict(con.execute("SELECT key, created || '/' || time_s FROM results"))
    assert len(after) == 36
    assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 36
    assert all(after[k] == v for k, v in before.items())  # stored rows untouched


def test_local_worker_processes_give_the_in_process_numbers(tmp_path):
    spec = tiny_spec(axes=(("k", (1, 3)),), seeds=1, methods=("network", "ntk"))
    one = run_sweep(spec, str(tmp_path / "one"), batch=False)
    two = run_sweep(spec, str(tmp_path / "two"), batch=False, workers=2)
    assert one["written"] == two["written"] == 4
    cols = "key, train_acc, test_acc, cos, steps_95"
    rows = [sorted(sqlite3.connect(p).execute(f"SELECT {cols} FROM results"))
            for p in (one["path"], two["path"])]
    assert rows[0] == rows[1]
