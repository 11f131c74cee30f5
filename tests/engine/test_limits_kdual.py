"""engine/limits/kdual.py: the hinge's dual on a Gram reaches the engine's primal Newton optimum,
its hard margin separates, and the λ → 0 path routes its first points through it where the rule
(kdual.quick) says so, with the same certified values as the Newton."""

from dataclasses import replace

import torch

from engine.limits import hinge, kdual, path, svm
from engine.limits.ops import Dense, Gram, kernel_embedding
from engine.limits.problem import Objective, Problem


def _sample(n=60):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(n, 5, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] + 0.3 * x[:, 1] * x[:, 2])
    return x, y


def _kernel_problem(n=120):
    """An RBF kernel's embedding (n×n, as the NTK limits build it) on a noisy XOR-like sample."""
    x, y = _sample(n)
    k = torch.exp(-torch.cdist(x, x) ** 2 / 10)
    train, test = kernel_embedding(k, k[:20])
    return Problem(train, test, y, y[:20], Objective("hinge", 0.0, tie_break=True))


def test_dual_on_the_gram_matches_the_primal_newton():
    x, y = _sample()
    obj = Objective("hinge", 1e-2)
    op = Gram(x @ x.T)
    got = kdual.solve(op, y, obj)
    primal = hinge.solve(Dense(x), y, obj)
    ours = svm.primal_value(op, y, obj, got["w"], None)
    theirs = svm.primal_value(Dense(x), y, obj, primal["w"], None)
    assert got["certificate"] <= 1e-6 and primal["converged"]
    assert abs(ours - theirs) <= 1e-4 * theirs
    assert torch.allclose(x.T @ got["w"], primal["w"], atol=1e-2)


def test_dual_on_explicit_features_gives_w_in_their_coordinates():
    prob = _kernel_problem()
    obj = Objective("hinge", 1e-4)
    got = kdual.solve(prob.train, prob.y_train, obj)
    newton = hinge.solve(prob.train, prob.y_train, obj)
    assert got["w"].shape == (prob.train.p,) and newton["converged"]
    ours = svm.primal_value(prob.train, prob.y_train, obj, got["w"], None)
    # the common certificate (any solver's α) passes it, and the values agree
    assert svm.gap_at(prob.train, prob.y_train, obj, ours, got["alpha"]) <= 1e-8
    assert abs(ours - newton["objective_value"]) <= 1e-6 * ours


def test_hard_margin_on_the_gram_separates_with_margin_one():
    x, y = _sample()
    feats = torch.cat([x, x[:, 1:2] * x[:, 2:3]], 1)  # the product makes the sample separable
    op = Gram(feats @ feats.T)
    start = kdual.solve(op, y, Objective("hinge", 1e-4))["alpha"] / 2e-4
    hard = kdual.hard(op, y, start)
    assert hard is not None and hard["separable"]
    assert float((y * (op.k @ hard["w"])).min()) >= 1 - 1e-6


def test_the_rule_picks_the_dual_where_it_should():
    prob = _kernel_problem()
    obj, n = Objective("hinge", 1e-2), prob.train.n
    assert kdual.quick(prob.train, obj, path.EARLY, None)  # the path's first point
    assert kdual.quick(prob.train, obj, path.EARLY, {"free": n // kdual.FREE})
    assert not kdual.quick(prob.train, obj, path.EARLY, {"free": n // kdual.FREE + 1})
    assert not kdual.quick(prob.train, obj, path.EARLY, {"certificate": 0.0})  # not its own
    assert not kdual.quick(prob.train, replace(obj, lam=1e-6), path.EARLY, None)
    assert not kdual.quick(prob.train, replace(obj, intercept=True), path.EARLY, None)
    assert not kdual.quick(prob.train, replace(obj, loss="logistic"), path.EARLY, None)
    x, _ = _sample(n)
    assert not kdual.quick(Dense(x), obj, path.EARLY, None)  # n ≫ p: the primal's business


def test_path_points_by_the_dual_match_the_newton():
    prob = _kernel_problem()
    first = path._path_point(prob, 1e-2, None)
    assert first["detail"].startswith("projected Newton") and first["converged"]
    # warm from the first point's α (its free rows counted as few: the rule's other branch)
    second = path._path_point(prob, 1e-4, {**first, "free": 0})
    assert second["detail"].startswith("projected Newton") and second["converged"]
    for lam, got in ((1e-2, first), (1e-4, second)):
        newton = path.solve_at(prob, lam)
        assert "projected Newton" not in newton["detail"]
        assert abs(got["objective_value"] - newton["objective_value"]) <= (
            1e-6 * newton["objective_value"])
    late = path._path_point(prob, 1e-6, second)  # below EARLY: the Newton's
    assert "projected Newton" not in late["detail"]


def test_the_limit_is_the_same_with_the_dual_on_the_path(monkeypatch):
    prob = _kernel_problem()
    ours = path.to_zero(prob, lambda r: {})
    monkeypatch.setattr(kdual, "quick", lambda *a: False)  # the route before Session 19
    theirs = path.to_zero(prob, lambda r: {})
    assert ours["limit_kind"] == theirs["limit_kind"] and ours["converged"]
    assert abs(ours["objective_value"] - theirs["objective_value"]) <= (
        1e-6 * theirs["objective_value"])
    assert [p["converged"] for p in ours["path"]] == [p["converged"] for p in theirs["path"]]
