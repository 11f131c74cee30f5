"""The GFL classifier stage (t ≥ 2): the rule per block (Adam or plain steps of c/L), L by power
iteration, and a plain full-batch step equal to its formula θ − (c/L)∇L(θ)."""

from __future__ import annotations

import pytest
import torch

from engine.config import Config
from engine.methods import make_run
from engine.procedures.gfl.net import gradients
from engine.procedures.gfl.run import stage_rule
from engine.scenarios.gfl.options import DEFAULT_ETA, DEFAULT_SGD_ETA
from engine.worlds import build_world

SMALL = dict(scenario="gfl_xor", d=20, D=2, k=2, sigma_r=2.0, n=300, n_test=200, m=8, T=4, batch=50)


def stepped(method: str, steps: int, **settings):
    """A run of a small XOR world after `steps` steps."""
    run = make_run(method, build_world(Config(**{**SMALL, **settings}), "cpu"), embed=False)
    for _ in range(steps):
        run.step()
    return run


@pytest.mark.parametrize("settings,rule", [
    ({}, {"a": ("adam", DEFAULT_ETA), "w": ("adam", DEFAULT_ETA)}),
    ({"optimizer": "sgd"}, {"a": ("sgd", DEFAULT_SGD_ETA), "w": ("sgd", DEFAULT_SGD_ETA)}),
    ({"optimizer": "sgd", "eta": 2.0}, {"a": ("sgd", 2.0), "w": ("sgd", 2.0)}),
    ({"optimizer_w": "sgd"}, {"a": ("adam", DEFAULT_ETA), "w": ("sgd", DEFAULT_SGD_ETA)}),
    ({"optimizer_w": "sgd", "eta_w": 0.5}, {"a": ("adam", DEFAULT_ETA), "w": ("sgd", 0.5)}),
])
def test_the_stage_rule_per_block(settings, rule):
    assert stage_rule(Config(**{**SMALL, **settings})) == rule


@pytest.mark.parametrize("method", ["network", "ntk", "one_step"])
def test_l_by_power_iteration_is_the_top_eigenvalue_of_the_tangent_gram(method):
    learner = stepped(method, 1, optimizer="sgd").learner
    blocks = ("a", "w") if learner.trains_w else ("a",)
    x = learner.prep.x_train[learner.prep.probe_train]
    gram = sum(learner.block_gram(x, b) for b in blocks).double() / len(x)
    top = float(torch.linalg.eigvalsh(gram)[-1])
    assert learner.smoothness(blocks) == pytest.approx(top, rel=1e-6)


def test_a_plain_full_batch_step_is_theta_minus_c_over_l_times_the_gradient():
    """batch = n: the whole training set, one η = c/L for a and W (Algorithm 1's single step)."""
    run = stepped("network", 1, optimizer="sgd", eta=0.7, batch=300)
    learner, p = run.learner, run.learner.prep
    before = learner.net.clone()
    gw, ga = gradients(before, p.x_train, p.fit_train, p.regression)
    eta = 0.7 / learner.smoothness(("a", "w"))  # L once, at θ⁽¹⁾
    run.step()
    assert learner.stage_eta == {"a": pytest.approx(eta, rel=1e-12),
                                 "w": pytest.approx(eta, rel=1e-12)}
    torch.testing.assert_close(learner.net.w, before.w - eta * gw, rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(learner.net.a, before.a - eta * ga, rtol=1e-5, atol=1e-7)


def test_adam_for_a_and_plain_steps_for_w_move_each_block_by_its_rule():
    """optimizer_w=sgd: W takes the plain gradient step c/L of its own block, a Adam's."""
    run = stepped("network", 1, optimizer_w="sgd", batch=300)
    learner, p = run.learner, run.learner.prep
    before = learner.net.clone()
    gw, _ = gradients(before, p.x_train, p.fit_train, p.regression)
    eta_w = DEFAULT_SGD_ETA / learner.smoothness(("w",))
    run.step()
    torch.testing.assert_close(learner.net.w, before.w - eta_w * gw, rtol=1e-5, atol=1e-7)
    assert learner.stage_eta["a"] == DEFAULT_ETA
    # Adam's first step moves every output weight with a gradient by about η
    moved = (learner.net.a - before.a).abs()
    assert float(moved.max()) == pytest.approx(DEFAULT_ETA, rel=1e-3)
