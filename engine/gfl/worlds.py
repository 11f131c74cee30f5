"""What every GFL world module shares: its preset record and the guard's sizing of its runs."""

from __future__ import annotations

from ..preset import Preset
from .options import KEEP_WEIGHTS

# The common settings every GFL world reads (WorldRecord.common): the data's sizes and seed; the
# procedure's width, steps, batch and classifier-stage rule (engine.gfl.run.stage_rule)
GFL_READS = ("d", "n", "n_test", "seed", "m", "T", "batch", "optimizer", "optimizer_w", "eta",
             "eta_w")
# ... and D and k where the world's data reads them (uniform parity, parity blocks, linear data);
# the XOR mixture, the mixture of Gaussians and the multi-index world read neither, so they are
# hidden there (engine.relations skips D ≤ d and k ≤ D for a world that does not read them)
GFL_COMMON = ("d", "D", "k", *GFL_READS[1:])


def gfl_preset(name: str, scenario: str, title: str, description: str, source: str,
               settings: dict) -> Preset:
    """A preset of a GFL world (the chapter has no experiments: no paper numbers beside it)."""
    return Preset(name, title, description, source, {"scenario": scenario, **settings})


def gfl_run_bytes(cfg, r: int, params: float) -> tuple[float, float]:
    """(kept, peak) bytes of one GFL run (engine.guard): the kept first layers and per-neuron
    arrays of every step; at peak the full-batch step 1 and the whole-set evaluations hold a
    few samples × 4m float32 matrices."""
    width = 4 * cfg.m
    kept = params + (KEEP_WEIGHTS + 3) * width * r * 4 + (cfg.T + 1) * width * 4 * 4
    return kept, 6 * max(cfg.n, cfg.n_test) * width * 4
