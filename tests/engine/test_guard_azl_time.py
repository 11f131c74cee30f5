"""The guard's time estimate of Explore's AZL run against its real CPU time (issue 30, finding 9):
the engine's count, without the ResNet's m×m layer, was 6.1× low at m = 2000 (98 s estimated
for T = 3000, ~600 s measured); the documented bound is a factor of 4."""

from __future__ import annotations

import pytest

from bench.azl_time import measure
from engine import guard
from engine.presets import preset_config

BOUND = 4.0  # docs/hosting.md: "within a factor of 4 of the measured CPU time"


@pytest.mark.parametrize("m", [300, 2000])
def test_the_azl_explore_estimate_is_within_the_documented_bound(m):
    r = measure(m, steps=5)  # CPU seconds per step of the page's run, one torch thread
    assert 1 / BOUND <= r["estimate_over_measured"] <= BOUND, r


def test_the_azl_estimate_grows_with_the_square_of_the_width():
    small = preset_config("azl-resnet").replace(m=500)
    wide = small.replace(m=2000)
    ratio = guard.estimate(wide).seconds / guard.estimate(small).seconds
    assert ratio > 4, ratio  # the m×m layer: the engine's linear count gave about 2


@pytest.mark.parametrize("method", ["resnet3", "ntk", "last_layer"])
def test_a_method_trained_alone_is_within_the_bound(method):
    """Compare and the sweeps train each AZL method alone (no map, one net)."""
    import time

    import torch

    from engine.methods import make_run
    from engine.worlds import build_world

    torch.set_num_threads(1)
    cfg = preset_config("azl-resnet").replace(m=2000, T=3000)
    run = make_run(method, build_world(cfg))
    for _ in range(3):
        run.step()
    c0 = time.process_time()
    for _ in range(10):
        run.step()
    per_step = (time.process_time() - c0) / 10
    est = guard.estimate(cfg, (method,), embed=False).seconds / cfg.T
    assert 1 / BOUND <= est / per_step <= BOUND, (method, est, per_step)
