"""A Compare comparison as a hub run (issue 37): its CompareStream computed once by a hub worker
(or a Ray actor) through the same Slot as Explore's runs, and read by every session on the link.

Its frames are one per (seed, step): {step, seed, rows: method → the report's row of that step,
told: the procedure's words on the step (resnet3) or None}; frame i is seed i // (T + 1). When
the last seed is done its report (without a preset: the page adds the paper's numbers) goes in
the run's meta, and its converged limits follow in the limits message, as Explore's do.
"""

from __future__ import annotations

import time

from .. import guard
from ..config import Config
from ..frames.compare import CompareStream
from ..frames.procedure import lead
from .sweep_job import is_sweep, sweep_estimate

JOB = "_job"  # the settings key naming a hub run that is not Explore's FrameStream
FACTORY = "engine.hub.compare_job:CompareFrames"
WAIT_POLL_S = 0.05


def compare_job(methods, seeds: int) -> dict:
    """The job a Compare run is started with (part of its key: other methods, another run)."""
    return {"factory": FACTORY, "args": {"methods": list(methods), "seeds": int(seeds)}}


def compare_estimate(cfg: Config, methods, seeds: int) -> guard.Estimate:
    """The guard's check of one Compare seed, as the page's own (the first seed is kept while
    the others train); ConfigError / ResourceError when refused."""
    return guard.check(cfg, tuple(methods), embed=False, load=guard.Load(kept_seeds=seeds))


def run_estimate(cfg: Config, job: dict | None) -> guard.Estimate:
    """The guard's check of a hub run: Explore's lead method, a Compare job's methods, or a
    sweep job's heaviest cell."""
    if job is None:
        return guard.check(cfg, methods=(lead(cfg),))
    if is_sweep(job):  # a page sweep (engine/hub/sweep_job.py)
        return sweep_estimate(job)
    return compare_estimate(cfg, job["args"]["methods"], job["args"]["seeds"])


class CompareFrames:
    """The frame contract Slot drives (T, len, advance, meta, frames, done, error, limits,
    wait_limits) over a CompareStream, plus final(): the report once done."""

    def __init__(self, cfg: Config, device: str = "cpu", methods=(), seeds: int = 1):
        self.steps = int(cfg.T) + 1  # frames per seed
        self.T = seeds * self.steps - 1
        self.methods = tuple(methods)
        self.stream = CompareStream(cfg, self.methods, seeds, device, prepare=lambda c: (
            compare_estimate(c, self.methods, seeds).feature_cache))
        self._frames: list[dict] = []
        self._limits_started = False
        # the first seed built and its first steps taken: meta has its rows (counted by Slot)
        self.first_steps = self.advance(0.0)

    def __len__(self) -> int:
        return len(self._frames)

    @property
    def done(self) -> bool:
        return self.stream.done

    @property
    def error(self) -> str:
        return ""  # a divergence is part of the comparison (its report says so), not a failure

    def advance(self, budget_s: float | None = None, until: int | None = None) -> int:
        """Step the comparison for about budget_s; the method-steps taken (for the counters)."""
        if not self.stream.done:
            self.stream.advance(budget_s)
        before = len(self._frames)
        seed, rows = self.stream.last_rows()
        have = len(self._frames) - seed * self.steps
        lengths = [len(r) for r in rows.values()]
        told = self.stream.narration()
        for step in range(max(0, have), min(lengths, default=0)):
            self._frames.append({"step": step, "seed": seed,
                                 "rows": {m: r[step] for m, r in rows.items()}, "told": None})
        if told is not None and len(self._frames) > before:
            self._frames[-1]["told"] = list(told)
        return (len(self._frames) - before) * len(self.methods)

    def meta(self) -> dict:
        return {**self.stream.meta(), "job": "compare"}

    def frames(self, start: int, stop: int) -> dict:
        """The frames start..stop-1 as one packed batch (one list per column)."""
        chunk = self._frames[max(0, start):max(start, stop)]
        return {col: [f[col] for f in chunk] for col in ("step", "seed", "rows", "told")}

    def final(self) -> dict:
        """What the page needs once every seed is done: the report (no preset), the
        divergence's message, how many seeds finished; the limits too when already solved (a
        run with no fixed-feature method sends no limits message)."""
        lim = self.limits()
        out = {"report": self.stream.report(), "diverged": self.stream.error,
               "finished": self.stream.finished}
        return out if lim["pending"] else {**out, "limits": lim}

    def limits(self) -> dict | None:
        """{pending, methods: method → converged limit}; started once the comparison is done."""
        if not self.stream.done:
            return {"pending": True, "methods": {}}
        if not self._limits_started:
            self._limits_started = True
            self.stream.limits_start()
        return {"pending": self.stream.limits_pending(), "methods": self.stream.limits()}

    def wait_limits(self, timeout: float) -> None:
        """Wait at most timeout seconds for the limits (the worker's other runs go on between)."""
        end = time.monotonic() + timeout
        while self.stream.limits_pending() and time.monotonic() < end:
            time.sleep(WAIT_POLL_S)
