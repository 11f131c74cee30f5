"""`python -m bench.guard`: the memory guard's estimate against the measured peak of real runs.

Each setting runs in a fresh process (`python -m bench.guard --one JSON`) that imports
everything, warms the kernels up on a tiny run, then trains the setting as the CLI and the
dashboard do (Compare: the methods side by side, the summary with classifier=logreg; Explore:
one network with the MDS map every step). The measured peak is the growth of VmHWM (from
/proc/self/status, as bench/parts.py; not ru_maxrss, which Linux carries across exec) over the
resident size before the run. The estimate passes when it is at least 0.9 × the measured peak.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIX = "network,ntk,rf,one_step,two_step,network_no_structure"
EIGHT = SIX + ",ntk_no_structure,rf_no_structure"
RATIO_MIN = 0.9

# (label, settings, methods, embed): spread over the limits; each finishes in seconds on 1 core
SETTINGS = [
    ("paper default, six methods", {"T": 8}, SIX, False),
    ("n = n_test = 200 000", {"n": 200000, "n_test": 200000, "m": 50, "T": 3}, "network", False),
    ("n = n_test = 200 000, six methods", {"n": 200000, "n_test": 200000, "m": 50, "T": 3},
     SIX, False),
    ("d = D = 3072", {"d": 3072, "D": 3072, "n": 20000, "n_test": 5000, "m": 100, "T": 3},
     "network", False),
    ("m = 2000, six methods", {"n": 20000, "n_test": 5000, "m": 2000, "T": 3}, SIX, False),
    ("T = 2500, Explore map", {"n": 2000, "n_test": 1000, "m": 100, "T": 2500, "batch": 500},
     "network", True),
    ("m = 2000, Explore map", {"n": 5000, "n_test": 2000, "m": 2000, "T": 4}, "network", True),
    ("logreg, n = n_test = 60 000, m = 500",
     {"classifier": "logreg", "n": 60000, "n_test": 60000, "m": 500, "T": 2}, "rf,two_step",
     False),
    ("eight methods, noise (input space)", {"n": 20000, "n_test": 5000, "noise": 0.1, "T": 4},
     EIGHT, False),
    ("scenario mog", {"scenario": "mog", "d": 500, "n": 50000, "T": 4}, SIX, False),
    # real data trains with the standard schedule, as its presets do (App. E.4); the paper
    # schedule at D = k = 1 diverges at step 2 there (η⁽¹⁾ ≈ 1e-19 from the data's γ)
    ("scenario real (digits)", {"scenario": "real", "real": "digits", "d": 64, "D": 1, "k": 1,
                                "schedule": "standard", "n": 1000, "n_test": 300, "batch": 200,
                                "T": 4}, SIX, False),
    ("scenario hidden_repr", {"scenario": "hidden_repr", "n": 50000, "T": 4}, SIX, False),
    ("scenario dm_parity", {"scenario": "dm_parity", "d": 300, "D": 300, "n": 50000, "T": 4},
     SIX, False),
    ("scenario fcb", {"scenario": "fcb", "n": 10000, "T": 3}, SIX, False),
    ("scenario teacher_student", {"scenario": "teacher_student", "d": 64, "D": 1, "k": 1,
                                  "schedule": "standard", "n": 1000, "n_test": 500, "batch": 200,
                                  "T": 4}, SIX, False),
]

# (label, settings, methods, load): what runs at once (engine.guard.Load) — seeds kept while the
# later ones train (run --seeds, Compare), seeds batched into one computation (sweep
# --batch-seeds) and sweep worker processes side by side (sweep --workers)
BATCHABLE = "network,rf,one_step,two_step"
MID = {"n": 20000, "n_test": 5000, "m": 200, "T": 4}
LOADS = [
    ("paper default, six methods, 3 seeds kept", {"T": 8}, SIX, {"kept_seeds": 3}),
    ("n = 100 000, m = 100, 5 seeds kept", {"n": 100000, "n_test": 20000, "m": 100, "T": 3},
     "network,ntk,rf", {"kept_seeds": 5}),
    ("2 batched seeds", MID, BATCHABLE, {"batched": 2}),
    ("10 batched seeds", MID, BATCHABLE, {"batched": 10}),
    ("20 batched seeds", {**MID, "n": 10000}, BATCHABLE, {"batched": 20}),
    ("2 workers", MID, "network,ntk", {"workers": 2}),
    ("3 workers", MID, "network,ntk", {"workers": 3}),
]


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def one(spec: dict) -> dict:
    """Train one setting in this process; its estimate, measured peak growth and times."""
    import torch

    from engine import guard
    from engine.compare import Comparison
    from engine.config import Config, from_dict
    from engine.run import Run
    from engine.worlds import build_world

    torch.set_num_threads(1)
    import sklearn.linear_model  # noqa: F401  (imported by the server already)

    from engine.scenarios.real import _digits

    # what a server process loads once, not per run: the bundled digits (sklearn.datasets,
    # ≈140 MB) and torch's optimisers (the teacher network, ≈75 MB)
    _digits()
    torch.optim.Adam([torch.zeros(1, requires_grad=True)]).step()
    tiny = Config(d=20, D=10, k=3, n=200, n_test=100, m=4, T=3, batch=50, classifier="logreg")
    Comparison(tiny, ("network", "rf", "ntk")).run_all()
    list(Run(build_world(tiny, device="cpu"), embed=True))
    cfg = from_dict(spec["settings"], Config())
    methods = tuple(spec["methods"].split(","))
    est = guard.estimate(cfg, methods, embed=spec["embed"])
    if spec.get("load"):
        return one_load(cfg, methods, est, guard.Load(**spec["load"]))
    base, cpu, wall = _status_mb("VmRSS"), time.process_time(), time.perf_counter()
    if spec["embed"]:
        for _ in Run(build_world(cfg, device="cpu"), embed=True):
            pass
    else:
        comp = Comparison(cfg, methods, device="cpu")
        comp.run_all()
        comp.summary()
    return {"estimate_mb": est.memory_mb, "measured_mb": _status_mb("VmHWM") - base,
            "dominant": est.dominant, "est_s": est.seconds, "cpu_s": time.process_time() - cpu,
            "wall_s": time.perf_counter() - wall}


def one_load(cfg, methods: tuple, est, load) -> dict:
    """Several runs at once, as the CLI and sweeps run them; the growth of this process plus
    the peak of each worker process (sampled every 20 ms: VmHWM, its own high-water mark)."""
    import tempfile

    from engine.reads import read_diff
    from engine.seeds import SeedSeries
    from engine.sweep import SweepSpec, run_sweep

    base, cpu, wall = _status_mb("VmRSS"), time.process_time(), time.perf_counter()
    children = ChildPeaks()
    if load.kept_seeds > 1:
        SeedSeries(cfg, methods, load.kept_seeds, "cpu").run()
    else:
        seeds = load.batched if load.batched > 1 else load.workers
        fixed = {k: v for k, v in read_diff(cfg).items() if k not in ("k", "seed")}
        spec = SweepSpec("paper-parity", fixed, (("k", (cfg.k,)),), (), seeds, cfg.seed, methods)
        with tempfile.TemporaryDirectory() as tmp, children:
            run_sweep(spec, f"{tmp}/s", batch=load.batched > 1, workers=load.workers,
                      limits=False)
    return {"estimate_mb": load.memory_mb(est), "measured_mb": _status_mb("VmHWM") - base
            + children.total_mb(), "dominant": est.dominant, "est_s": est.seconds,
            "cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall}


class ChildPeaks:
    """While in its `with` block, the highest VmHWM seen of every child process."""

    def __init__(self):
        import threading

        self.peaks: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def _watch(self) -> None:
        me = str(os.getpid())
        while not self.stop.wait(0.02):
            for status in Path("/proc").glob("[0-9]*/status"):
                try:
                    text = status.read_text()
                except OSError:  # the process ended meanwhile
                    continue
                fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
                if fields.get("PPid", "").strip() == me and "VmHWM" in fields:
                    pid = int(status.parent.name)
                    mb = int(fields["VmHWM"].split()[0]) / 1024.0
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), mb)

    def total_mb(self) -> float:
        """The sum of the children's peaks (each child's own high-water mark)."""
        return sum(self.peaks.values())


def measure(label: str, settings: dict, methods: str, embed: bool, load: dict | None = None
            ) -> dict:
    """One setting in a fresh process."""
    spec = json.dumps({"settings": settings, "methods": methods, "embed": embed, "load": load})
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, "-m", "bench.guard", "--one", spec], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise SystemExit(f"{label}: the run failed:\n{res.stderr[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out.update(label=label, ratio=out["estimate_mb"] / max(out["measured_mb"], 1e-9))
    return out


def table(rows: list[dict]) -> str:
    """The README's Markdown table."""
    lines = ["| setting | estimate (MB) | measured peak (MB) | estimate / peak | mostly |",
             "|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {r['estimate_mb']:.0f} | {r['measured_mb']:.0f} | "
                     f"{r['ratio']:.2f} | {r['dominant']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run every setting (or one, with --one) and print estimate vs measured peak."""
    p = argparse.ArgumentParser(prog="python -m bench.guard", description=__doc__)
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--only", help="run only settings whose label contains this text")
    p.add_argument("--json", help="also write the rows to this JSON file")
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one(json.loads(args.one))))
        return 0
    rows = []
    every = [(*row, None) for row in SETTINGS] + [(lb, st, m, False, ld) for lb, st, m, ld in LOADS]
    for label, settings, methods, embed, load in every:
        if args.only and args.only not in label:
            continue
        rows.append(measure(label, settings, methods, embed, load))
        r = rows[-1]
        print(f"{label:<40} estimate {r['estimate_mb']:7.0f} MB  measured {r['measured_mb']:7.0f}"
              f" MB  ratio {r['ratio']:.2f}  ({r['wall_s']:.1f} s)", flush=True)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    bad = [r["label"] for r in rows if r["ratio"] < RATIO_MIN]
    if bad:
        print(f"estimate below {RATIO_MIN} × the measured peak: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
