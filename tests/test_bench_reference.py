"""The benchmark's plain reference (bench/reference.py) trains the same network as the engine:
same data, initial network, schedule and mini-batches. Its trajectory must match the engine's
in input and in pattern coordinates, or the speed-up ratio would compare different work."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine.evaluate
from bench.reference import smoothed_activation, train_reference
from engine.config import Config
from engine.network import activation
from engine.run import Run
from engine.worlds import build_world

TINY = dict(d=40, D=20, k=3, m=16, n=3000, n_test=1000, T=12, batch=200)


def _rel(got, want) -> float:
    got, want = torch.as_tensor(got).double(), torch.as_tensor(want).double()
    return float((got - want).norm() / want.norm().clamp_min(1e-300))


@pytest.mark.parametrize("schedule", ["paper", "standard"])
def test_reference_follows_the_engine_step_by_step(schedule, monkeypatch):
    monkeypatch.setattr(engine.evaluate, "PROBE_SAMPLES", 4096)  # ≥ n: whole sets every step
    cfg = Config(**TINY).replace(schedule=schedule)
    ref = train_reference(cfg)
    assert [r["step"] for r in ref.steps] == list(range(cfg.T + 1))
    for space in ("input", "pattern"):
        run = Run(build_world(cfg, device="cpu", space=space), embed=False)
        snaps = [run.history[0], *run]
        for row, s in zip(ref.steps, snaps, strict=True):
            assert row["test_loss"] == pytest.approx(s.test_loss, rel=1e-3, abs=1e-5)
            if s.step == 0:  # g⁽⁰⁾ ≡ 0: the plain float32 sum leaves ±1e-7, a coin for the sign
                continue
            assert row["train_acc"] == pytest.approx(s.train_acc, abs=2e-3), (space, s.step)
            assert row["test_acc"] == pytest.approx(s.test_acc, abs=2e-3), (space, s.step)
            assert row["cos_max"] == pytest.approx(s.cos_max, abs=2e-4), (space, s.step)
        basis = torch.as_tensor(run.world.ds.basis, dtype=torch.float64)
        p = run.params
        w = p.q.double() @ basis.T
        if p.perp is not None:  # the standard schedule keeps the off-basis part of the init
            w = w + p.perp_scale * p.perp.double()
        assert _rel(ref.w, w) < 1e-3, space
        assert _rel(ref.a, p.a) < 1e-3 and _rel(ref.b, p.b) < 1e-3
    # and it learned what the engine learned: not a trivially equal untrained pair
    assert ref.steps[-1]["test_acc"] > 0.6


@pytest.mark.parametrize("xi", [0.0, 0.05, 0.3])
def test_reference_activation_is_the_engines_smoothed_sigma(xi):
    z = torch.linspace(-2.0, 3.0, 501, dtype=torch.float64)
    act, _ = activation(z.clone(), xi, True)
    np.testing.assert_allclose(smoothed_activation(z, xi, True).numpy(), act.numpy(),
                               atol=1e-12)
