"""The frozen-layer fast path: cached activations give bitwise the same training as recomputing.

RF, One Step and Two Step train only the output layer after their freeze; their classifier-stage
steps gather rows of the frozen layer's activations on the training set (DeviceData.
frozen_features) instead of a batch × d × 2m matmul. The oracle is the plain pass of the same
steps with the cache switched off (feature_cache=False, as the guard does on a tight server),
and the indicator's boolean formula.
"""

from __future__ import annotations

import pytest
import torch

from engine import guard
from engine.compare import Comparison
from engine.config import Config
from engine.network import activation, indicator

FROZEN = ["rf", "one_step", "two_step"]


def _summaries(cfg: Config, cache: bool = True) -> dict:
    cmp_ = Comparison(cfg, FROZEN, device="cpu", feature_cache=cache)
    cmp_.run_all()
    out = {}
    for m, r in cmp_.runs.items():
        p = r.params
        out[m] = (p.a.clone(), None if p.c is None else p.c.clone(),
                  [(s.train_acc, s.test_acc) for s in r.history])
    return out, cmp_.world.data.feature_cache


def test_cached_frozen_features_train_bitwise_like_the_plain_pass():
    cfg = Config(d=40, D=20, k=3, m=24, n=3000, n_test=500, T=30, batch=200, seed=3)
    cached, cache = _summaries(cfg)
    assert len(cache) == 3  # RF's init layer and One/Two Step's frozen layers were kept
    assert cache[0][2].shape == (3000, 24)  # RF: twin-folded init (m units, not 2m)
    plain, none = _summaries(cfg, cache=False)
    assert none == []
    for m in FROZEN:
        assert torch.equal(cached[m][0], plain[m][0]), m
        assert cached[m][2] == plain[m][2], m
        assert cached[m][1] is not None and torch.equal(cached[m][1], plain[m][1]), m


@pytest.mark.parametrize("truncated", [True, False])
def test_indicator_is_the_derivative_mask(truncated):
    z = torch.tensor([-2.0, -1e-30, 0.0, 1e-30, 0.3, 0.999999, 1.0, 1.0000001, 5.0])
    z = torch.cat([z, torch.randn(1000, generator=torch.Generator().manual_seed(0))])
    act, der = activation(z.clone(), 0.0, truncated)
    mask = ((z > 0) & (z < 1)) if truncated else (z > 0)
    assert torch.equal(der, mask.float())
    assert torch.equal(indicator(act, truncated), mask.float())


@pytest.mark.parametrize("schedule", ["paper", "standard"])
def test_ntk_from_cached_initial_features_equals_recomputing(schedule):
    """The NTK reads σ at θ₀ from the initial layer's cached activations (twin-folded under
    the symmetric init, shared with RF); the model it trains is bitwise the recomputed one."""
    cfg = Config(d=30, D=15, k=3, m=20, n=2000, n_test=400, T=25, batch=250, seed=5,
                 schedule=schedule)

    def run(cache=True):
        cmp_ = Comparison(cfg, ["ntk", "rf"], device="cpu", feature_cache=cache)
        cmp_.run_all()
        ntk = cmp_.runs["ntk"]
        return ntk.reported(), [(s.train_acc, s.test_acc) for s in ntk.history], \
            len(cmp_.world.data.feature_cache)

    cached, hist, layers = run()
    assert layers == 1  # the NTK and RF share the initial layer's activations
    plain, hist0, none = run(cache=False)
    assert none == 0 and hist == hist0
    for got, want in zip(cached, plain, strict=True):
        assert (got is None and want is None) or torch.equal(got, want)


def test_guard_gives_up_the_cache_before_refusing(monkeypatch):
    """A server limit between the estimates with and without the cache: the run is allowed
    with the cache off, and Comparison then keeps no activations."""
    cfg = Config(d=40, D=20, k=3, m=200, n=60000, n_test=500, T=4, batch=500, seed=2)
    methods = ("rf", "one_step", "two_step")
    with_cache = guard.estimate(cfg, methods, embed=False)
    without = guard.estimate(cfg, methods, embed=False, feature_cache=False)
    assert with_cache.memory_mb > without.memory_mb + 50
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", str((with_cache.memory_mb + without.memory_mb) / 2))
    est = guard.check(cfg, methods, embed=False)
    assert est.feature_cache is False and est.memory_mb == without.memory_mb
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", str(without.memory_mb - 1))
    with pytest.raises(guard.ResourceError):
        guard.check(cfg, methods, embed=False)
    small = cfg.replace(n=3000, m=24)
    cmp_ = Comparison(small, methods, device="cpu", feature_cache=False)
    cmp_.run_all()
    assert cmp_.world.data.feature_cache == []
