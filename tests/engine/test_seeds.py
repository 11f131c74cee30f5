"""engine.seeds.SeedSeries: the one multi-seed loop of the CLI and the Compare page."""

from __future__ import annotations

import pytest

from engine.run import DivergenceError
from engine.seeds import SeedSeries

METHODS = ("network", "rf")


def test_ticks_and_one_call_give_the_same_seeds(tiny_cfg):
    whole = SeedSeries(tiny_cfg, METHODS, 2, "cpu")
    whole.run()
    ticked = SeedSeries(tiny_cfg, METHODS, 2, "cpu")
    ticks = 0
    while not ticked.done:
        ticked.advance(budget_s=0.0)  # one step per tick: the page's way
        ticks += 1
    assert ticks == 2 * tiny_cfg.T
    assert ticked.per_seed == whole.per_seed and len(whole.per_seed) == 2
    assert [s["network"]["steps"] for s in whole.per_seed] == [tiny_cfg.T] * 2
    assert whole.first.cfg.seed == tiny_cfg.seed and whole.current is None
    assert whole.per_seed[0] != whole.per_seed[1]  # seeds cfg.seed and cfg.seed + 1 differ


def test_prepare_sees_every_seed_and_may_refuse(tiny_cfg):
    seen = []
    series = SeedSeries(tiny_cfg, METHODS, 3, "cpu", prepare=lambda c: seen.append(c.seed) or True)
    series.run()
    assert seen == [tiny_cfg.seed, tiny_cfg.seed + 1, tiny_cfg.seed + 2]


def test_a_divergence_is_kept_with_the_steps_before_it(tiny_cfg):
    series = SeedSeries(tiny_cfg.replace(eta=1e6, eta_w=1e6), ("network",), 3, "cpu")
    with pytest.raises(DivergenceError):
        while True:
            series.advance(budget_s=0.0)
    assert series.done and series.diverged is not None and len(series.per_seed) == 1
    assert 2 <= series.per_seed[0]["network"]["steps"] < tiny_cfg.T
    series.run()  # nothing more happens once diverged
    assert len(series.per_seed) == 1
