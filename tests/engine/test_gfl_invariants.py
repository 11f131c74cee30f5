"""The exact invariants of the GFL procedure (spec §2.4) on small worlds: g⁽⁰⁾ ≡ 0, b fixed,
RF's W = W⁽⁰⁾ and One Step's W = W⁽¹⁾ bitwise, step 1 = its closed form, the (3.9) twins."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.config import Config
from engine.data import Directions
from engine.methods import make_run
from engine.procedures.gfl.learners import METHODS
from engine.procedures.gfl.net import output
from engine.procedures.gfl.probes import layer_probes
from engine.worlds import build_world

TINY = {
    "gfl_xor": dict(d=20, D=2, k=2, sigma_r=2.0, n=300, n_test=200, m=8, T=6, batch=50),
    "gfl_uniform_parity": dict(d=7, D=7, k=2, n=400, n_test=200, m=8, T=6, batch=50),
    "gfl_multi_index": dict(d=10, D=2, k=2, n=400, n_test=200, m=8, T=6, batch=50),
    "gfl_linear": dict(labeling="threshold", d=20, D=10, k=3, p_a=0.5, p_o=0.2, n=300,
                       n_test=200, m=8, T=6, batch=50),
    "gfl_parity_blocks": dict(d=20, D=20, r=3, k=3, p_a=0.1, p_o=0.1, n=300, n_test=200, m=8,
                              T=6, batch=50),
    "gfl_mog": dict(d=20, D=4, k=2, r=4, sigma_r=1.0, n=300, n_test=200, m=8, T=6, batch=50),
}


def runs(world: str) -> dict:
    """Every GFL method trained to the end on the tiny version of a world."""
    w = build_world(Config(scenario=world, **TINY[world]), "cpu")
    out = {m: make_run(m, w, embed=False) for m in METHODS}
    for r in out.values():
        while not r.done:
            r.step()
    return out


@pytest.fixture(scope="module", params=sorted(TINY))
def trained(request):
    return request.param, runs(request.param)


def test_the_output_is_exactly_zero_at_step_0(trained):
    _, rs = trained
    for r in rs.values():
        assert torch.equal(output(r.learner.net0, r.prep.x_test), torch.zeros(len(r.prep.x_test)))
        assert r.history[0].test_loss == pytest.approx(1.0) or r.prep.regression


def test_b_never_changes_and_rf_one_step_keep_their_first_layer(trained):
    world, rs = trained
    rebias = world == "gfl_multi_index"  # Algorithm 7 re-draws b once, after step 1
    b0 = rs["network"].history[0].b
    for m, r in rs.items():
        h = r.history
        start = 1 if rebias and m != "ntk" else 0
        for s in h[start:]:
            assert np.array_equal(s.b, h[start].b), m
        if not rebias:
            assert np.array_equal(h[-1].b, b0), m
    w0 = rs["network"].history[0].weights
    assert all(np.array_equal(s.weights, w0) for s in rs["rf"].history if s.weights is not None)
    w1 = rs["one_step"].history[1].weights
    assert np.array_equal(w1, rs["network"].history[1].weights)
    assert all(np.array_equal(s.weights, w1) for s in rs["one_step"].history[1:]
               if s.weights is not None)
    assert not np.array_equal(rs["network"].history[-1].weights, w1)  # the network moves on


def test_every_method_starts_from_the_same_network(trained):
    _, rs = trained
    first = rs["network"].history[0]
    for r in rs.values():
        assert np.array_equal(r.history[0].weights, first.weights)
        assert np.array_equal(r.history[0].a, first.a)


def test_step_one_equals_its_closed_form_and_the_twins_are_antipodal(trained):
    _, rs = trained
    r = rs["one_step"]
    p, n0 = r.prep, r.learner.net0
    x, y = p.x_train, p.fit_train.double()
    gate = (x.double() @ n0.w.double().T + n0.b.double() > 0).double()
    # ℓ'(0) = −1 for the hinge; the squared loss has ∂/∂g = 2(g − y) = −2y at g = 0
    lead = 2.0 if p.regression else 1.0
    G = (gate * y[:, None]).T @ x.double() / len(y)  # G(w_i, b_i) = E_n[y x 1{⟨w_i,x⟩+b_i>0}]
    closed = lead * r.eta1 * n0.a.double()[:, None] * G
    w1 = torch.as_tensor(r.history[1].weights).double()
    assert float((w1 - closed).norm() / w1.norm()) <= 1e-5
    m2 = len(w1) // 2
    assert torch.equal(w1[m2:], -w1[:m2])  # w⁽¹⁾_{i+2m} = −w⁽¹⁾_i exactly


def test_the_twins_coincide_on_a_symmetrised_sample():
    """Lemma B.71: with E_n[y x] = 0 (each x paired with −x, k even), w⁽¹⁾_{i+m} = w⁽¹⁾_i."""
    w = build_world(Config(scenario="gfl_uniform_parity", **TINY["gfl_uniform_parity"]), "cpu")
    half = w.ds.z_train[:200]
    w.ds.z_train = np.concatenate([half, -half])
    w.ds.y_train = np.concatenate([w.ds.y_train[:200], w.ds.y_train[:200]])
    r = make_run("one_step", w, embed=False)
    r.step()
    w1, m = r.history[1].weights, TINY["gfl_uniform_parity"]["m"]
    np.testing.assert_allclose(w1[m:2 * m], w1[:m], rtol=1e-4, atol=1e-6)
    assert np.abs(w1[:m]).max() > 0


def test_the_ntk_is_linear_in_its_increment():
    w = build_world(Config(scenario="gfl_xor", **TINY["gfl_xor"]), "cpu")
    r = make_run("ntk", w, embed=False)
    gen = torch.Generator().manual_seed(1)
    learner, x = r.learner, r.prep.x_test
    assert torch.equal(learner.output(x), torch.zeros(len(x)))
    dw, da = torch.randn(learner.dw.shape, generator=gen), torch.randn(learner.da.shape,
                                                                       generator=gen)
    learner.dw, learner.da = dw, da
    once = learner.output(x)
    learner.dw, learner.da = 3 * dw, 3 * da
    torch.testing.assert_close(learner.output(x), 3 * once, rtol=1e-4, atol=1e-4)


def test_step_sizes_are_the_ones_the_run_takes():
    """GFLRun.step_sizes(): η⁽¹⁾ once step 1 set it, the NTK without a reset row, and SGD's
    η/L once its first classifier step computed L."""
    cfg = Config(scenario="gfl_xor", optimizer="sgd", **TINY["gfl_xor"])
    w = build_world(cfg, "cpu")
    net, ntk = make_run("network", w, embed=False), make_run("ntk", w, embed=False)
    assert net.step_sizes()[0]["η"] is None and net.step_sizes()[1]["η"] is None
    for run in (net, ntk):
        run.step()
        run.step()
    first, row_a, row_w = net.step_sizes()
    assert first["η"] == net.eta1 > 0 and first["λ_w"] == pytest.approx(1 / net.eta1)
    # c/L with one L over both blocks, taken at step 2's start (the net has moved since:
    # recomputed, L differs slightly)
    lrn = net.learner
    assert (row_a["η"], row_w["η"]) == (lrn.stage_eta["a"], lrn.stage_eta["w"])
    assert row_w["η"] == pytest.approx(lrn.stage["w"][1] / lrn.smoothness(("a", "w")), rel=0.01)
    assert row_w["stage"] == "steps 2-6" and row_w["rule"].startswith("W: sgd")
    assert row_a["rule"].startswith("a: sgd")
    assert [r["stage"] for r in ntk.step_sizes()] == ["steps 1-6", "steps 1-6"]


def test_a_centre_counts_only_the_neurons_pointing_at_it():
    """XOR's centres ±µ₁ are two stars: a neuron at µ₁ is on D1 only, its twin at −µ₁ on D2 only
    (counting |cos| put each on both stars and the map's counts summed to twice the aligned
    neurons); a feature direction, drawn at ±D, counts both signs."""
    mu = np.array([1.0, 0.0, 0.0])
    w = np.array([mu, -mu, [0.0, 0.0, 1.0]])
    centres = Directions(np.array([mu, -mu]), np.array([0, 0]), "centre")
    probes = layer_probes(w, centres)
    assert list(probes["nice"]) == [1, 1] and probes["frac_aligned"] == pytest.approx(2 / 3)
    feature = Directions(np.array([mu]), np.array([0]), "feature")
    assert list(layer_probes(w, feature)["nice"]) == [2]
