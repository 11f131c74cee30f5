"""The AZL model code's runs in the engine's lockstep, straight from an AZLConfig (its settings
the engine Config does not carry, e.g. fc_bias): the tests of the networks themselves. Runs a
class sees go through engine.compare.Comparison (the resnet3 procedure)."""

from __future__ import annotations

from engine.lockstep import Lockstep
from engine.procedures.resnet3.run import AZLRun, azl_world
from engine.scenarios.azl.config import METHODS, AZLConfig, validate


class AZLLockstep(Lockstep):
    """The chosen AZL methods on one world, the same batches, one step each per step()."""

    def __init__(self, cfg: AZLConfig, methods=METHODS):
        self.cfg = validate(cfg)
        self.world = azl_world(self.cfg)
        self.runs = {m: AZLRun(self.world, m) for m in methods}

    def run_all(self) -> None:
        """Train every method to the end."""
        while not self.done:
            self.step()

    def summary(self) -> dict:
        """method → its run's summary."""
        return {m: r.summary() for m, r in self.runs.items()}
