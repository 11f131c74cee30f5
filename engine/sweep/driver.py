"""Plan a sweep into units, skip what the store already holds, run the rest, store each unit."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..config import ConfigError
from .executors import executor
from .integrity import check_out, remove_store
from .runner import code_version, git_describe
from .spec import SweepSpec, check, row_key
from .store import Store, store_path


@dataclass
class Plan:
    """Units still to run, and how many rows the sweep has in all / already stored."""

    units: list[dict]
    rows_total: int
    rows_stored: int
    version: str


def plan(spec: SweepSpec, store: Store, force: bool = False, batch: bool = False,
         checked: list | None = None, converged: bool = True) -> Plan:
    """Validate every cell, then list the units whose rows are missing (all with force).

    A unit is one setting × one seed (or × all its seeds when batch is on), with the methods
    that seed still lacks; its rows are written in one transaction, so a killed sweep loses at
    most the units in flight and a rerun never recomputes a stored row.
    """
    checked = check(spec) if checked is None else checked
    version = code_version()
    have = set() if force else store.keys()
    seeds = list(range(spec.seed, spec.seed + spec.seeds))
    units, total = [], 0
    for setting, _ in checked:
        missing = {}
        for seed in seeds:
            cfg = spec.config(setting, seed)
            todo = [m for m in spec.methods if row_key(cfg, m, version) not in have]
            total += len(spec.methods)
            if todo:
                missing[seed] = todo
        base = {"spec": spec.to_dict(), "setting": setting, "version": version, "batch": batch,
                "limits": converged}
        if batch and missing:
            methods = [m for m in spec.methods if any(m in t for t in missing.values())]
            units.append({**base, "seeds": sorted(missing), "methods": methods})
        else:
            units += [{**base, "seeds": [s], "methods": t} for s, t in missing.items()]
    stored = total - sum(len(u["methods"]) * len(u["seeds"]) for u in units)
    return Plan(units, total, max(0, stored), version)


def run_sweep(spec: SweepSpec, out: str, *, force: bool = False, batch: bool = False,
              executor_name: str = "local", workers: int = 1, address: str | None = None,
              on_unit: Callable[[int, int, list[dict]], None] | None = None,
              limits: bool = True, converged: bool = True) -> dict:
    """Run the sweep into the store at `out`; returns counts and the wall time. A sweep that
    fails before its first row leaves no store behind (nor its -wal/-shm). `limits`: check
    the guard's limits; `converged`: store each fixed-feature method's converged limit."""
    path = store_path(out)
    check_out(path)  # an unusable --out is refused before any cell is checked or trained
    _check_device(spec.device)
    checked = check(spec, limits, batch, workers)  # every cell, before the store or any work
    run = executor(executor_name, workers, address)  # e.g. Ray missing: before any work
    fresh = not path.exists()
    store, done = Store(path), False
    try:
        p = plan(spec, store, force, batch, checked, converged)
        if p.units:
            store.prepare(spec.to_dict(), spec.names(), spec.settings()[0], git_describe())
        t0, written = time.perf_counter(), 0
        for i, rows in enumerate(run(p.units), 1):
            written += store.write(rows, replace=force)
            if on_unit is not None:
                on_unit(i, len(p.units), rows)
        done = True
        return {"path": str(store.path), "rows": p.rows_total, "skipped": p.rows_stored,
                "written": written, "units": len(p.units), "seconds":
                time.perf_counter() - t0, "code_version": p.version}
    finally:
        _close(store, remove=fresh and not done)


def _close(store: Store, remove: bool) -> None:
    """Close the store; a new one that failed before its first row is deleted."""
    try:
        empty = store.count() == 0
    except sqlite3.Error:
        empty = True
    store.close()
    if remove and empty:
        remove_store(store.path)


def _check_device(device: str) -> None:
    """ConfigError for a device this machine lacks (before the store is created)."""
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--device", device, "cpu or auto: this machine has no CUDA GPU")
