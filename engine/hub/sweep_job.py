"""A page sweep as a hub run (issue 37): its units (one setting × one seed, every method)
computed by a hub worker (or a Ray actor) through the same Slot as Explore's and Compare's runs,
once per canonical sweep, and read by every session that asks the same sweep.

Its frames: frame 0 is the checked plan (no rows), frame i ≥ 1 holds unit i's rows
(engine/sweep/rows.py), so T is the number of units and the rows are counted, like any run's
frames, against FEX_HUB_MEMORY_MB. The rows are the in-session path's exactly: the same units
through the same engine.sweep.runner.run_unit.
"""

from __future__ import annotations

import time

from .. import guard
from ..config import Config
from ..sweep.driver import plan
from ..sweep.runner import run_unit
from ..sweep.spec import SweepSpec, check

FACTORY = "engine.hub.sweep_job:SweepFrames"


def sweep_job(spec: SweepSpec) -> dict:
    """The job a sweep run is started with (its key: the whole sweep, in a fixed order)."""
    return {"factory": FACTORY, "args": {"spec": spec.to_dict()}}


def is_sweep(job: dict | None) -> bool:
    return job is not None and job.get("factory") == FACTORY


def heaviest(spec: SweepSpec) -> tuple[Config, guard.Estimate]:
    """Every cell checked by the guard (ConfigError / ResourceError naming the cell); the
    cell whose run needs the most memory, and its estimate with the whole sweep's seconds
    (a worker trains one unit at a time: the heaviest cell is its peak)."""
    cells = check(spec)
    ests = [(cfg, guard.estimate(cfg, spec.methods, embed=False)) for _, cfg in cells]
    cfg, est = max(ests, key=lambda ce: ce[1].memory_mb)
    total = spec.seeds * sum(e.seconds for _, e in ests)
    return cfg, guard.Estimate(est.memory_mb, total, est.dominant, est.parts, est.gflop,
                               est.feature_cache, est.resident_mb)


def sweep_estimate(job: dict) -> guard.Estimate:
    """The guard's check of a sweep job (engine.hub.compare_job.run_estimate asks it)."""
    return heaviest(SweepSpec.from_dict(job["args"]["spec"]))[1]


def units_of(spec: SweepSpec) -> int:
    """How many units the sweep has (one per setting and seed)."""
    return spec.count() * spec.seeds


class SweepFrames:
    """The frame contract Slot drives (T, len, advance, meta, frames, done, error, limits)
    over a sweep's units, plus final(): its rows and compute seconds once done."""

    def __init__(self, cfg: Config, device: str = "cpu", spec: dict | None = None):
        self.spec = SweepSpec.from_dict(spec or {})
        self.units = plan(self.spec, None, force=True).units  # checked: every cell
        self.T = len(self.units)
        self._frames: list[dict] = [{"step": 0, "rows": []}]
        self.seconds = 0.0
        self.first_steps = 0

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def done(self) -> bool:
        return len(self._frames) > self.T

    @property
    def error(self) -> str:
        return ""  # a unit that raises fails the run through Slot (one line)

    def advance(self, budget_s: float | None = None, until: int | None = None) -> int:
        """Train units for about budget_s (at least one: a unit is not cut); the steps taken
        (each row is one method's run of T + 1 steps)."""
        end = time.perf_counter() + (budget_s or 0.0)
        steps = 0
        while not self.done and (until is None or len(self._frames) < until):
            t0 = time.perf_counter()
            unit = self.units[len(self._frames) - 1]
            rows = run_unit(unit)
            self.seconds += time.perf_counter() - t0
            self._frames.append({"step": len(self._frames), "rows": rows})
            steps += len(rows) * (int(self.spec.config(unit["setting"], unit["seeds"][0]).T) + 1)
            if time.perf_counter() >= end:
                break
        return steps

    def meta(self) -> dict:
        return {"job": "sweep", "units": self.T}

    def frames(self, start: int, stop: int) -> dict:
        """The frames start..stop-1 as one packed batch (one list per column)."""
        chunk = self._frames[max(0, start):max(start, stop)]
        return {"step": [f["step"] for f in chunk], "rows": [f["rows"] for f in chunk]}

    def final(self) -> dict:
        return {"rows": sum(len(f["rows"]) for f in self._frames), "seconds": self.seconds}

    def limits(self) -> None:
        """No limits message: each row carries its method's converged limit already."""
        return None
