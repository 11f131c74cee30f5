"""Re-run every Table preset and store our numbers: docs/results/<preset>.txt (the CLI's table)
and docs/results/tables.json (train %, test %, cos per method; key <preset>, and
paper-parity-seeds5 for Table 1 averaged over 5 seeds), which the Reproduce page shows beside
the paper's.

    .venv/bin/python -m scripts.table_results              # all 8 presets + --seeds 5, ~4 min
    .venv/bin/python -m scripts.table_results --only paper-interval
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from engine.presets import PRESETS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results"
TABLES = OUT / "tables.json"
FIELDS = ("train_acc", "test_acc", "cos")
# what a stored result keeps of a converged limit (engine/limits; the CLI computes them)
LIMIT_KEYS = ("test_acc", "test_err", "test_mse_ratio", "certificate", "certificate_kind",
              "converged", "ridge", "tie_break", "form", "seconds", "refused", "limit_kind",
              "separable", "path")


def limit_entry(summary: dict) -> dict | None:
    """The stored part of a method's converged limit (methods.<m>.limit), or None."""
    lim = summary.get("limit")
    return None if not lim else {k: lim[k] for k in LIMIT_KEYS if lim.get(k) is not None}


def table_presets() -> list[str]:
    """Presets that carry one of the paper's tables."""
    return [name for name, p in PRESETS.items() if p.paper]


def run_cli(args: list[str], txt: Path, commit: str) -> tuple[str, dict]:
    """`python -m engine run ARGS` (one torch thread): its printed table into txt under the
    command's line; (the command, the report)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        res = subprocess.run([sys.executable, "-m", "engine", "run", *args, "--quiet", "--out",
                              str(report)], cwd=ROOT, capture_output=True, text=True, check=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1"})
        data = json.loads(report.read_text(encoding="utf-8"))
    command = shlex.join(["python", "-m", "engine", "run", *args])
    body = "\n".join(line for line in res.stdout.splitlines() if not line.startswith("report "))
    txt.write_text(f"# .venv/bin/{command}   ({datetime.date.today().isoformat()}, commit "
                   f"{commit}, 1 torch thread)\n{body}\n", encoding="utf-8")
    return command, data


def run_preset(name: str, seeds: int, commit: str) -> dict:
    """Run one preset through the CLI; write its .txt and return its tables.json entry."""
    args = ["--preset", name] + (["--seeds", str(seeds)] if seeds > 1 else []) + ["--device", "cpu"]
    stem = name if seeds == 1 else f"{name}-seeds{seeds}"
    command, data = run_cli(args, OUT / f"{stem}.txt", commit)
    methods = {m: {**{f: v.get(f) for f in FIELDS},
                   **({"limit": limit_entry(v)} if limit_entry(v) else {})}
               for m, v in data["methods"].items()}
    return {"command": command, "commit": commit, "date": datetime.date.today().isoformat(),
            "seeds": seeds, "methods": methods}


def main(argv=None) -> int:
    """Run the presets and merge their entries into tables.json."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--only", nargs="*", help="these presets only (default: every Table preset)")
    args = p.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    tables = json.loads(TABLES.read_text(encoding="utf-8")) if TABLES.exists() else {}
    runs = [(name, 1) for name in args.only or table_presets()]
    if not args.only:
        runs.append(("paper-parity", 5))  # the paper's numbers are means of 5 runs
    for name, seeds in runs:
        key = name if seeds == 1 else f"{name}-seeds{seeds}"
        tables[key] = run_preset(name, seeds, commit)
        print(f"{key}: {json.dumps(tables[key]['methods'])}")
    TABLES.write_text(json.dumps(tables, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
