"""The AZL networks and runs: init oracles, frozen layers, linearisation, determinism."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from azl_lockstep import AZLLockstep as AZLComparison

from engine.methods import MethodRun
from engine.procedures.resnet3.narrate import narrate
from engine.procedures.resnet3.nets import NETS
from engine.procedures.resnet3.run import AZLRun, azl_world
from engine.run import DivergenceError
from engine.scenarios.azl.config import METHODS, AZLConfig

SMALL = AZLConfig(n=400, n_test=1200, m=64, epochs=2, drop_epoch=1, batch=50)


@pytest.fixture(scope="module")
def world():
    """The default preset's data and init (no training)."""
    return azl_world(AZLConfig())


@pytest.mark.parametrize("method", ["resnet3", "fc3", "two_layer"])
def test_step0_test_error_in_range(world, method):
    """Output Θ(1) at init: E‖out − y‖² at step 0 in [8, 20] on the whole test set."""
    run = AZLRun(world, method)
    assert 8.0 <= run.evaluate("test")["err"] <= 20.0


def test_resnet3_is_the_source_network_with_u_equal_va(world):
    """out = A(σ(Wx+b₁) + σ(Uσ(Wx+b₁)+b₂)) with U = VA equals the reparametrised forward."""
    init, x = world.init, world.test.x[:200]
    h = torch.relu(x @ init.W.T + init.b1)
    u = init.V @ init.A
    direct = (h + torch.relu(h @ u.T + init.b2)) @ init.A.T
    torch.testing.assert_close(NETS["resnet3"](init).forward(x), direct, rtol=1e-5, atol=1e-5)


def test_kernels_start_at_the_two_layer_output(world):
    """The NTK and the last-layer kernel output the 2-layer network's function at step 0."""
    x = world.test.x[:300]
    base = NETS["two_layer"](world.init).forward(x)
    for name in ("ntk", "last_layer"):
        torch.testing.assert_close(NETS[name](world.init).forward(x), base)


def test_ntk_is_linear_in_the_weight_increment(world):
    """f(W⁽⁰⁾ + 2Δ) − f(W⁽⁰⁾) = 2(f(W⁽⁰⁾ + Δ) − f(W⁽⁰⁾)) for the NTK (not for the network)."""
    x, gen = world.test.x[:300], torch.Generator().manual_seed(5)
    delta = 0.3 * torch.randn(world.init.W.shape, generator=gen)

    def moved(name, scale):
        net = NETS[name](world.init)
        with torch.no_grad():
            net.W += scale * delta
            return net.forward(x)

    for name, linear in (("ntk", True), ("two_layer", False)):
        f0, f1, f2 = (moved(name, s) for s in (0.0, 1.0, 2.0))
        assert torch.allclose(f2 - f0, 2 * (f1 - f0), atol=1e-4) is linear


def test_frozen_layers_never_change():
    """A stays bitwise the init's in every method but last_layer; last_layer keeps W⁽⁰⁾."""
    comp = AZLComparison(SMALL)
    comp.run_all()
    init = comp.world.init
    for name, run in comp.runs.items():
        assert run.done and run.t == SMALL.T
        if name == "last_layer":
            assert torch.equal(run.net.W, init.W) and not torch.equal(run.net.A, init.A)
        else:
            assert torch.equal(run.net.A, init.A) and not torch.equal(run.net.W, init.W)


@pytest.mark.parametrize("fc_bias", ["fixed", "trained"])
def test_fully_connected_biases_follow_fc_bias(fc_bias):
    """fc_bias=fixed (the source's "only hidden weights" for the FC nets): fc3's b₁, b₂ and
    two_layer's and the NTK's b₁ stay bitwise at their init; trained: they move. The ResNet's
    biases are trained either way (the source absorbs them into W and V)."""
    comp = AZLComparison(SMALL.replace(fc_bias=fc_bias), ["resnet3", "fc3", "two_layer", "ntk"])
    comp.run_all()
    init, runs = comp.world.init, comp.runs
    moved = fc_bias == "trained"
    for name in ("fc3", "two_layer", "ntk"):
        assert torch.equal(runs[name].net.b1, init.b1) is not moved, name
        assert not torch.equal(runs[name].net.W, init.W), name
    assert torch.equal(runs["fc3"].net.b2, init.b2) is not moved
    assert not torch.equal(runs["fc3"].net.U, init.U)
    assert not torch.equal(runs["resnet3"].net.b1, init.b1)
    assert not torch.equal(runs["resnet3"].net.b2, init.b2)


def test_runs_follow_the_method_run_protocol_and_repeat():
    """Each run is a MethodRun; the same seed gives the same numbers; the batches are shared."""
    first, second = AZLComparison(SMALL, ["resnet3", "two_layer"]), AZLComparison(SMALL)
    first.run_all()
    second.run_all()
    for name, run in first.runs.items():
        assert isinstance(run, MethodRun)
        np.testing.assert_equal([s.extra for s in run.history],
                                [s.extra for s in second.runs[name].history])
        summary = run.summary()
        assert {"test_err", "c_F", "c_G", "steps"} <= set(summary)
    r, t = first.runs["resnet3"], first.runs["two_layer"]
    assert torch.equal(r.order, t.order)  # the last epoch's batches


def test_history_records_every_step_and_the_lr_drop():
    """One snapshot per step from 0; the step size drops ×0.1 at drop_epoch; last step full."""
    run = AZLRun(azl_world(SMALL), "resnet3")
    list(run)
    steps = [s.step for s in run.history]
    assert steps == list(range(SMALL.T + 1))
    spe = SMALL.steps_per_epoch
    assert run.history[spe].extra["lr"] == pytest.approx(SMALL.lr)
    assert run.history[spe + 1].extra["lr"] == pytest.approx(0.1 * SMALL.lr)
    assert run.history[-1].full_eval and not run.history[-2].full_eval
    assert run.history[-1].weights is not None
    assert np.isfinite(run.history[-1].extra["v_support"])


def test_divergence_is_reported_with_its_step():
    """A step size that blows the weights up stops with DivergenceError, not NaN numbers."""
    run = AZLRun(azl_world(SMALL.replace(lr=10.0)), "fc3")
    with pytest.raises(DivergenceError):
        list(run)


def test_methods_list_is_the_sources():
    """resnet3, fc3, two_layer, ntk, last_layer."""
    assert METHODS == ("resnet3", "fc3", "two_layer", "ntk", "last_layer")


def test_narration_follows_the_numbers():
    """The sentence says what c_F, c_G and the test error against kα² say."""
    early = narrate({"c_F": 0.96, "c_G": 0.04, "test_err": 1.1}, 120, 0.72, 0, "3-layer ResNet")
    assert "F learned (c_F 0.96)" in early and "G not yet (c_G 0.04)" in early
    assert "above kα² = 0.72" in early and "seed 0" in early
    late = narrate({"c_F": 0.98, "c_G": 0.55, "test_err": 0.24}, 900, 0.72, 2)
    assert "G being learned (c_G 0.55)" in late and "below kα² = 0.72" in late
