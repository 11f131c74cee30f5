"""Start-up figures (issue 37): `python -m bench.startup [--run PRESET]`.

Prints, each the median of --repeat fresh processes (wall and CPU seconds of the child):
- `import engine.cli`, and which of scikit-learn, scipy, Ray, pandas, torch it loaded (the
  parser needs no registry: none of them since issue 37's split into engine/cli_run.py);
- `import engine.cli_run`: the commands, with the registries and torch (what a run pays);
- `python -m engine run --help`, cold (no help text kept yet) and warm (engine/cli_help.py);
- a hub worker ready: a spawned LocalPool worker from its start to its first frame of a tiny
  run (the worker imports the engine, builds the run, sends step 0);
- with --run: a whole `python -m engine run` process against the training time it reports
  (whole-process vs compute-only).
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
WORKER = """
import time
from engine.config import Config
from engine.hub import make_hub
if __name__ == "__main__":
    t0 = time.perf_counter()
    hub = make_hub(workers=1)
    key = hub.subscribe(Config().replace(n=200, n_test=100, d=40, D=20, m=4, T=3, batch=50), "w")
    while hub.status(key)["n"] == 0:
        time.sleep(0.005)
    print(time.perf_counter() - t0)
    hub.close()
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
    ap.add_argument("--run", help="also time `python -m engine run --preset RUN` whole")
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
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir=ROOT, delete=False) as fh:
        fh.write(WORKER)
    try:
        w = median_of([py, fh.name], args.repeat)
        ready = float(w.pop("out"))  # the last run's, measured inside it
        out["worker_first_frame"] = {**w, "ready_s": ready}
    finally:
        os.unlink(fh.name)
    if args.run:
        out["run"] = whole_run(py, args.run)
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


def whole_run(py: str, preset: str) -> dict:
    """A whole CLI run against the compute it reports (its JSON report's timing)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        wall, cpu, _ = timed([py, "-m", "engine", "run", "--preset", preset, "--quiet",
                              "--no-limits", "--methods", "network", "--out", str(report)])
        timing = json.loads(report.read_text()).get("timing", {})
    return {"whole_wall_s": wall, "whole_cpu_s": cpu, "timing": timing}


if __name__ == "__main__":
    main()
