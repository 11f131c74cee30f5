"""The AZL world's preset table over seeds: docs/results/azl.json and docs/results/azl.txt.

    OMP_NUM_THREADS=1 .venv/bin/python -m scripts.azl_results       # 4 presets × seeds 0-2
    OMP_NUM_THREADS=1 .venv/bin/python -m scripts.azl_results --presets azl-resnet --seeds 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from engine.compare import Comparison
from engine.limits import limit_of
from engine.presets import preset_config
from engine.procedures import RECORDS
from engine.report import clean
from engine.scenarios.azl.convert import from_engine
from engine.scenarios.azl.presets import PRESETS

LABELS = RECORDS["resnet3"].labels()

OUT = Path(__file__).resolve().parent.parent / "docs" / "results"
KEYS = ("test_err", "c_F", "c_G")
LIMIT_KEYS = ("test_err", "certificate", "converged", "seconds")


def first_step(history, key: str, level: float):
    """The first step whose `key` reaches `level` (None if none does)."""
    return next((s.step for s in history if s.extra[key] >= level), None)


def one_seed(preset, seed: int) -> dict:
    """Every method of a preset on one seed: summaries, resnet3's time course, wall time."""
    comp = Comparison(preset_config(preset).replace(seed=seed), device="cpu")  # all five
    t0, c0 = time.perf_counter(), time.process_time()
    comp.run_all()
    out = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
           "methods": comp.summary()}
    for name, run in comp.runs.items():
        out["methods"][name].update(first_cF_0_9=first_step(run.history, "c_F", 0.9),
                                    first_cG_0_1=first_step(run.history, "c_G", 0.1))
        lim = limit_of(run)  # the NTK's and last layer's converged limits (None: the others)
        if lim is not None:
            out["methods"][name]["limit"] = {k: lim.get(k) for k in LIMIT_KEYS}
    return out


def aggregate(per_seed: list[dict]) -> dict:
    """Mean and population std over seeds of every method's test_err, c_F, c_G."""
    out = {}
    for name in per_seed[0]["methods"]:
        vals = {k: [s["methods"][name][k] for s in per_seed] for k in KEYS}
        out[name] = {k: statistics.fmean(v) for k, v in vals.items()}
        out[name].update({k + "_std": statistics.pstdev(v) for k, v in vals.items()})
        out[name].update({k + "_per_seed": v for k, v in vals.items()})
        lims = [s["methods"][name].get("limit") for s in per_seed]
        if all(lims) and all(lim.get("test_err") is not None for lim in lims):
            out[name]["limit"] = {"test_err": statistics.fmean(lim["test_err"] for lim in lims),
                                  "certificate": max(lim["certificate"] for lim in lims),
                                  "converged": all(lim["converged"] for lim in lims),
                                  "per_seed": [lim["test_err"] for lim in lims]}
    return out


def text_table(results: dict) -> str:
    """One block per preset: method rows, test error / c_F / c_G as mean ± std."""
    lines = []
    for name, entry in results["presets"].items():
        lines.append(f"{name} (kα² = {entry['threshold']:.2f}; seeds {entry['seeds']})")
        lines.append(f"  {'method':<18}{'test error':>18}{'c_F':>18}{'c_G':>18}")
        for m, row in entry["methods"].items():
            cells = "".join(f"{row[k]:>11.3f} ± {row[k + '_std']:.3f}" for k in KEYS)
            lines.append(f"  {LABELS[m]:<18}{cells}")
        lines.append("  wall s per seed (all methods): "
                     + ", ".join(f"{s['wall_s']:.1f}" for s in entry["per_seed"]))
    return "\n".join(lines) + "\n"


def main() -> None:
    """Run the presets over the seeds and write both files."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    results = {"command": "OMP_NUM_THREADS=1 .venv/bin/python scripts/azl_results.py",
               "machine": platform.processor() or platform.machine(),
               "load_start": os.getloadavg(), "presets": {}}
    for name in args.presets.split(","):
        per_seed = [one_seed(name, seed) for seed in range(args.seeds)]
        cfg = from_engine(preset_config(name))
        results["presets"][name] = {"settings": cfg.to_dict(), "threshold": cfg.threshold,
                                    "seeds": list(range(args.seeds)),
                                    "methods": aggregate(per_seed), "per_seed": per_seed}
        print(f"{name} done", flush=True)
    results["load_end"] = os.getloadavg()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "azl.json").write_text(json.dumps(clean(results), indent=1))
    (OUT / "azl.txt").write_text(text_table(results))
    print(text_table(results))


if __name__ == "__main__":
    main()
