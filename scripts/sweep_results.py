"""Run a preset sweep into a fresh docs/results/sweep-NAME.sqlite and write its printed table,
docs/results/sweep-NAME.txt (the claim, the command, the code, the cost, mean (std) over seeds
of the summaries the sweep holds), then its picture (ui.sweep_pictures). One command per sweep:

    OMP_NUM_THREADS=1 .venv/bin/python -m scripts.sweep_results gfl-xor-gap
    .venv/bin/python -m scripts.sweep_results gfl-xor-gap --table-only   # the stored rows only
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from engine.sweep import load
from engine.sweep.integrity import remove_store
from engine.sweep.presets import SWEEP_PRESETS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results"
# the summaries a table shows where the sweep holds them, and how they are printed
SHOWN = {"test_acc": ("test %", 100), "train_acc": ("train %", 100), "share_1": ("share_1", 1),
         "coverage_1": ("coverage_1", 1), "test_err": ("test_err", 1), "c_F": ("c_F", 1),
         "c_G": ("c_G", 1), "test_mse_ratio": ("MSE/Var", 1)}
HEADLINE = {"gfl-parity-threshold": "share_1", "azl-error-vs-n": "test_err"}  # else test_acc


def command(name: str) -> str:
    return f".venv/bin/python -m engine sweep --sweep-preset {name} --out docs/results/sweep-{name}"


def run(name: str, resume: bool) -> float:
    """Run the sweep into a fresh store (resume: keep the rows stored); its wall seconds. A row's
    key holds the code version, so after an engine change a kept store would hold both
    versions' rows side by side, and the table and picture would average them."""
    if not resume:
        remove_store(OUT / f"sweep-{name}.sqlite")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine", "sweep", "--sweep-preset", name, "--out",
                    str(OUT / f"sweep-{name}")], cwd=ROOT, check=True,
                   env={**os.environ, "OMP_NUM_THREADS": "1"})
    return time.perf_counter() - t0


def table(df: pd.DataFrame, axes: list[str], headline: str) -> str:
    """Mean over seeds per setting and method of every summary the rows hold, the headline's
    std over seeds beside it."""
    order = [headline, *(k for k in SHOWN if k != headline)]
    shown = {k: SHOWN[k] for k in order if k in df and df[k].notna().any()}
    scaled = df.assign(**{k: df[k].astype(float) * f for k, (_, f) in shown.items()})
    g = scaled.groupby([*axes, "method"], sort=True)
    out = pd.DataFrame({label: g[k].mean() for k, (label, _) in shown.items()})
    first, (label, _) = next(iter(shown.items()))
    out.insert(1, label.split()[0] + " std", g[first].std())
    out["seeds"] = g["seed"].nunique()
    return out.round(3).to_string()


def write(name: str, wall: float | None) -> Path:
    """docs/results/sweep-NAME.txt from the stored rows."""
    preset = SWEEP_PRESETS[name]
    meta, axes, rows = load(OUT / f"sweep-{name}.sqlite")
    df = pd.DataFrame(rows)
    cost = f"sum of per-method times {df.time_s.sum():.0f} s"
    if wall is not None:
        cost += f", wall {wall:.0f} s (--workers 1, load average {os.getloadavg()[0]:.1f})"
    lines = [f"Sweep preset {name} ({preset.claim})", f"command: {command(name)}",
             f"spec: {meta.get('spec')}",
             f"code: {df.code_version.iloc[0]} (git {meta.get('git')}), device "
             f"{df.device.iloc[0]}, {len(df)} rows, {cost}",
             f"expected: {preset.expected}", "",
             "mean over seeds (the first summary's std over seeds beside it); test/train in %",
             table(df, axes, HEADLINE.get(name, "test_acc"))]
    path = OUT / f"sweep-{name}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scripts.sweep_results", description=__doc__)
    p.add_argument("names", nargs="+", help="one of " + ", ".join(SWEEP_PRESETS))
    p.add_argument("--table-only", action="store_true", help="rewrite the table, no training")
    p.add_argument("--resume", action="store_true",
                   help="keep the stored rows (a sweep cut off midway; same engine only)")
    args = p.parse_args(argv)
    bad = [n for n in args.names if n not in SWEEP_PRESETS]
    if bad:
        print(f"error: {bad[0]} is not a sweep preset: one of {', '.join(SWEEP_PRESETS)}",
              file=sys.stderr)
        return 2
    for name in args.names:
        wall = None if args.table_only else run(name, args.resume)
        print(write(name, wall).relative_to(ROOT))
        subprocess.run([sys.executable, "-m", "ui.sweep_pictures", name], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
