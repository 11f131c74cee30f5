"""Crafted stores (issue 30, findings 2, 4, 12 and the fresh pass): each is a genuine store
changed by one SQL statement, refused on open in one line that says why, from a file (the
listed sweeps/ and `engine sweep --out`) and from its bytes (an upload), in bounded time and
memory; genuine stores, WAL mode included, still open."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.sweep import Store, load
from engine.sweep.integrity import StoreError

ROOT = Path(__file__).resolve().parents[1]
PIXEL = "![x](http://127.0.0.1:9/pixel.png)"
MAX_LINE = 600
BIG = "hex(zeroblob(499999999))"  # 1 GB of text per evaluation
MAX_VALUE_BYTES = 4 << 20  # engine/sweep/integrity.py (the bound this pass adds)


def genuine(path: Path, rows: int = 4, close: bool = True) -> Path:
    """A real store of `rows` rows over k (made-up numbers: the reader's input, not a run)."""
    store = Store(path)
    store.prepare({"preset": "quick-parity", "fixed": {"T": "6"}, "axes": [["k", [1, 3]]],
                   "cells": [], "seeds": 2, "seed": 0, "methods": ["network", "ntk"],
                   "device": "cpu"}, ["k"], {"k": 3}, "test")
    store.write([{"key": f"r{i}", "setting": {"k": 1 + 2 * (i % 2)}, "seed": i // 4,
                  "method": ("network", "ntk")[i // 2 % 2], "train_acc": 1.0, "test_acc": 0.9,
                  "cos": 0.5, "steps_95": 3, "steps_99": None, "time_s": 0.1, "device": "cpu",
                  "batched": 0, "code_version": "x", "config": "{}",
                  "curve": [(t, 1.0, 0.9, 0.1, 0.2, 0.5) for t in range(5)]}
                 for i in range(rows)])
    if close:
        store.close()
    else:
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows are in the main file
    return path


def crafted(path: Path, sql: str) -> Path:
    """A genuine store changed by `sql` (run by the test's own sqlite3, not by the reader)."""
    genuine(path)
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()
    return path


# id -> (SQL applied to a genuine store, a word the refusal must contain)
CASES = {
    # finding 2: SQL hidden in the schema
    "generated virtual column": (f"ALTER TABLE results ADD COLUMN big TEXT AS ({BIG});",
                                 "not NAME TYPE"),
    "generated column in curves": (f"ALTER TABLE curves ADD COLUMN big TEXT AS ({BIG});",
                                   "curves"),
    "generated column, GENERATED ALWAYS": (
        "ALTER TABLE results ADD COLUMN g REAL GENERATED ALWAYS AS (test_acc * 2);",
        "not NAME TYPE"),
    "CHECK on a new column": ("ALTER TABLE results ADD COLUMN c INTEGER "
                              "CHECK (length(hex(zeroblob(9))) > 0);", "not NAME TYPE"),
    "DEFAULT on a new column": ("ALTER TABLE results ADD COLUMN c TEXT DEFAULT 'x';",
                                "not NAME TYPE"),
    "COLLATE on a new column": ("ALTER TABLE results ADD COLUMN c TEXT COLLATE NOCASE;",
                                "not NAME TYPE"),
    "REFERENCES on a new column": ("ALTER TABLE results ADD COLUMN c TEXT REFERENCES meta(name);",
                                   "not NAME TYPE"),
    "index on an expression": ("CREATE INDEX i ON results (length(hex(zeroblob(seed))));",
                               "index"),
    "plain explicit index": ("CREATE INDEX i ON results (seed);", "index"),
    "partial index": ("CREATE INDEX i ON results (seed) WHERE seed > 0;", "index"),
    "an extra table": ("CREATE TABLE extra (x);", "extra"),
    "an unknown column": ("ALTER TABLE results ADD COLUMN evil REAL;", "evil"),
    "a BLOB-typed setting column": ("ALTER TABLE results ADD COLUMN m BLOB;", "not NAME TYPE"),
    "a REAL column retyped TEXT": (
        "ALTER TABLE results RENAME COLUMN test_acc TO old; "
        "ALTER TABLE results ADD COLUMN test_acc TEXT;", "old"),
    "a temp trigger-like view in curves' place": (
        "DROP TABLE curves; CREATE VIEW curves AS SELECT 1 AS key;", "view"),
    # finding 12
    "WITHOUT ROWID results": (
        "DROP TABLE results; CREATE TABLE results (key TEXT PRIMARY KEY, seed INTEGER, "
        "method TEXT, train_acc REAL, test_acc REAL, cos REAL, steps_95 INTEGER, "
        "steps_99 INTEGER, time_s REAL, device TEXT, batched INTEGER, code_version TEXT, "
        "config TEXT, created TEXT, k INTEGER) WITHOUT ROWID;", "WITHOUT ROWID"),
    # finding 4: meta values
    "deeply nested axes": ("UPDATE meta SET value = '" + "[" * 200_000 + "' WHERE name = 'axes';",
                           "axes"),
    "axes k, seed, k": ("""UPDATE meta SET value = '["k", "seed", "k"]' WHERE name = 'axes';""",
                        "axes"),
    "axes k twice": ("""UPDATE meta SET value = '["k", "k"]' WHERE name = 'axes';""", "twice"),
    "axes as an object": ("""UPDATE meta SET value = '{"k": 1}' WHERE name = 'axes';""", "axes"),
    "spec not JSON": ("UPDATE meta SET value = 'not json' WHERE name = 'spec';", "spec"),
    "spec a list": ("UPDATE meta SET value = '[]' WHERE name = 'spec';", "spec"),
    "spec nested deeply": ("UPDATE meta SET value = '" + "{\"a\":" * 100_000 +
                           "' WHERE name = 'spec';", "spec"),
    "spec unknown preset": ("""UPDATE meta SET value = '{"preset": "nope"}'
                               WHERE name = 'spec';""", "preset"),
    "spec markdown preset": (f"""UPDATE meta SET value = '{{"preset": "{PIXEL}"}}'
                                WHERE name = 'spec';""", "preset"),
    "spec fixed unknown setting": ("""UPDATE meta SET value = '{"fixed": {"zz": 1}}'
                                      WHERE name = 'spec';""", "zz"),
    "spec fixed out of range": ("""UPDATE meta SET value = '{"fixed": {"m": 0}}'
                                   WHERE name = 'spec';""", "m=0"),
    "spec fixed nested": ("""UPDATE meta SET value = '{"fixed": {"m": [1]}}'
                             WHERE name = 'spec';""", "fixes m"),
    "spec negative seed": ("""UPDATE meta SET value = '{"seed": -1}' WHERE name = 'spec';""",
                           "seed"),
    "spec unknown key": ("""UPDATE meta SET value = '{"evil": 1}' WHERE name = 'spec';""",
                         "spec"),
    "meta unknown name": ("INSERT INTO meta VALUES ('evil', 'x');", "evil"),
    "meta value a blob": ("UPDATE meta SET value = x'00ff' WHERE name = 'git';", "meta"),
    # finding 4: row values
    "text in a REAL column": ("UPDATE results SET test_acc = 'abc' WHERE key = 'r0';",
                              "results.test_acc"),
    "infinite accuracy": ("UPDATE results SET test_acc = 9e999 WHERE key = 'r0';",
                          "results.test_acc"),
    "blob in a REAL column": ("UPDATE results SET cos = x'00' WHERE key = 'r0';",
                              "results.cos"),
    "text in an INTEGER column": ("UPDATE results SET steps_95 = 'x' WHERE key = 'r0';",
                                  "results.steps_95"),
    "NULL method": ("UPDATE results SET method = NULL WHERE key = 'r0';", "results.method"),
    "markdown method": (f"UPDATE results SET method = '{PIXEL}' WHERE key = 'r0';",
                        "results.method"),
    "negative seed": ("UPDATE results SET seed = -1 WHERE key = 'r0';", "results.seed"),
    "text seed": ("UPDATE results SET seed = 'one' WHERE key = 'r0';", "results.seed"),
    "NULL key": ("UPDATE results SET key = NULL WHERE key = 'r0';", "results.key"),
    "mixed types in an axis": ("UPDATE results SET k = 'three' WHERE key = 'r0';", "mixes"),
    "NULL in an axis": ("UPDATE results SET k = NULL WHERE key = 'r0';", "k"),
    "axis value out of range": ("UPDATE results SET k = 0;", "k=0"),
    "fractional integer axis": ("UPDATE results SET k = 3.5;", "k=3.5"),
    "text in curves' step": ("UPDATE curves SET step = 'x' WHERE step = 1;", "curves.step"),
    "blob in a curve": ("UPDATE curves SET test_acc = x'00' WHERE step = 1;",
                        "curves.test_acc"),
    "a value above the size bound": (
        f"UPDATE results SET config = hex(zeroblob({MAX_VALUE_BYTES // 2 + 16})) "
        "WHERE key = 'r0';", "longer than 4 MB"),
}


def run_sweep_cli(args: list[str], capsys) -> tuple[int, str, str]:
    """`python -m engine sweep --quiet ...` in-process: (code, stdout, stderr)."""
    try:
        code = main(["sweep", "--quiet", *args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(text) -> str:
    text = str(text)
    lines = text.strip("\n").split("\n")
    assert len(lines) == 1 and len(lines[0]) <= MAX_LINE, text[:2000]
    assert lines[0].isprintable() and "Traceback" not in text, ascii(text[:300])
    return lines[0]


def test_at_least_forty_crafted_stores():
    assert len(CASES) >= 40


@pytest.mark.parametrize("sql, why", CASES.values(), ids=CASES.keys())
def test_crafted_store_is_refused_on_open_in_one_line(sql, why, tmp_path, capsys):
    path = crafted(tmp_path / "s.sqlite", sql)
    data = path.read_bytes()
    t0 = time.perf_counter()
    with pytest.raises(StoreError) as file_err:
        load(path)
    assert why in one_line(file_err.value) and "store=" in str(file_err.value), file_err.value
    with pytest.raises(StoreError) as upload_err:
        load(data)
    line = one_line(upload_err.value)
    assert line.startswith("store='upload'") and why in line, line  # never the bytes
    code, out, err = run_sweep_cli(["--grid", "k=1,3", "--out", str(path)], capsys)
    assert code == 2 and out == "" and why in one_line(err), err
    assert time.perf_counter() - t0 < 10
    assert path.read_bytes() == data  # never written to


HOSTILE = """
import resource, sys, time
from engine.sweep import load
t0 = time.perf_counter()
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    load(sys.argv[1] if sys.argv[2] == "file" else open(sys.argv[1], "rb").read())
    print("opened")
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0][:200])
print(time.perf_counter() - t0, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) >> 10)
"""


@pytest.mark.parametrize("how", ["file", "upload"])
def test_a_generated_gigabyte_column_is_refused_in_bounded_time_and_memory(how, tmp_path):
    """Finding 2: 200 rows whose generated column is 1 GB each; main took minutes and GBs."""
    path = tmp_path / "gen.sqlite"
    genuine(path, rows=200)
    db = sqlite3.connect(path)
    db.execute(f"ALTER TABLE results ADD COLUMN big TEXT AS ({BIG})")
    db.commit()
    db.close()
    res = subprocess.run([sys.executable, "-c", HOSTILE, str(path), how], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    verdict, numbers = res.stdout.strip().splitlines()
    seconds, grown_mb = float(numbers.split()[0]), int(numbers.split()[1])
    assert verdict.startswith("StoreError") and "big" in verdict, res.stdout + res.stderr
    assert seconds < 2 and grown_mb < 100, (seconds, grown_mb)


def test_engine_sweep_out_on_a_generated_column_exits_2_fast(tmp_path):
    path = tmp_path / "gen.sqlite"
    crafted(path, f"ALTER TABLE results ADD COLUMN big TEXT AS ({BIG});")
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "engine", "sweep", "--grid", "k=1,3", "--out",
                          str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "big" in one_line(res.stderr), res.stderr
    assert time.perf_counter() - t0 < 30


def test_a_genuine_store_in_wal_mode_opens_from_its_bytes_and_its_file(tmp_path):
    """Finding 12: the upload of a WAL-mode store said 'unable to open database file'."""
    path = genuine(tmp_path / "wal.sqlite", close=False)  # the writer still holds it
    data = path.read_bytes()
    assert data[18:20] == b"\x02\x02"  # the header says WAL
    meta, axes, rows = load(data)
    assert axes == ["k"] and len(rows) == 4 and {r["k"] for r in rows} == {1, 3}
    assert len(load(path)[2]) == 4


def test_a_without_rowid_upload_is_named_upload_not_its_bytes():
    """Finding 12: the error showed the upload's raw bytes as its name."""
    db = sqlite3.connect(":memory:")
    db.executescript(CASES["WITHOUT ROWID results"][0].replace("DROP TABLE results; ", "") +
                     "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT); CREATE TABLE "
                     "curves (key TEXT, step INTEGER, train_acc REAL, test_acc REAL, "
                     "train_loss REAL, test_loss REAL, cos_max REAL, PRIMARY KEY (key, step));")
    with pytest.raises(StoreError) as err:
        load(db.serialize())
    line = one_line(err.value)
    assert line.startswith("store='upload'") and "SQLite format" not in line, line


def test_the_stored_sweeps_of_the_repository_still_open():
    paths = sorted((ROOT / "docs" / "results").glob("sweep-*.sqlite"))
    assert len(paths) >= 4
    for path in paths:
        _, axes, rows = load(path)
        assert axes and len(rows) > 10, path
        assert len(load(path.read_bytes())[2]) == len(rows)


# ------------------------------------------------------------------ the Sweep page

def test_a_cell_that_cannot_open_says_why_in_one_line():
    """Finding 4: every stored value is allowed, but together they break a relation."""
    from ui.sweep_data import cell_line

    good = cell_line({"preset": "quick-parity", "fixed": {"T": "6"}}, {"k": 3}, ("network",))
    assert "[Open in Explore](/?" in good and "[Open in Compare](/compare?" in good
    bad = cell_line({"preset": "quick-parity", "fixed": {}}, {"k": 4}, ("network",))
    assert "cannot open" in bad and "odd" in bad and "\n" not in bad, bad


@pytest.mark.parametrize("case", ["deeply nested axes", "spec a list", "text in a REAL column",
                                  "mixed types in an axis", "axes k, seed, k", "NULL method",
                                  "spec unknown preset"])
def test_the_page_names_a_crafted_store_in_one_warning(case, tmp_path):
    """Finding 4: these were Streamlit error boxes (or an error on clicking a cell)."""
    from streamlit.testing.v1 import AppTest

    from ui.state import STATE_KEY, AppState

    path = crafted(tmp_path / "s.sqlite", CASES[case][0])
    at = AppTest.from_file(str(ROOT / "pages" / "sweep.py"), default_timeout=120)
    state = AppState()
    state.sweep.sources["crafted"] = path
    at.session_state[STATE_KEY] = state
    at.session_state["sweep_pick"] = "crafted"
    at.run()
    assert not at.exception and not at.error, (at.exception, at.error)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and "cannot be opened" in warnings[0], warnings
    assert "\n" not in warnings[0] and len(warnings[0]) < 1000


def test_an_optional_setting_axis_may_hold_auto(tmp_path):
    """Correct behaviour kept: a cell list with eta=auto stores NULL on the eta axis."""
    store = Store(tmp_path / "eta.sqlite")
    store.prepare({"preset": "quick-parity"}, ["eta"], {"eta": 0.5}, "test")
    store.write([{"key": f"r{i}", "setting": {"eta": (None, 0.5)[i]}, "seed": 0,
                  "method": "network", "train_acc": 1.0, "test_acc": 0.9, "cos": 0.5,
                  "steps_95": 3, "steps_99": 4, "time_s": 0.1, "device": "cpu", "batched": 0,
                  "code_version": "x", "config": "{}", "curve": []} for i in range(2)])
    store.close()
    _, axes, rows = load(tmp_path / "eta.sqlite")
    assert axes == ["eta"] and sorted(map(str, (r["eta"] for r in rows))) == ["0.5", "None"]
