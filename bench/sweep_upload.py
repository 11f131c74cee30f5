"""`python -m bench.sweep_upload`: the Sweeps page with a large uploaded store, under AppTest.

Builds a store of ROWS rows (a real tiny sweep, its results table then filled with a 20 × 20
grid × 96 seeds × 2 methods of made-up scores: 76 800 rows, about 9 MB), opens the page with it
as this session's upload, and times the first render and two widget changes (the summary
and the heat map's method). `--tree DIR` runs it against another checkout (before/after).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 4, "batch": 100}


def big_store(folder: Path) -> bytes:
    """A real store whose results table holds 76 800 rows (20 k × 20 p_o × 96 seeds × 2)."""
    from engine.sweep import SweepSpec, run_sweep

    spec = SweepSpec("quick-parity", TINY, (("k", (1, 3)), ("p_o", (0.2, 0.4))), (), 1, 0,
                     ("network", "ntk"))
    path = run_sweep(spec, str(folder / "big"))["path"]
    db = sqlite3.connect(path)
    cols = [r[1] for r in db.execute("PRAGMA table_info(results)")]
    tmpl = dict(zip(cols, db.execute("SELECT * FROM results LIMIT 1").fetchone(), strict=True))
    rng, rows = random.Random(0), []
    for k in range(1, 40, 2):
        for p in range(20):
            for seed in range(96):
                for m in ("network", "ntk"):
                    r = {**tmpl, "config": "{}", "key": f"{k}-{p}.{seed}{m}", "k": k,
                         "p_o": round(0.05 + 0.02 * p, 3), "seed": seed, "method": m,
                         "test_acc": rng.random(), "train_acc": rng.random()}
                    rows.append(tuple(r[c] for c in cols))
    db.execute("DELETE FROM curves")
    db.execute("DELETE FROM results")
    db.executemany(f"INSERT INTO results VALUES ({','.join('?' * len(cols))})", rows)
    db.commit()
    db.execute("VACUUM")
    db.close()
    return Path(path).read_bytes()


def one() -> dict:
    """First render and two widget changes of the page with the big store uploaded (s)."""
    from streamlit.testing.v1 import AppTest

    from ui.state import STATE_KEY, AppState

    with tempfile.TemporaryDirectory() as tmp:
        data = big_store(Path(tmp))
    at = AppTest.from_file(str(Path.cwd() / "pages" / "sweep.py"), default_timeout=600)
    state = AppState()
    state.sweep.sources["upload: big.sqlite"] = data
    at.session_state[STATE_KEY] = state
    at.session_state["sweep_pick"] = "upload: big.sqlite"
    out = {"store_mb": len(data) / 2**20}
    t0 = time.perf_counter()
    at.run()
    out["first_s"] = time.perf_counter() - t0
    assert not at.exception, at.exception
    labels = [s.label for s in at.selectbox]
    t0 = time.perf_counter()
    at.selectbox[labels.index("summary")].select("train_acc").run()
    out["summary_change_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    at.selectbox[labels.index("method")].select("Network − NTK").run()
    out["method_change_s"] = time.perf_counter() - t0
    assert not at.exception, at.exception
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure")
    args = ap.parse_args(argv)
    tree = args.tree.resolve()
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{tree}{os.pathsep}{ROOT / 'bench'}"}
    code = "import json; from sweep_upload import one; print(json.dumps(one()))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=3600)
    if proc.returncode:
        sys.exit(proc.stderr[-2000:])
    print(json.dumps(json.loads(proc.stdout.strip().splitlines()[-1]), indent=1))


if __name__ == "__main__":
    main()
