"""engine/baselines.py and engine/compare.py: the NTK against torch.func's empirical NTK, the
NTK classifier's linear model, frozen-layer baselines and the world without input structure."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from engine_ref import d_space_weights, rel_err
from torch.func import jacrev, vmap

from engine.baselines import NTKRun, ntk_features, tangent_kernel
from engine.compare import Comparison
from engine.data import population_stats
from engine.methods import make_run
from engine.run import Run
from engine.worlds import build_world


def _empirical_ntk(world, x: torch.Tensor, truncated: bool) -> torch.Tensor:
    """⟨∇_θ g(x), ∇_θ g(x')⟩ over θ = (a, w, b) of the d-space network g(x) = Σ a_i σ(⟨w_i,x⟩+b_i)
    at the initialisation, by torch.func (float64)."""
    p = world.init
    params = {"a": p.a.double(), "w": d_space_weights(p, world.ds.basis), "b": p.b.double()}

    def g(prm, xi):
        pre = prm["w"] @ xi + prm["b"]
        act = pre.clamp(0.0, 1.0) if truncated else pre.clamp_min(0.0)
        return act @ prm["a"]

    jac = vmap(jacrev(g), in_dims=(None, 0))(params, x)
    flat = torch.cat([jac[k].reshape(x.shape[0], -1) for k in ("a", "w", "b")], dim=1)
    return flat @ flat.T


@pytest.mark.parametrize("space", ["pattern", "input"])
@pytest.mark.parametrize("truncated", [True, False])
def test_tangent_kernel_equals_torch_func_empirical_ntk(space, truncated, tiny_world,
                                                        tiny_world_input):
    world = tiny_world if space == "pattern" else tiny_world_input
    z = world.data.z_train[:8]
    x = torch.as_tensor(world.ds.z_train[:8], dtype=torch.float64) @ \
        torch.as_tensor(world.ds.basis).T
    want = _empirical_ntk(world, x, truncated)
    got = tangent_kernel(world.init, z, truncated)
    assert got.shape == (8, 8)
    assert rel_err(got, want) < 1e-5
    np.testing.assert_allclose(got, got.T, rtol=1e-6)
    assert np.linalg.eigvalsh(got).min() > -1e-4 * np.abs(got).max()  # a Gram matrix
    # the network has active units on these samples, so the w-part is not trivially zero
    pre = x @ d_space_weights(world.init, world.ds.basis).T + world.init.b.double()
    assert bool(((pre > 0) & (pre < 1)).any())


def test_ntk_run_starts_at_exactly_zero(tiny_world):
    run = NTKRun(tiny_world)
    d = tiny_world.data
    out = run.outputs(d.z_test)
    assert torch.count_nonzero(out) == 0
    s0 = run.history[0]
    assert (s0.step, s0.train_acc, s0.test_acc, s0.train_loss, s0.test_loss) == \
        (0, 0.5, 0.5, 1.0, 1.0)
    assert run.summary()["cos"] is None


def test_ntk_run_is_linear_in_the_tangent_features(tiny_world):
    run = NTKRun(tiny_world)
    for _ in range(5):
        run.step()
    assert run.t == 5
    z = tiny_world.data.z_test[:200]
    feats = ntk_features(tiny_world.init, z).double()
    da, dq, db, dc = run.reported()  # the reported model (the running average of the iterates)
    theta = torch.cat([da, dq.reshape(-1), db]).double()
    want = feats @ theta / run.kappa + (0.0 if dc is None else float(dc))
    got = run.outputs(z).double()
    assert float(got.abs().max()) > 0
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5 * float(want.abs().max()))
    # κ² = E‖∇g(x; θ₀)‖² on the first 4096 training samples
    probe = tiny_world.data.z_train[:4096]
    k2 = float(np.trace(tangent_kernel(tiny_world.init, probe)) / probe.shape[0])
    assert run.kappa**2 == pytest.approx(k2, rel=1e-4)


def test_full_batch_ntk_step_is_the_hinge_subgradient_step(tiny_cfg):
    """With batch = n, the first step from f ≡ 0 (every hinge active) moves θ − θ₀ by
    η/(nκ) Σ_n y_n ∇g(x_n; θ₀)."""
    world = build_world(tiny_cfg.replace(batch=tiny_cfg.n, optimizer="sgd", ema=0.0),
                        device="cpu")
    run = NTKRun(world)
    run.step()
    d = world.data
    feats = ntk_features(world.init, d.z_train).double()
    eta = world.schedule.later.eta
    want = eta / (d.z_train.shape[0] * run.kappa) * (d.y_train.double() @ feats)
    got = torch.cat([run.da, run.dq.reshape(-1), run.db]).double()
    assert rel_err(got, want) < 1e-5


def test_full_batch_ntk_adam_step_is_adams_first_step(tiny_cfg):
    """The paper schedule's classifier stage is Adam: its first step is -η·ĝ/(√v̂ + ε) with
    v̂ = ĝ² for a and b (η·sign) and, for the first layer, one v̂ per neuron: the mean of ĝ²
    over the d input coordinates. The reported model starts the running average there."""
    world = build_world(tiny_cfg.replace(batch=tiny_cfg.n), device="cpu")
    assert world.schedule.later.optimizer == "adam" and world.schedule.later.ema > 0
    run = NTKRun(world)
    run.step()
    d, m2 = world.data, world.init.a.shape[0]
    feats = ntk_features(world.init, d.z_train).double()
    grad = -(d.y_train.double() @ feats) / (d.z_train.shape[0] * run.kappa)  # all hinges active
    ga, gq, gb = grad[:m2], grad[m2:-m2].reshape(m2, -1), grad[-m2:]
    eta, eps = world.schedule.later.eta, 1e-8
    rms = (gq.pow(2).sum(1, keepdim=True) / tiny_cfg.d).sqrt()
    want = torch.cat([-eta * ga / (ga.abs() + eps), (-eta * gq / (rms + eps)).reshape(-1),
                      -eta * gb / (gb.abs() + eps)])
    got = torch.cat([run.da, run.dq.reshape(-1), run.db]).double()
    assert rel_err(got, want) < 1e-4
    da, dq, db, dc = run.reported()
    assert torch.equal(torch.cat([da, dq.reshape(-1), db]).double(), got)
    # the intercept's first step is -η·sign(∂L/∂c), ∂L/∂c = -mean(y) at f ≡ 0
    assert float(dc) == pytest.approx(eta * float(torch.sign(d.y_train.mean())), rel=1e-4)


@pytest.fixture(scope="module")
def frozen_runs(tiny_world):
    runs = {m: make_run(m, tiny_world, embed=False) for m in ("network", "rf", "one_step",
                                                              "two_step")}
    for run in runs.values():
        list(run)
    return runs


@pytest.mark.parametrize("method,freeze", [("rf", 0), ("one_step", 1), ("two_step", 2)])
def test_frozen_baselines_keep_the_network_first_layer_after_their_step(frozen_runs, method,
                                                                        freeze):
    net, run = frozen_runs["network"], frozen_runs[method]
    assert run.method == method and run.t == net.t == run.T
    at_freeze = net.history[freeze]
    # identical to the network's first layer at the freeze step, bitwise
    assert run.history[freeze].weights.tobytes() == at_freeze.weights.tobytes()
    assert run.history[freeze].b.tobytes() == at_freeze.b.tobytes()
    assert run.history[freeze].a.tobytes() == at_freeze.a.tobytes()
    # ... and never changed afterwards, while a keeps training
    for s in run.history[freeze:]:
        if s.weights is not None:
            assert s.weights.tobytes() == at_freeze.weights.tobytes()
        assert s.b.tobytes() == at_freeze.b.tobytes()
        assert s.cos.tobytes() == at_freeze.cos.tobytes()
        if s.step > freeze:
            assert s.grad == {}  # no first-layer gradient to decompose
    np.testing.assert_array_equal(run.params.q.numpy(), at_freeze.weights)
    assert not np.array_equal(run.history[-1].a, at_freeze.a)
    assert np.abs(run.history[-1].a - at_freeze.a).max() > 1e-3
    # before the freeze the frozen method followed the network exactly
    for t in range(freeze):
        assert run.history[t].a.tobytes() == net.history[t].a.tobytes()


def test_frozen_baseline_accuracy_matches_its_own_network(frozen_runs, tiny_world):
    """Snapshots of a frozen first layer (cached probe features) report the accuracy of the
    parameters actually held (n ≤ probe size, so every step is a whole-set evaluation)."""
    from engine.network import hinge_loss_acc

    d = tiny_world.data
    run = frozen_runs["rf"]
    loss, acc = hinge_loss_acc(run.params, d.z_train, d.y_train)
    assert run.history[-1].train_acc == pytest.approx(acc, abs=1e-6)
    assert run.history[-1].train_loss == pytest.approx(loss, rel=1e-5)


def test_network_without_structure_shares_dictionary_and_initial_network(tiny_cfg):
    comp = Comparison(tiny_cfg, methods=("network", "network_no_structure", "rf_no_structure"),
                      device="cpu")
    w, w_ns = comp.world, comp.world_ns
    assert comp.runs["network_no_structure"].world is w_ns
    assert comp.runs["rf_no_structure"].world is w_ns
    assert comp.runs["network"].world is w
    assert not w_ns.cfg.structure
    np.testing.assert_array_equal(w.ds.M, w_ns.ds.M)
    np.testing.assert_array_equal(w.ds.A, w_ns.ds.A)
    for name in ("q", "b", "a", "perp"):
        assert torch.equal(getattr(w.init, name), getattr(w_ns.init, name)), name
    assert w.schedule == w_ns.schedule  # same procedure (step sizes from the structured γ, σ̃)
    st = w_ns.ds.stats
    assert st.mean_rel == 0.5 and st.mean_bg == 0.5
    assert st.sigma2 == pytest.approx(tiny_cfg.D / 4)
    assert population_stats(tiny_cfg.replace(structure=False)).gamma == pytest.approx(0.0)
    # the drawn patterns are Bern(1/2) each, labels are the same parity rule
    phi = w_ns.ds.z_train.astype(np.float64) * st.sigma + 0.5
    bits = np.rint(phi)
    assert np.abs(phi - bits).max() < 1e-5
    se = 0.5 / np.sqrt(tiny_cfg.n)
    assert np.abs(bits.mean(0) - 0.5).max() < 5 * se
    counts = bits[:, w_ns.ds.A].sum(1).astype(int)
    np.testing.assert_array_equal(w_ns.ds.y_train, np.where(counts % 2 == 1, 1.0, -1.0))
    # the data differ from the structured world's
    assert not np.array_equal(w.ds.z_train, w_ns.ds.z_train)
    # lockstep
    snaps = comp.step()
    assert set(snaps) == {"network", "network_no_structure", "rf_no_structure"}
    assert comp.t == 1 and all(s.step == 1 for s in snaps.values())


def test_make_run_rejects_unknown_methods_and_missing_worlds(tiny_world):
    with pytest.raises(ValueError, match="unknown method"):
        make_run("bogus", tiny_world)
    with pytest.raises(ValueError, match="without input structure"):
        make_run("ntk_no_structure", tiny_world)
    with pytest.raises(ValueError, match="unknown method"):
        make_run("bogus_no_structure", tiny_world, tiny_world)
    with pytest.raises(ValueError, match="unknown method"):
        Run(tiny_world, "bogus")
    with pytest.raises(ValueError, match="not trained by Run"):
        Run(tiny_world, "ntk")
    with pytest.raises(ValueError, match="freeze_after"):
        Run(tiny_world, "rf", freeze_after=-1)


def test_every_method_run_offers_the_method_protocol(tiny_world):
    """Run, NTKRun and the scenario runs all satisfy engine.methods.MethodRun."""
    from engine.config import Config
    from engine.methods import METHODS, MethodRun
    from engine.worlds import build_world

    for m in METHODS:
        run = make_run(m, tiny_world, tiny_world)
        assert isinstance(run, MethodRun), m
        assert run.method == m and not run.done and run.history[0].step == 0
    fcb = build_world(Config(scenario="fcb", d=40, D=2, k=1, n=200, n_test=100, m=8, T=3,
                             batch=200), "cpu")
    run = make_run("network", fcb)
    assert isinstance(run, MethodRun) and type(run).__name__ == "FCBRun"
    snap = run.step()
    assert snap.step == 1 and set(run.summary()) >= {"train_acc", "test_acc"}
