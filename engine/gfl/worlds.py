"""What every GFL world module shares: its preset record and the guard's sizing of its runs."""

from __future__ import annotations

from ..preset import Preset
from .options import KEEP_WEIGHTS


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
