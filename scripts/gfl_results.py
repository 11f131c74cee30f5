"""Re-run every GFL preset (seed 0) and store our numbers: docs/results/<preset>.txt (the CLI's
table) and docs/results/gfl.json (per preset and method: test accuracy or test MSE / Var(y), the
coverage and relevant share at steps 0, 1 and T, the step-1 η⁽¹⁾ scale, wall time). The
dissertation's chapter 3 has no experiments: every number here is ours (docs/gfl.md).

    .venv/bin/python -m scripts.gfl_results                  # all six presets
    .venv/bin/python -m scripts.gfl_results --only gfl-xor
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
from pathlib import Path

from engine.presets import PRESETS
from scripts.table_results import limit_entry, run_cli

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results"
RESULTS = OUT / "gfl.json"
PROBES = ("coverage", "frac_aligned", "relevant_share", "nice_min")


def gfl_presets() -> list[str]:
    """The presets of the GFL worlds."""
    return [name for name in PRESETS if name.startswith("gfl-")]


def entry(report: dict, command: str, commit: str) -> dict:
    """One preset's numbers from its CLI report."""
    methods = {}
    for m, summary in report["methods"].items():
        rows = report["history"][m]
        steps = {str(r["step"]): {k: r.get(k) for k in PROBES} for r in (rows[0], rows[1],
                                                                           rows[-1])}
        methods[m] = {"test_acc": summary.get("test_acc"), "train_acc": summary.get("train_acc"),
                      "test_mse_ratio": summary.get("test_mse_ratio"), "probes": steps}
        if limit_entry(summary):  # the converged limit of a fixed-feature method
            methods[m]["limit"] = limit_entry(summary)
    return {"command": command, "commit": commit, "date": datetime.date.today().isoformat(),
            "seed": report["config"]["seed"], "seconds": round(report["timing"]["total_s"], 1),
            "limits_s": round(report["timing"].get("limits_s", 0.0), 1), "methods": methods}


def run_preset(name: str, commit: str) -> dict:
    """Run one preset through the CLI; write its .txt and return its gfl.json entry."""
    command, report = run_cli(["--preset", name, "--device", "cpu"], OUT / f"{name}.txt", commit)
    return entry(report, command, commit)


def cell(v: dict) -> str:
    """Test accuracy in %, or MSE / Var(y) for the regression world."""
    if v["test_mse_ratio"] is not None:
        return f"{v['test_mse_ratio']:.3f}"
    return f"{100 * v['test_acc']:.1f} %"


def limit_text(v: dict) -> str:
    """The converged limit in the same unit ('' for the network, 'refused' with no solve)."""
    lim = v.get("limit")
    if not lim:
        return ""
    if lim.get("refused"):
        return "refused"
    key = "test_mse_ratio" if v["test_mse_ratio"] is not None else "test_acc"
    return cell({"test_mse_ratio": lim.get(key) if key == "test_mse_ratio" else None,
                 "test_acc": lim.get("test_acc")})


def arrow(probes: dict, key: str) -> str:
    """'0.16 → 0.95 → 0.95': a probe at steps 0, 1 and T."""
    return " → ".join(f"{probes[step][key]:.2f}" for step in probes)


def markdown(results: dict) -> str:
    """docs/gfl.md's table: per preset and method, the final number and the step-0 → step-1
    coverage and relevant share."""
    lines = ["| preset | method | test acc. (MSE/Var) at T | converged limit | "
             "coverage 0 → 1 → T | relevant share 0 → 1 → T | time (limits) |",
             "|---|---|---|---|---|---|---|"]
    for name in [n for n in gfl_presets() if n in results]:
        e = results[name]
        for i, (m, v) in enumerate(e["methods"].items()):
            secs = f"{e['seconds']} s ({e.get('limits_s', 0)} s)" if i == 0 else ""
            lines.append(f"| {name if i == 0 else ''} | {m} | {cell(v)} | {limit_text(v)} | "
                         f"{arrow(v['probes'], 'coverage')} | "
                         f"{arrow(v['probes'], 'relevant_share')} | {secs} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run the presets and merge their entries into gfl.json (--markdown: print the table)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="*", help="these presets only (default: every GFL preset)")
    p.add_argument("--markdown", action="store_true", help="print docs/gfl.md's table only")
    args = p.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(RESULTS.read_text(encoding="utf-8"))))
        return 0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    for name in args.only or gfl_presets():
        results[name] = run_preset(name, commit)
        print(name, json.dumps({m: v["test_acc"] if v["test_mse_ratio"] is None
                                else v["test_mse_ratio"]
                                for m, v in results[name]["methods"].items()}), flush=True)
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
