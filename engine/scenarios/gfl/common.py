"""What every GFL world module shares: its common settings and its preset record (the guard's
sizing of its runs is the gfl procedure's, engine/procedures/gfl)."""

from __future__ import annotations

from ...preset import Preset

# The common settings every GFL world reads (WorldRecord.common): the data's sizes and seed; the
# procedure's width, steps, batch and classifier-stage rule (engine.procedures.gfl.run.stage_rule)
GFL_READS = ("d", "n", "n_test", "seed", "m", "T", "batch", "optimizer", "optimizer_w", "eta",
             "eta_w", "limit_ridge")
# ... and D and k where the world's data reads them (uniform parity, parity blocks, linear data);
# the XOR mixture, the mixture of Gaussians and the multi-index world read neither, so they are
# hidden there (engine.relations skips D ≤ d and k ≤ D for a world that does not read them)
GFL_COMMON = ("d", "D", "k", *GFL_READS[1:])


def gfl_preset(name: str, scenario: str, title: str, description: str, source: str,
               settings: dict) -> Preset:
    """A preset of a GFL world (the chapter has no experiments: no paper numbers beside it)."""
    return Preset(name, title, description, source, {"scenario": scenario, **settings})

