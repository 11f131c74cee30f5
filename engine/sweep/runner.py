"""One unit of work: every seed × method of one setting, trained and summarised into rows."""

from __future__ import annotations

import hashlib
import subprocess
import time
from pathlib import Path

import torch

from ..compare import Comparison
from ..limits import limit_of
from ..run import pick_device
from .batched import train_batched
from .rows import make_row
from .spec import SweepSpec

ENGINE = Path(__file__).resolve().parents[1]


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


def train_seed(spec: SweepSpec, setting: dict, seed: int, methods, version: str,
               device: str, limits: bool = True) -> list[dict]:
    """Train the methods of one seed side by side (engine.compare) and summarise each, with
    each fixed-feature method's converged limit (after training: time_s is the training's)."""
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
    lims = {m: _limit(comp.runs[m]) for m in methods} if limits else {}
    return [make_row(setting, cfg, m, comp.runs[m], summary[m], spent[m], device, version,
                     False, lims.get(m)) for m in methods]


def _limit(run) -> dict | None:
    """A run's converged limit; None where it has none or its solve failed (the row keeps its
    T-step numbers: a limit never costs a sweep its rows)."""
    try:
        return limit_of(run)
    except (RuntimeError, ValueError, MemoryError):
        return None


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
        rows, rest = train_batched(spec, unit["setting"], unit["seeds"], unit["methods"],
                                   unit["version"], device)
    else:
        rows, rest = [], list(unit["methods"])
    if rest:
        for seed in unit["seeds"]:
            rows += train_seed(spec, unit["setting"], seed, rest, unit["version"], device,
                               unit.get("limits", True))
    return rows
