"""Start-up figures (issue 37): `python -m bench.startup [--run PRESET]`.

Prints, each the median of --repeat fresh processes (wall and CPU seconds of the child):
- `import engine.cli`, and which of scikit-learn, scipy, Ray, pandas, torch it loaded (the
  parser needs no registry: none of them since issue 37's split into engine/cli_run.py);
- `import engine.cli_run`: the commands, with the registries and torch (what a run pays);
- `python -m engine run --help`, cold (no help text kept yet) and warm (engine/cli_help.py);
- a hub worker ready (bench/worker_start.py, the three starts taken in turn in each round):
  spawn (the old start: the worker imports torch and the engine), forkserver (forked from a
  forkserver the hub starts) and prestarted (the forkserver started first thing, as asgi.py
  and app.py do): seconds from the hub's start to a tiny run's first frame, from SIGKILL of
  that worker to a new run's first frame on its replacement, and the whole process tree's CPU;
- with --run: the engine against the naive reference (bench/reference.py, a notebook's plain
  loop) on the same setting, both whole-process (a fresh interpreter, imports included) and
  compute-only (the training time each reports).
Not a test: figures depend on the machine's load, which is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sklearn", "scipy", "ray", "pandas", "torch")
STARTS = ("spawn", "forkserver", "prestarted")
NAIVE = """
import sys, time
from argparse import Namespace
from bench.reference import train_reference
from engine.cli import parse_settings
cfg, _ = parse_settings(Namespace(preset=sys.argv[1], set=sys.argv[2:], seed=None))
t0 = time.perf_counter()
train_reference(cfg)
print(time.perf_counter() - t0)
"""


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def median_of(cmd: list[str], repeat: int) -> dict:
    runs = [timed(cmd) for _ in range(repeat)]
    return {"wall_s": statistics.median(r[0] for r in runs),
            "cpu_s": statistics.median(r[1] for r in runs), "out": runs[-1][2].strip()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--run", help="also the engine vs the naive reference on preset RUN")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for --run")
    args = ap.parse_args(argv)
    py = sys.executable
    probe = (f"import sys, engine.cli; print(sorted({{m.split('.')[0] for m in sys.modules}}"
             f" & set({HEAVY!r})))")
    out = {"load_before": os.getloadavg()[0],
           "import_engine_cli": median_of([py, "-c", probe], args.repeat),
           "import_engine_cli_run": median_of([py, "-c", probe.replace("engine.cli;",
                                                                       "engine.cli_run;")],
                                              args.repeat),
           **run_help(py, args.repeat)}
    out["worker"] = worker_starts(py, args.repeat)
    if args.run:
        out["run"] = versus_naive(py, args.run, args.set)
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


def run_help(py: str, repeat: int) -> dict:
    """`python -m engine run --help` with an empty help cache (the first call after a code
    change: the parser imports torch) and then warm (engine/cli_help.py: no torch)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp  # the children's; this process reads none of it
        cold = [timed([py, "-m", "engine", "run", "--help", f"--seeds={i}"]) for i in range(repeat)]
        warm = median_of([py, "-m", "engine", "run", "--help"], repeat + 1)
    return {"run_help_cold": {"wall_s": statistics.median(r[0] for r in cold),
                              "cpu_s": statistics.median(r[1] for r in cold)},
            "run_help": {k: v for k, v in warm.items() if k != "out"}}


def worker_starts(py: str, repeat: int) -> dict:
    """Each start's medians over `repeat` rounds, the starts taken in turn in every round (the
    machine's load drifts: in turn, each start sees about the same)."""
    runs: dict[str, list[dict]] = {m: [] for m in STARTS}
    for _ in range(repeat):
        for mode in STARTS:
            _, _, text = timed([py, "-m", "bench.worker_start", mode])
            runs[mode].append(json.loads(text.strip().splitlines()[-1]))
    keys = ("ready_s", "replaced_s", "whole_s", "imported_s", "cpu_s")
    return {m: {k: round(statistics.median(r[k] for r in rs), 3) for k in keys}
            for m, rs in runs.items()}


def versus_naive(py: str, preset: str, sets: list[str]) -> dict:
    """The engine's network run against the naive reference, whole-process and compute-only."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        flags = [f"--set={s}" for s in sets]
        wall, cpu, _ = timed([py, "-m", "engine", "run", "--preset", preset, *flags, "--quiet",
                              "--no-limits", "--methods", "network", "--out", str(report)])
        timing = json.loads(report.read_text()).get("timing", {})
    n_wall, n_cpu, text = timed([py, "-c", NAIVE, preset, *sets])
    engine_s = timing.get("total_s") or sum(v for v in timing.values()
                                            if isinstance(v, int | float))
    naive_s = float(text.strip().splitlines()[-1])
    return {"engine": {"whole_wall_s": wall, "whole_cpu_s": cpu, "compute_s": engine_s,
                       "timing": timing},
            "naive": {"whole_wall_s": n_wall, "whole_cpu_s": n_cpu, "compute_s": naive_s},
            "naive_over_engine_whole": n_wall / wall,
            "naive_over_engine_compute": naive_s / engine_s}


if __name__ == "__main__":
    main()
