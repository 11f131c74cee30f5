"""engine/trainer.py, engine/schedule.py, engine/run.py: init, the two reset steps, determinism,
the pattern/input-space equivalence, snapshots, history memory and divergence handling.

Gradients are checked against torch.autograd of an independent float64 d-space network
(engine_ref.py) on the whole training set, as the paper's steps 1–2 use the full batch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from engine_ref import d_space_inputs, d_space_weights, ref_grads, rel_err

from engine.config import Config
from engine.data import population_stats
from engine.hinge import hinge_grads
from engine.network import predict
from engine.run import Run
from engine.schedule import PAPER_NU1, init_scales
from engine.worlds import build_world


def _ref_step_grads(world, p, xi):
    """Autograd (∂L/∂w in d-space, ∂L/∂b, ∂L/∂a) at p on the whole training set."""
    x = d_space_inputs(world.ds)
    y = torch.as_tensor(world.ds.y_train, dtype=torch.float64)
    w = d_space_weights(p, world.ds.basis)
    return ref_grads(w, p.b, p.a, x, y, xi, world.schedule.truncated)


def _assert_float32_step(new, old, want_delta, rel: float = 1e-3) -> None:
    """new − old equals want_delta elementwise, up to float32 rounding of new and old
    (an update of 1e-6 on a value of 2 is only resolved to about 2.4e-7)."""
    new, old = new.double(), old.double()
    ulp = 2.0**-23 * torch.maximum(new.abs(), old.abs())
    err = ((new - old) - want_delta).abs()
    assert bool((err <= 2 * ulp + rel * want_delta.abs() + 1e-12).all()), float(err.max())
    assert float(want_delta.abs().max()) > 0


# ---------------------------------------------------------------- init


def test_symmetric_init_scales_and_twins():
    cfg = Config(d=40, D=20, k=3, m=2000, n=200, n_test=50, T=4, batch=100)
    world = build_world(cfg, device="cpu")
    st = population_stats(cfg)
    sw, sb, sa = 1 / 3, 1 / 9, st.sigma2 / (st.gamma * 9)
    assert init_scales(cfg, st) == pytest.approx((sw, sb, sa))
    assert sa == pytest.approx(5.0 / (0.25 * 9))
    p = world.init
    m = cfg.m
    w = d_space_weights(p, world.ds.basis)
    assert w.shape == (2 * m, cfg.d)
    # twins: w_{m+i} = w_i, b_{m+i} = b_i, a_{m+i} = −a_i (exactly)
    assert torch.equal(p.q[:m], p.q[m:]) and torch.equal(p.b[:m], p.b[m:])
    assert torch.equal(p.a[m:], -p.a[:m])
    # N(0, σ²) entries: std within ~5 standard errors of 1/k, 1/k², σ̃²/(γk²)
    wd = w[:m].flatten()
    assert float(wd.std()) == pytest.approx(sw, rel=5 / math.sqrt(2 * wd.numel()))
    assert abs(float(wd.mean())) < 5 * sw / math.sqrt(wd.numel())
    assert float(p.b[:m].double().std()) == pytest.approx(sb, rel=5 / math.sqrt(2 * m))
    assert float(p.a[:m].double().std()) == pytest.approx(sa, rel=5 / math.sqrt(2 * m))
    # the pattern-space init keeps the off-span part of w: q = Mᵀw, perp = (I − MMᵀ)w
    M = torch.as_tensor(world.ds.M)
    assert p.perp is not None and p.perp_scale == 1.0
    assert float((p.perp.double() @ M).abs().max()) < 1e-5
    off = float(p.perp.double().pow(2).sum(1).mean())
    assert off == pytest.approx(sw**2 * (cfg.d - cfg.D), rel=0.02)


def test_standard_schedule_init_is_independent_gaussian():
    cfg = Config(d=40, D=20, k=3, m=500, n=200, n_test=50, T=4, batch=100, schedule="standard")
    world = build_world(cfg, device="cpu")
    p = world.init
    m = cfg.m
    assert not torch.equal(p.q[:m], p.q[m:])
    assert not torch.equal(p.a[m:], -p.a[:m])
    w = d_space_weights(p, world.ds.basis)
    assert float(w.std()) == pytest.approx(1.0, rel=0.02)
    assert float(p.a.double().std()) == pytest.approx(1 / math.sqrt(m), rel=0.1)
    assert not world.schedule.truncated and not world.schedule.symmetric_init


def test_pattern_and_input_space_start_from_the_same_network(tiny_world, tiny_world_input):
    w_pat = d_space_weights(tiny_world.init, tiny_world.ds.basis)
    w_inp = d_space_weights(tiny_world_input.init, tiny_world_input.ds.basis)
    torch.testing.assert_close(w_pat, w_inp, rtol=0, atol=1e-6)
    assert torch.equal(tiny_world.init.b, tiny_world_input.init.b)
    assert torch.equal(tiny_world.init.a, tiny_world_input.init.a)


def test_symmetric_init_network_is_identically_zero_in_the_hinge(tiny_world):
    """g⁽⁰⁾ ≡ 0 as the training step sees it: loss exactly 1, every hinge active."""
    d = tiny_world.data
    g = hinge_grads(tiny_world.init, d.z_train, d.y_train, 0.1, True)
    assert g.loss == 1.0 and g.hinge_active == 1.0


def test_symmetric_init_outputs_exactly_zero_and_accuracy_is_half(tiny_world):
    d = tiny_world.data
    assert torch.count_nonzero(predict(tiny_world.init, d.z_test)) == 0
    run = Run(tiny_world, embed=False)
    s0 = run.history[0]
    assert (s0.train_acc, s0.test_acc, s0.train_loss, s0.test_loss) == (0.5, 0.5, 1.0, 1.0)


# ---------------------------------------------------------------- steps 1 and 2


@pytest.fixture(scope="module")
def two_steps(tiny_world):
    """The network run after step 1 and after step 2, with the parameters before each."""
    run = Run(tiny_world, embed=False)
    p0 = run.params.clone()
    s1 = run.step()
    p1 = run.params.clone()
    s2 = run.step()
    p2 = run.params.clone()
    return run, p0, p1, p2, s1, s2


def test_step1_keeps_nu_eta_w0_and_takes_the_full_batch_gradient(tiny_world, two_steps):
    """Paper schedule, step 1: w⁽¹⁾ = ν⁽¹⁾η⁽¹⁾·w⁽⁰⁾ − η⁽¹⁾∇L (λ_w⁽¹⁾ = 1/(2η⁽¹⁾) − ν⁽¹⁾/2)."""
    run, p0, p1, _, s1, _ = two_steps
    sched = tiny_world.schedule.step1
    assert sched.full_batch and sched.lam_a == 0.0
    keep = sched.keep_w
    assert keep == pytest.approx(PAPER_NU1 * sched.eta, rel=1e-12) and keep > 0
    assert sched.lam_w == pytest.approx(1 / (2 * sched.eta) - PAPER_NU1 / 2, rel=1e-12)
    gw, gb, ga, loss = _ref_step_grads(tiny_world, p0, sched.xi)
    assert loss == pytest.approx(1.0)
    # the kept share of the initial weights, off-span part included
    assert p1.perp_scale == pytest.approx(keep, rel=1e-12)
    w0 = d_space_weights(p0, tiny_world.ds.basis)
    w1 = d_space_weights(p1, tiny_world.ds.basis)
    assert rel_err(w1, keep * w0 - sched.eta * gw) < 1e-5
    # ... and both parts matter: neither the kept init nor the step is negligible
    assert 0.1 < float((keep * w0).norm() / (sched.eta * gw).norm()) < 10
    # b is a plain gradient step, a has λ_a⁽¹⁾ = 0
    _assert_float32_step(p1.b, p0.b, -sched.eta * gb)
    _assert_float32_step(p1.a, p0.a, -sched.eta * ga)
    # ... and the engine's own closed-form gradient, applied verbatim
    d = tiny_world.data
    g = hinge_grads(p0, d.z_train, d.y_train, sched.xi, True)
    assert rel_err(p1.q, keep * p0.q.double() - sched.eta * g.q.double()) < 1e-6
    assert s1.hinge_active == 1.0


def test_step1_twins_are_antipodal_under_the_full_reset(tiny_cfg):
    """Paper-spec §3.6 (theory schedule, Lemma 23's reset): w_{m+i}⁽¹⁾ = −w_i⁽¹⁾,
    b_i⁽¹⁾ − b_{m+i}⁽¹⁾ = −2η⁽¹⁾ ∂L/∂b_i and a_i, a_{m+i} take equal steps."""
    world = build_world(tiny_cfg.replace(schedule="theory"), device="cpu", space="pattern")
    run = Run(world, embed=False)
    p0 = run.params.clone()
    s1 = run.step()
    p1 = run.params
    m = world.cfg.m
    eta = world.schedule.step1.eta
    scale = float(p1.q.abs().max())
    assert scale > 0
    assert float((p1.q[m:] + p1.q[:m]).abs().max()) <= 1e-6 * scale
    _, gb, _, _ = _ref_step_grads(world, p0, world.schedule.step1.xi)
    # b_i⁽¹⁾ + b_{m+i}⁽¹⁾ = 2b_i⁽⁰⁾ and b_i⁽¹⁾ − b_{m+i}⁽¹⁾ = −2η⁽¹⁾ ∂L/∂b_i (b_i⁽⁰⁾ = b_{m+i}⁽⁰⁾)
    _assert_float32_step(p1.b[:m], p1.b[m:], -2 * eta * gb[:m])
    _assert_float32_step(p1.b[:m] + p1.b[m:], p0.b[:m], p0.b[:m].double(), rel=1e-6)
    # a_i and a_{m+i} received the same gradient: their steps agree to float32 rounding
    da = p1.a.double() - p0.a.double()
    ulp = 2.0**-22 * p0.a.double().abs()[:m]
    assert bool(((da[:m] - da[m:]).abs() <= 2 * ulp).all())
    # the map is antipodal too: cos(w_{m+i}, Σ_A M) = −cos(w_i, Σ_A M)
    np.testing.assert_allclose(s1.cos[m:], -s1.cos[:m], atol=1e-6)
    assert s1.cos_max == pytest.approx(-s1.cos_min, abs=1e-6)


def test_step1_twins_share_the_kept_init_and_split_by_the_gradient(tiny_world, two_steps):
    """Paper schedule: twins start equal, so w_i⁽¹⁾ + w_{m+i}⁽¹⁾ = 2ν⁽¹⁾η⁽¹⁾w_i⁽⁰⁾ and their
    gradient parts are antipodal (w_i⁽¹⁾ − w_{m+i}⁽¹⁾ = −2η⁽¹⁾∂L/∂w_i)."""
    _, p0, p1, _, _, _ = two_steps
    m, sched = tiny_world.cfg.m, tiny_world.schedule.step1
    q0, q1 = p0.q.double(), p1.q.double()
    assert rel_err(q1[:m] + q1[m:], 2 * sched.keep_w * q0[:m]) < 1e-5
    d = tiny_world.data
    g = hinge_grads(p0, d.z_train, d.y_train, sched.xi, True).q.double()
    assert rel_err(q1[:m] - q1[m:], -2 * sched.eta * g[:m]) < 1e-5


def test_step1_neurons_follow_sign_of_a0(tiny_world, two_steps):
    """Paper-spec §3.6/§8.2: a neuron moves towards +Σ_A M iff a_i⁽⁰⁾ > 0 (for the live ones)."""
    _, p0, p1, _, s1, _ = two_steps
    live = np.abs(s1.cos) > 0.5
    assert live.sum() >= tiny_world.cfg.m  # most neurons align after one step
    sign_a0 = np.sign(p0.a.numpy())
    np.testing.assert_array_equal(np.sign(s1.cos[live]), sign_a0[live])


def test_step2_resets_w_and_a_to_minus_eta2_gradient(tiny_world, two_steps):
    _, _, p1, p2, _, s2 = two_steps
    sp = tiny_world.schedule.step2
    assert sp.full_batch
    assert sp.lam_a == pytest.approx(1 / (2 * sp.eta))
    assert sp.lam_w == pytest.approx(1 / (2 * sp.eta))
    gw, gb, ga, _ = _ref_step_grads(tiny_world, p1, sp.xi)
    assert rel_err(p2.a, -sp.eta * ga) < 1e-4
    assert rel_err(d_space_weights(p2, tiny_world.ds.basis), -sp.eta * gw) < 1e-4
    assert rel_err(p2.b.double() - p1.b.double(), -sp.eta * gb) < 1e-3
    assert s2.hinge_active > 0.95  # paper-spec §8.8: the hinge stays active through step 2
    assert s2.cos_max > 0.95


def test_theory_schedule_uses_lemma23_and_thm26_formulas(tiny_cfg):
    st = population_stats(tiny_cfg)
    k, m = tiny_cfg.k, tiny_cfg.m
    for variant, eta1, xi in (("lemma23", st.gamma**2 * st.sigma / (k * m**3), k**-1.5),
                              ("thm26", st.gamma**2 * st.sigma2 / (k * m**3), k**-2.0)):
        world = build_world(tiny_cfg.replace(schedule="theory", theory=variant), device="cpu")
        s = world.schedule
        assert s.step1.eta == pytest.approx(eta1, rel=1e-12)
        assert s.step1.lam_w == pytest.approx(1 / (2 * eta1), rel=1e-12)
        assert s.step1.xi == pytest.approx(xi) and s.step2.xi == pytest.approx(xi)
        assert (s.step2.eta, s.step2.lam_w, s.step2.lam_a) == (1.0, 0.5, 0.5)
        assert s.later.eta == pytest.approx(k**2 / (tiny_cfg.T * m ** (1 / 3)))
        assert s.later.xi == 0.0 and not s.later.full_batch


def test_overrides_take_precedence_over_the_schedule(tiny_cfg):
    world = build_world(tiny_cfg.replace(eta1=0.01, lam_w1=0.0, xi2=0.0, eta=0.2, lam=0.0),
                        device="cpu")
    s = world.schedule
    assert (s.step1.eta, s.step1.lam_w, s.step2.xi, s.later.eta, s.later.lam_w) == \
        (0.01, 0.0, 0.0, 0.2, 0.0)


def test_plain_gradient_step_without_reset(tiny_world):
    """λ_w⁽¹⁾ = 0: w⁽¹⁾ = w⁽⁰⁾ − η ∂L/∂w and the off-span part is kept."""
    cfg = tiny_world.cfg.replace(eta1=0.05, lam_w1=0.0)
    world = build_world(cfg, device="cpu")
    run = Run(world, embed=False)
    p0 = run.params.clone()
    run.step()
    gw, _, ga, _ = _ref_step_grads(world, p0, world.schedule.step1.xi)
    w0 = d_space_weights(p0, world.ds.basis)
    w1 = d_space_weights(run.params, world.ds.basis)
    assert run.params.perp_scale == 1.0
    assert rel_err(w1 - w0, -0.05 * gw) < 1e-4
    assert rel_err(run.params.a - p0.a, -0.05 * ga) < 1e-4


def test_relevant_gradient_dominates_background_at_steps_1_and_2():
    cfg = Config(d=100, D=50, k=3, p_o=0.5, n=10_000, n_test=500, m=50, T=2, batch=500)
    run = Run(build_world(cfg, device="cpu"), embed=False)
    snaps = list(run)
    for s in snaps:
        assert s.grad["grad_ratio"] > 3
        assert s.grad["snr_median"] > 10
        assert s.grad["grad_offdict"] == 0.0
        t = s.grad["T_pattern"]
        rel = np.zeros(cfg.D, dtype=bool)
        rel[run.world.ds.A] = True
        # T_j ≈ βγ/σ̃ > 0 for j ∈ A, roughly equal; background components small
        assert t[rel].min() > 0
        assert t[rel].max() < 1.5 * t[rel].min()
        assert np.abs(t[~rel]).max() < 0.3 * t[rel].min()
    # paper-spec §8.7: the relevant/background ratio grows at step 2
    assert snaps[1].grad["grad_ratio"] > snaps[0].grad["grad_ratio"]
