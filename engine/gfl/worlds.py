"""What every GFL world module shares: its common settings and its preset record (the guard's
sizing of its runs is the gfl procedure's, engine/procedures/gfl)."""

from __future__ import annotations

from ..preset import Preset

# The common settings every GFL world reads (WorldRecord.common): the data's sizes and seed; the
# procedure's width, steps, batch and classifier-stage rule (engine.gfl.run.stage_rule); D and k,
# which every GFL preset sets, because D ≤ d and k ≤ D bind them to d (a link or command that
# left them out would fail validation) and the guard sizes the dictionary by D
GFL_COMMON = ("d", "D", "k", "n", "n_test", "seed", "m", "T", "batch", "optimizer",
              "optimizer_w", "eta", "eta_w")


def gfl_preset(name: str, scenario: str, title: str, description: str, source: str,
               settings: dict) -> Preset:
    """A preset of a GFL world (the chapter has no experiments: no paper numbers beside it)."""
    return Preset(name, title, description, source, {"scenario": scenario, **settings})

