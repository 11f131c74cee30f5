"""`python -m bench.exports`: server memory of Explore's exports against the guard's estimate.

Each case runs in a fresh process (`--one JSON`): it builds the Explore run of a setting as the
page does (an engine.frames.FrameStream), steps it to the end, then resets the peak resident size
(/proc/self/clear_refs) and builds one export (the map GIF, the offline HTML player, the
metrics CSV or the report JSON). The measured growth is VmHWM after the build over VmRSS
before it: what one click adds to the server. `--tree DIR` runs the same against another
checkout of this layout (engine.frames, the export refusals) for a before/after.
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
# the case (the guard's largest accepted T for a small map) and a wider map
SETTINGS = [
    ("n=400, m=20, T=2500", {"n": 400, "n_test": 200, "m": 20, "T": 2500, "batch": 100}),
    ("n=400, m=20, T=5000", {"n": 400, "n_test": 200, "m": 20, "T": 5000, "batch": 100}),
    ("n=2000, m=200, T=1000", {"n": 2000, "n_test": 1000, "m": 200, "T": 1000, "batch": 200}),
]
KINDS = ("gif", "html", "csv", "json")


def _status(key: str) -> float:
    """A /proc/self/status size in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one(settings: dict, kind: str) -> dict:
    """Train the Explore run of `settings`, then build one export; sizes in MB."""
    from engine.config import Config
    from engine.frames import FrameStream
    from ui import explore_view, export
    from ui.state import AppState

    cfg = Config(**settings)
    state = AppState(cfg=cfg)
    state.explore.stream, state.explore.run_cfg = FrameStream(cfg), cfg
    state.explore.stream.advance()
    refused = export.refusals(state).get(kind)
    build = {"gif": lambda: export.export_gif(state),
             "html": lambda: export.export_html(state, "bench"),
             "csv": lambda: explore_view.history_csv(explore_view._frames(state)["rows"]),
             "json": lambda: explore_view._report(state)}[kind]
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    before, t0 = _status("VmRSS"), time.perf_counter()
    out = build()
    return {"before_mb": before, "growth_mb": _status("VmHWM") - before,
            "file_mb": len(out) / 2**20, "seconds": time.perf_counter() - t0,
            "refused": refused, "estimate_mb": _estimate(state, kind)}


def _estimate(state, kind: str) -> float | None:
    """The guard's estimate of this export (None on a tree without engine.exports)."""
    from engine import exports
    from ui import playback

    stream = state.explore.stream
    n, points = len(stream), playback.meta(state, "b")["points"]
    columns = len(stream.frames(n - 1, n)["rows"][0])
    return {"gif": exports.gif_mb(len(exports.gif_frames(n)), points),
            "html": exports.html_mb(n, points), "csv": exports.table_mb(n, columns),
            "json": exports.table_mb(n, columns)}[kind]


def run_case(settings: dict, kind: str, tree: Path) -> dict:
    """One case in a fresh process (OMP_NUM_THREADS=1, as the server)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(tree)}
    code = ("import json, sys; from bench.exports import one; "
            "print(json.dumps(one(json.loads(sys.argv[1]), sys.argv[2])))")
    if not (tree / "bench" / "exports.py").exists():  # an older tree: this file's `one`
        env["PYTHONPATH"] = f"{tree}{os.pathsep}{ROOT / 'bench'}"
        code = code.replace("from bench.exports import one", "from exports import one")
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(settings), kind], cwd=tree,
                          env=env, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1][:200]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--cases", default="", help="comma-separated indices into SETTINGS")
    args = ap.parse_args(argv)
    picked = [SETTINGS[int(i)] for i in args.cases.split(",")] if args.cases else SETTINGS
    print("| setting | export | estimate (MB) | measured growth (MB) | file (MB) | s |")
    print("|---|---|---:|---:|---:|---:|")
    for label, settings in picked:
        for kind in args.kinds.split(","):
            r = run_case(settings, kind, args.tree.resolve())
            if "error" in r:
                print(f"| {label} | {kind} | | error: {r['error']} | | |")
                continue
            est = "" if r["estimate_mb"] is None else f"{r['estimate_mb']:.0f}"
            print(f"| {label} | {kind} | {est} | {r['growth_mb']:.0f} | {r['file_mb']:.1f} | "
                  f"{r['seconds']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
