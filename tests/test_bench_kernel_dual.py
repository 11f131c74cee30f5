"""bench/kernel_dual.py (measured, not wired): its dual solve on a Gram reaches the same hinge
optimum as the engine's primal Newton on the explicit features, and its hard margin separates."""

import torch

from bench import kernel_dual
from engine.limits import hinge, svm
from engine.limits.ops import Dense, Gram
from engine.limits.problem import Objective


def _sample():
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(60, 5, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] + 0.3 * x[:, 1] * x[:, 2])
    return x, y


def test_dual_on_the_gram_matches_the_primal_newton():
    x, y = _sample()
    obj = Objective("hinge", 1e-2)
    op = Gram(x @ x.T)
    got = kernel_dual.solve(op, y, obj)
    primal = hinge.solve(Dense(x), y, obj)
    ours = svm.primal_value(op, y, obj, got["w"], None)
    theirs = svm.primal_value(Dense(x), y, obj, primal["w"], None)
    assert got["certificate"] <= 1e-6 and primal["converged"]
    assert abs(ours - theirs) <= 1e-4 * theirs
    assert torch.allclose(x.T @ got["w"], primal["w"], atol=1e-2)


def test_hard_margin_on_the_gram_separates_with_margin_one():
    x, y = _sample()
    feats = torch.cat([x, x[:, 1:2] * x[:, 2:3]], 1)  # the product makes the sample separable
    op = Gram(feats @ feats.T)
    start = kernel_dual.solve(op, y, Objective("hinge", 1e-4))["alpha"] / 2e-4
    hard = kernel_dual.hard(op, y, start)
    assert hard is not None and hard["separable"]
    assert float((y * (op.k @ hard["w"])).min()) >= 1 - 1e-6
