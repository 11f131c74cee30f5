"""One unit of work: every seed × method of one setting, trained and summarised into rows."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import time
from pathlib import Path

import torch

from ..compare import Comparison
from ..run import pick_device
from .spec import SweepSpec, row_key

ENGINE = Path(__file__).resolve().parents[1]
CURVE_POINTS = 50  # per-step curves are kept at about this many steps (plus steps 0-2 and T)
CURVE_FIELDS = ("step", "train_acc", "test_acc", "train_loss", "test_loss", "cos_max")
THRESHOLDS = (0.95, 0.99)


# sweep modules that only plan, store or ship work: editing them leaves every number unchanged
NOT_NUMERIC = {"__init__.py", "cli.py", "driver.py", "executors.py", "presets.py", "store.py"}


def code_version() -> str:
    """A hash of the engine's sources that make the numbers (git describe is only informative:
    it changes with every file of the checkout)."""
    h = hashlib.sha256()
    for path in sorted(ENGINE.rglob("*.py")):
        if path.parent.name == "sweep" and path.name in NOT_NUMERIC:
            continue
        h.update(str(path.relative_to(ENGINE)).encode())
        h.update(path.read_bytes())
    return "engine-" + h.hexdigest()[:12]


def git_describe() -> str:
    """`git describe --always --dirty` of the checkout, or '' outside git."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ENGINE,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def curve_stride(T: int) -> int:
    """Keep every stride-th step of the per-step curves."""
    return max(1, T // CURVE_POINTS)


def steps_to(history: list, level: float) -> int | None:
    """First step whose test accuracy reaches `level` (None: never)."""
    for snap in history:
        if snap.test_acc is not None and snap.test_acc >= level:
            return int(snap.step)
    return None


def _num(x):
    """Float or None (NaN → None), for SQL."""
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def curve(history: list, T: int) -> list[list]:
    """[[step, train_acc, test_acc, train_loss, test_loss, cos_max], ...] at a coarse stride."""
    stride = curve_stride(T)
    return [[int(s.step)] + [_num(getattr(s, f)) for f in CURVE_FIELDS[1:]]
            for s in history if s.step <= 2 or s.step % stride == 0 or s.step >= T]


def make_row(setting: dict, cfg, method: str, run, summary: dict, time_s: float,
             device: str, version: str, batched: bool) -> dict:
    """The stored row of one (setting, seed, method)."""
    return {"key": row_key(cfg, method, version), "setting": setting, "seed": cfg.seed,
            "method": method, "train_acc": _num(summary["train_acc"]),
            "test_acc": _num(summary["test_acc"]), "cos": _num(summary.get("cos")),
            "steps_95": steps_to(run.history, 0.95), "steps_99": steps_to(run.history, 0.99),
            "time_s": time_s, "device": device, "batched": int(batched),
            "code_version": version, "config": json.dumps(cfg.to_dict(), sort_keys=True),
            "curve": curve(run.history, cfg.T)}


def train_seed(spec: SweepSpec, setting: dict, seed: int, methods, version: str,
               device: str) -> list[dict]:
    """Train the methods of one seed side by side (engine.compare) and summarise each."""
    cfg = spec.config(setting, seed)
    t0 = time.perf_counter()
    comp = Comparison(cfg, tuple(methods), device)
    setup = (time.perf_counter() - t0) / len(methods)  # the shared world, split evenly
    spent = dict.fromkeys(methods, setup)
    while not comp.done:
        for m, run in comp.runs.items():
            if not run.done:
                t1 = time.perf_counter()
                run.step()
                spent[m] += time.perf_counter() - t1
    summary = comp.summary()
    return [make_row(setting, cfg, m, comp.runs[m], summary[m], spent[m], device, version,
                     False) for m in methods]


def run_unit(unit: dict) -> list[dict]:
    """Rows of one unit {spec, setting, seeds, methods, version, batch}; runs in any process.

    On the CPU one torch thread per unit: parallelism comes from the workers, and a fixed thread
    count keeps float reductions, hence the numbers, the same on every executor.
    """
    spec = SweepSpec.from_dict(unit["spec"])
    device = str(pick_device(spec.device))
    if device == "cpu":
        torch.set_num_threads(1)
    if unit.get("batch"):
        from .batched import train_batched

        rows, rest = train_batched(spec, unit["setting"], unit["seeds"], unit["methods"],
                                   unit["version"], device)
    else:
        rows, rest = [], list(unit["methods"])
    if rest:
        for seed in unit["seeds"]:
            rows += train_seed(spec, unit["setting"], seed, rest, unit["version"], device)
    return rows
