"""Comparison: several methods trained side by side on the same data and initialisation, step
by step (the CLI, the sweeps and the seed series train with it). The Compare page reads it
through engine/frames/compare.py's CompareStream, never directly."""

from __future__ import annotations

import time

from .config import Config, validate
from .linear_probe import fit
from .lockstep import Lockstep
from .methods import make_run
from .procedures import procedure_of
from .run import World
from .worlds import build_world


class Comparison(Lockstep):
    """Runs the chosen methods in lockstep; step() advances each by one step."""

    def __init__(self, cfg: Config, methods=None, device: str = "auto",
                 space: str = "auto", embed: bool = False, feature_cache: bool = True):
        self.cfg = validate(cfg)
        # a procedure trains its own methods (gfl: network, ntk, rf, one_step; resnet3: its
        # five); names it does not train are left out here (the CLI refuses them up front)
        self.procedure = procedure_of(self.cfg)
        known = (*self.procedure.names, *self.procedure.aliases)
        methods = self.procedure.defaults if methods is None else methods
        methods = tuple(m for m in methods if m in known)
        if not methods:
            raise ValueError(f"choose methods from {', '.join(self.procedure.names)} for the "
                             f"{self.procedure.name} procedure")
        self._t0 = time.perf_counter()
        self.world: World = build_world(self.cfg, device, space, feature_cache)
        needs_ns = any(not self.procedure.method(m).structure for m in methods)
        self.world_ns: World | None = None
        if needs_ns:
            self.world_ns = build_world(self.cfg.replace(structure=False), device, space,
                                        feature_cache)
        self.runs = {m: make_run(m, self.world, self.world_ns, embed) for m in methods}
        self.setup_s = time.perf_counter() - self._t0

    def run_all(self, on_step=None) -> None:
        """Train to the end, calling on_step(t, snapshots) after each step."""
        while not self.done:
            snaps = self.step()
            if on_step is not None:
                on_step(self.t, snaps)

    def summary(self) -> dict:
        """method → {train_acc, test_acc, cos, steps}; with classifier='logreg' the frozen-feature
        methods report a tuned logistic regression on their features (schedule numbers kept)."""
        out = {m: r.summary() for m, r in self.runs.items()}
        if self.cfg.classifier != "logreg":
            return out
        for m, r in self.runs.items():
            if self.procedure.method(m).frozen:
                tuned = fit(r.params, r.world, self.cfg.seed)
                out[m].update(schedule_train_acc=out[m]["train_acc"],
                              schedule_test_acc=out[m]["test_acc"],
                              train_acc=tuned["train_acc"], test_acc=tuned["test_acc"],
                              logreg_C=tuned["C"])
        return out

    def elapsed(self) -> float:
        """Seconds since the comparison was created."""
        return time.perf_counter() - self._t0
