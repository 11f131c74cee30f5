"""The AZL world's benchmark (issue 24): the five methods of a preset in lockstep, timed.

    python -m bench.azl                       # azl-resnet, seed 0, one torch thread
    python -m bench.azl --preset azl-k15 --seed 1

Prints wall and CPU seconds in total and per method (each method's steps, probes included),
the steps produced per second (one step = one frame of the live view) and the load average,
and writes a JSON file to bench/results/. Target: all five methods ≤ 30 s on the 2-core CPU.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import time
from pathlib import Path

from bench.parts import machine, peak_rss_mb
from engine.compare import Comparison
from engine.presets import preset_config
from engine.scenarios._common import torch_threads
from engine.scenarios.azl.presets import DEFAULT

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_S = 30.0


def measure(preset: str, seed: int, threads: int) -> dict:
    """Train every method of the preset, timing each method's steps separately."""
    t0, c0 = time.perf_counter(), time.process_time()
    comp = Comparison(preset_config(preset).replace(seed=seed), device="cpu")  # all five
    setup = time.perf_counter() - t0
    per = dict.fromkeys(comp.runs, 0.0)
    with torch_threads(threads):
        while not comp.done:
            for name, run in comp.runs.items():
                start = time.perf_counter()
                run.step()
                per[name] += time.perf_counter() - start
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"preset": preset, "seed": seed, "threads": threads, "T": comp.cfg.T,
            "setup_s": setup, "total_s": total, "cpu_s": cpu, "per_method_s": per,
            "steps_per_s": comp.cfg.T / total, "peak_rss_mb": peak_rss_mb(),
            "test_err": {m: s["test_err"] for m, s in comp.summary().items()},
            "history_mb": sum(r.history_bytes() for r in comp.runs.values()) / 2**20}


def main() -> None:
    """Run, print the table, write the JSON."""
    ap = argparse.ArgumentParser(prog="python -m bench.azl", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default=DEFAULT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    load_start = os.getloadavg()
    res = measure(args.preset, args.seed, args.threads)
    res.update(load_start=load_start, load_end=os.getloadavg(), machine=machine("cpu"),
               targets={f"five methods <= {TARGET_S:g} s": res["total_s"] <= TARGET_S,
                        f"five methods <= {TARGET_S:g} CPU s": res["cpu_s"] <= TARGET_S})
    print(f"AZL benchmark — {res['preset']} seed {res['seed']}, T={res['T']}, "
          f"{res['threads']} torch thread(s), {res['machine']['cpu']}")
    print(f"load average at start / end: {res['load_start']} / {res['load_end']}")
    print(f"five methods: {res['total_s']:.1f} s wall / {res['cpu_s']:.1f} s CPU "
          f"(setup {res['setup_s']:.2f} s); {res['steps_per_s']:.0f} steps/s")
    print("per method (wall s): " + ", ".join(f"{k} {v:.1f}"
                                               for k, v in res["per_method_s"].items()))
    print("test error: " + ", ".join(f"{k} {v:.3f}" for k, v in res["test_err"].items()))
    print(f"history {res['history_mb']:.1f} MB, peak RSS {res['peak_rss_mb']:.0f} MB")
    print("targets: " + "; ".join(f"{k}: {'yes' if ok else 'NO'}"
                                  for k, ok in res["targets"].items()))
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H%M")
    path = Path(args.out) / f"azl-{res['preset']}-{stamp}.json"
    path.write_text(json.dumps(res, indent=1))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
