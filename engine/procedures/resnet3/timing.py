"""The guard's time for the resnet3 procedure's runs (its record's run_gflop): the engine's count
has no m² part, and was 6.4× low for Explore's run at m = 2000 (98 s estimated for T = 3000)."""

from __future__ import annotations

from ...scenarios.azl.data import TEST_PROBE, TRAIN_PROBE

# CPU time per step of Explore's run (five nets trained on one batch, each probed on the
# TRAIN_PROBE + TEST_PROBE points, and the map), as flop-equivalents at the guard's 20 GFLOP/s:
# a fixed part (Python, probes) and per probed or trained sample a part linear and one
# quadratic in m. Fitted to CPU seconds per step at m = 300, 1000, 2000 (bench/azl_time.py,
# one thread, loaded 2-core machine: 0.031, 0.073, 0.207 s).
STEP_FLOP, SAMPLE_M_FLOP, SAMPLE_M2_FLOP = 5.1e8, 68.8, 0.624
PROBED = TEST_PROBE + TRAIN_PROBE
EXPLORE_NETS = 5  # resnet3, fc3, two_layer, ntk, last_layer
# A method trained alone (Compare, sweeps) grows far less with m than Explore's step: its share
# of the m² part, from CPU seconds per step at m = 300 and 2000 (resnet3 0.007 and 0.025, ntk
# 0.003 and 0.015, last layer 0.003 and 0.008)
SQUARE_SHARE, OTHER_SQUARE_SHARE = {"resnet3": 0.1, "last_layer": 0.01}, 0.05
# ... and the last layer alone trains one m-wide layer, so half the others' fixed and linear
# part: at m = 2000 it measured 0.0032 s per step on the idle machine (0.008 under load 11),
# against 0.0137 s estimated with a full fifth (4.3×, over the documented bound of 4)
LINEAR_SHARE = {"last_layer": 0.5}


def run_gflop(cfg, methods, embed: bool, aliases: dict | None = None) -> float:
    """GFLOP-equivalents of T steps: Explore's five nets and map (embed), else each method's
    own net (a fifth of the fixed and linear parts, its share of the m² part)."""
    samples = cfg.batch + PROBED
    fixed, linear = STEP_FLOP, SAMPLE_M_FLOP * samples * cfg.m
    square = SAMPLE_M2_FLOP * samples * cfg.m ** 2
    if embed:
        per_step = fixed + linear + square
    else:
        names = [(aliases or {}).get(m, m) for m in methods]
        per_step = sum((fixed + linear) / EXPLORE_NETS * LINEAR_SHARE.get(m, 1.0)
                       + square * SQUARE_SHARE.get(m, OTHER_SQUARE_SHARE) for m in names)
    return cfg.T * per_step / 1e9
