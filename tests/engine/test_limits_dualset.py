"""The own-decay hinge with an intercept by the dual active set (engine/limits/dualset.py, issue
36: quick-parity's NTK without libsvm's n×n Gram): the same optimum as libsvm's SVC within the
common certificate, chosen at the run's own decay where a start is held, libsvm where it is not
or where the active set does not settle; small n, no timing."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from engine.compare import Comparison
from engine.limits import dualset, path, sources, svm
from engine.limits.ops import DT, Dense, Gram
from engine.limits.problem import TOL, Objective, Problem
from engine.presets import preset_config


def _data(n, p, seed, noise=1.5):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, p, generator=gen, dtype=DT)
    y = torch.sign(x[:, 0] - 0.5 * x[:, 1] + 0.3 + noise * torch.randn(n, generator=gen, dtype=DT))
    return x, y


def _near(ref: dict, seed: int, size: float = 0.2) -> torch.Tensor:
    """A start near libsvm's (w, c), as a trained readout is near its optimum."""
    gen = torch.Generator().manual_seed(seed)
    v = torch.cat([ref["w"], ref["c"].reshape(1)])
    return v + size * v.norm() / len(v) ** 0.5 * torch.randn(len(v), generator=gen, dtype=DT)


def _assert_same_optimum(op, y, obj, res, ref) -> None:
    """Both certified; ‖w − w*‖² ≤ (P(w) − P*)/λ (the objective is 2λ-strongly convex in w), so
    the two answers are within the sum of their gaps."""
    vals = []
    for got in (res, ref):
        value = svm.primal_value(op, y, obj, got["w"], got["c"])
        assert svm.gap_at(op, y, obj, value, got["alpha"]) <= TOL
        vals.append(value)
    assert abs(vals[0] - vals[1]) <= TOL * vals[1]
    diff = res["w"] - ref["w"]
    sq = svm._sq(op, diff)
    assert sq <= 2 * TOL * max(vals) / obj.lam


@pytest.mark.parametrize("kernel", [False, True])  # explicit features; a precomputed Gram
@pytest.mark.parametrize("weights", [None, (0.7, 1.4)])
def test_dual_active_set_equals_libsvm(kernel, weights):
    """Noisy labels under a strong decay (most rows at a bound, ~12 % free: the regime it is
    for) from a start 1 % off libsvm's optimum: the same optimum, the same intercept."""
    x, y = _data(600, 100, seed=2)
    op = Gram(x @ x.T) if kernel else Dense(x)
    obj = Objective("hinge", 0.1, intercept=True, class_weights=weights)
    ref = svm.libsvm(op, y, obj)
    res = dualset.solve(op, y, obj, _near(ref, seed=3, size=1e-2))
    assert res is not None and res["iterations"] < dualset.STEPS
    _assert_same_optimum(op, y, obj, res, ref)
    assert abs(float(res["c"]) - float(ref["c"])) <= 1e-3 * (1 + abs(float(ref["c"])))


def test_quick_parity_ntk_limit_is_the_dual_active_set_and_equals_libsvm():
    """quick-parity's NTK (explicit tangent features, p ≈ n/2: not the primal Newton's case)
    at its own decay starts from the run's readout (its own function) and is solved by the
    dual active set — no n×n Gram formed — equal to libsvm's answer on the same problem."""
    cfg = preset_config("quick-parity").replace(n=3000, n_test=500, m=30)  # its own T = 200
    comp = Comparison(cfg, ("ntk",), device="cpu")
    comp.run_all()
    run = comp.runs["ntk"]
    prob = sources.problem_of(run)
    assert isinstance(prob.train, sources.TangentDense) and prob.objective.intercept
    own = run.outputs(run.world.data.z_train).to(DT)
    assert torch.allclose(prob.train.mv(prob.start[:-1]) + prob.start[-1], own, atol=1e-4)
    res = path.own(prob)
    assert res["detail"].startswith("dual active set") and res["converged"]
    assert prob.train._gram is None and prob.train._x is None  # neither Gram nor X was built
    ref = svm.libsvm(prob.train, prob.y_train, prob.objective)
    _assert_same_optimum(prob.train, prob.y_train, prob.objective, res, ref)


def test_without_a_start_or_from_far_libsvm_solves_it():
    """No start (a chosen ridge, or no readout): libsvm, as before; from a start near the
    optimum, the dual active set; from one far from it (its sets cycle or collapse), libsvm
    again, never an uncertified answer."""
    x, y = _data(600, 100, seed=4)  # 20(p + 1) > n: not the primal Newton's case
    obj = Objective("hinge", 0.1, intercept=True)
    prob = Problem(Dense(x), Dense(x), y, y, obj)
    assert path.solve_at(prob, obj.lam)["detail"].startswith("libsvm")
    ref = svm.libsvm(prob.train, y, obj)
    near = path.solve_at(replace(prob, start=_near(ref, seed=5, size=1e-2)), obj.lam)
    assert near["detail"].startswith("dual active set") and near["converged"]
    far = _near(ref, seed=5, size=1.0)
    assert dualset.solve(prob.train, y, obj, far) is None
    got = path.solve_at(replace(prob, start=far), obj.lam)
    assert got["detail"].startswith("libsvm") and got["converged"]
