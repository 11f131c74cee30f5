"""The AZL methods trained side by side on the same data, initialisation and batches."""

from __future__ import annotations

import time

from ..errors import ConfigError
from ..lockstep import Lockstep
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


class AZLComparison(Lockstep):
    """Runs the chosen methods in lockstep; step() advances each by one step."""

    def __init__(self, cfg: AZLConfig, methods=METHODS):
        self._t0 = time.perf_counter()
        self.cfg = validate(cfg)
        self.world = build_world(self.cfg)
        self.runs = {m: AZLRun(self.world, m) for m in parse_methods(methods)}
        self.setup_s = time.perf_counter() - self._t0

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
