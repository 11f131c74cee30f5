"""Converged limits against the run itself (issue 31): per preset, the seconds its methods take
to train T steps and the seconds engine/limits takes for every fixed-feature method's limit.

    python -m bench.limits                              # the presets in DEFAULT, seed 0
    python -m bench.limits --preset gfl-xor --preset paper-parity --set n=10000

Prints per preset the run's seconds, each limit's seconds, certificate and T-step vs limit value,
and the ratio limits / run; writes a JSON file to bench/results/. Timings are wall seconds on
whatever load the machine has (the load average is printed beside them)."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import time
from pathlib import Path

from bench.parts import machine
from engine.compare import Comparison
from engine.limits import limit_of
from engine.limits.show import METRICS
from engine.presets import preset_config
from engine.procedures import procedure_of
from engine.scenarios._common import torch_threads

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT = ("gfl-xor", "gfl-linear", "quick-parity", "azl-resnet", "paper-parity")


def measure(preset: str, seed: int, sets: dict) -> dict:
    """Train the procedure's default methods, then solve each fixed-feature limit, timed."""
    cfg = preset_config(preset).replace(seed=seed)
    if sets:
        cfg = cfg.replace(**{k: type(getattr(cfg, k))(v) for k, v in sets.items()})
    t0 = time.perf_counter()
    comp = Comparison(cfg, procedure_of(cfg).defaults, device="cpu")
    comp.run_all()
    run_s = time.perf_counter() - t0
    out = {"preset": preset, "seed": seed, "sets": sets, "run_s": run_s, "methods": {}}
    for method, run in comp.runs.items():
        lim = limit_of(run)
        if lim is None:
            continue
        summary = run.summary()
        key = next((k for k, _ in METRICS if lim.get(k) is not None), "test_acc")
        out["methods"][method] = {"at_T": summary.get(key), "limit": lim.get(key),
                                  "metric": key, **{k: lim.get(k) for k in (
                                      "seconds", "certificate", "iterations", "converged",
                                      "form", "solver", "refused", "limit_kind")}}
    net = comp.runs.get("network")
    if net is not None:
        out["network"] = net.summary().get(next(iter(out["methods"].values()), {})
                                           .get("metric", "test_acc"))
    out["limits_s"] = sum(m["seconds"] or 0.0 for m in out["methods"].values())
    return out


def report(row: dict) -> str:
    """Lines for one preset."""
    lines = [f"{row['preset']}: run {row['run_s']:.1f} s, limits {row['limits_s']:.1f} s "
             f"(ratio {row['limits_s'] / max(row['run_s'], 1e-9):.2f}); network "
             f"{row.get('network')}"]
    for m, e in row["methods"].items():
        if e.get("refused"):
            lines.append(f"  {m:<10} refused: {e['refused']}")
            continue
        lines.append(f"  {m:<10} at T {e['at_T']:.4f}  limit {e['limit']:.4f}  "
                     f"{e['seconds']:.1f} s  certificate {e['certificate']:.1e} "
                     f"({e['iterations']} it., {e['form']}; {e.get('limit_kind')})"
                     f"{'' if e['converged'] else ' NOT'}")
    return "\n".join(lines)


def main(argv=None) -> None:
    """Parse the options, measure each preset, print and save."""
    ap = argparse.ArgumentParser(prog="python -m bench.limits", description=__doc__)
    ap.add_argument("--preset", action="append", help="a preset (repeatable; default: DEFAULT)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    sets = dict(pair.split("=", 1) for pair in args.set)
    rows = []
    with torch_threads(args.threads):
        for preset in args.preset or DEFAULT:
            rows.append(measure(preset, args.seed, sets))
            print(report(rows[-1]), flush=True)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)")
    RESULTS.mkdir(exist_ok=True)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"limits-{stamp}.json"
    path.write_text(json.dumps({"rows": rows, "load": load, "machine": machine("cpu")}, indent=1,
                               default=str))
    print(f"written {path}")


if __name__ == "__main__":
    main()
