"""The AZL methods trained side by side on the same data, initialisation and batches."""

from __future__ import annotations

import time

from ..errors import ConfigError
from ..scenarios._common import torch_threads
from .config import METHODS, AZLConfig, validate
from .run import AZLRun, build_world


def parse_methods(names) -> tuple[str, ...]:
    """Validated method names (ConfigError naming the field otherwise)."""
    names = tuple(names)
    bad = [m for m in names if m not in METHODS]
    if bad or not names or len(set(names)) != len(names):
        raise ConfigError("methods", ",".join(names),
                          "distinct names from " + ", ".join(METHODS))
    return names


class AZLComparison:
    """Runs the chosen methods in lockstep; step() advances each by one step."""

    def __init__(self, cfg: AZLConfig, methods=METHODS):
        self._t0 = time.perf_counter()
        self.cfg = validate(cfg)
        self.world = build_world(self.cfg)
        self.runs = {m: AZLRun(self.world, m) for m in parse_methods(methods)}
        self.setup_s = time.perf_counter() - self._t0

    @property
    def t(self) -> int:
        """Steps taken by the slowest method."""
        return min(r.t for r in self.runs.values())

    @property
    def done(self) -> bool:
        """True once every method has taken T steps."""
        return all(r.done for r in self.runs.values())

    def step(self) -> dict:
        """Advance every unfinished method one step; returns method → snapshot."""
        return {m: r.step() for m, r in self.runs.items() if not r.done}

    def run_all(self, on_step=None, threads: int = 1) -> None:
        """Train to the end on `threads` torch threads (one is fastest for these small
        matrices), calling on_step(t, snapshots) after each step."""
        with torch_threads(threads):
            while not self.done:
                snaps = self.step()
                if on_step is not None:
                    on_step(self.t, snaps)

    def summary(self) -> dict:
        """method → the run's summary (test_err, c_F, c_G on the whole sets)."""
        return {m: r.summary() for m, r in self.runs.items()}

    def elapsed(self) -> float:
        """Seconds since the comparison was created."""
        return time.perf_counter() - self._t0
