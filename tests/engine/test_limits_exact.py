"""The exact solvers of the λ → 0 path (issue 36, speed): the hard-margin SVM by least-distance
programming (engine/limits/hardmargin.py) and the logistic Newton (engine/limits/logistic.py),
each held to an independent solver (scipy's L-BFGS-B on the hard-margin dual, scikit-learn's
LogisticRegression) and to the common certificate; small n, no timing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from engine.compare import Comparison
from engine.limits import hardmargin, limit_of, logistic, path, sources, svm
from engine.limits.ops import Dense
from engine.limits.path import separable_lp
from engine.limits.problem import TOL, Objective, Problem
from engine.network import predict
from engine.presets import preset_config
from tests.engine.test_limits_zero import _hard_margin as _dual_reference


def _data(n, p, seed, noise):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, p, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] - 0.7 * x[:, 1] + noise * torch.randn(n, generator=gen,
                                                                 dtype=torch.float64))
    return Dense(x), y


@pytest.mark.parametrize("n,p", [(60, 80), (150, 20)])  # the Cholesky (Gram) form; [Gᵀ; 1ᵀ]
def test_hard_margin_equals_an_independent_dual_solve_and_is_certified(n, p):
    op, y = _data(n, p, seed=4, noise=0.0)
    hard = hardmargin.solve(op, y)
    assert hard["separable"]
    ref = _dual_reference(op.x.numpy(), y.numpy())
    assert np.linalg.norm(hard["w"].numpy() - ref) <= 1e-4 * np.linalg.norm(ref)
    assert float((y * op.mv(hard["w"])).min()) >= 1 - 1e-8
    obj = Objective("hinge", 0.0, tie_break=True)
    top = hardmargin.lam_max(hard["alpha"], svm._box(y, obj))
    assert hardmargin.certify(op, y, obj, hard, top)[1] <= 1e-8
    # a wrong answer fails the same certificate
    bad = {**hard, "w": hard["w"] * 1.02, "alpha": hard["alpha"] * 1.02}
    assert hardmargin.certify(op, y, obj, bad, top)[1] > TOL
    # started from a subset of rows (constraint generation): the same solution
    order = torch.argsort(y * op.mv(torch.from_numpy(ref) + 0.3 * torch.randn(
        p, generator=torch.Generator().manual_seed(1), dtype=torch.float64)))
    again = hardmargin.solve(op, y, order)
    assert torch.allclose(again["w"], hard["w"], rtol=1e-7, atol=1e-9)


def test_hard_margin_decides_a_non_separable_sample_like_the_lp():
    op, y = _data(300, 3, seed=3, noise=1.0)
    hard = hardmargin.solve(op, y)
    prob = Problem(op, op, y, y, Objective("hinge", 0.0, tie_break=True))
    assert hard["separable"] is False and separable_lp(prob) is False


@pytest.mark.parametrize("n,p", [(60, 80), (200, 15)])  # Woodbury on the Gram; the p×p Hessian
def test_logistic_newton_equals_scikit_learn(n, p):
    op, y = _data(n, p, seed=5, noise=0.8)
    obj = Objective("logistic", 0.0, tie_break=True)
    w = None
    for lam in (1e-2, 1e-4):  # warm-started down the path, as path.to_zero does
        res = logistic.solve(op, y, replace(obj, lam=lam), w)
        w = res["w"]
        ref = LogisticRegression(C=1 / (2 * lam * n), fit_intercept=False, tol=1e-12,
                                 max_iter=100_000).fit(op.x.numpy(), y.numpy()).coef_[0]
        assert res["converged"] and res["certificate"] <= TOL
        assert np.linalg.norm(w.numpy() - ref) <= 1e-4 * np.linalg.norm(ref), lam


def test_small_gfl_xor_rf_limit_is_certified():
    """gfl-xor at n = 400: RF's path reaches margins ≥ 0.99 with a gap of 2e-3 (was reported
    'not converged'); the hard-margin solve now gives the certified max-margin limit."""
    cfg = preset_config("gfl-xor").replace(n=400, T=2, seed=0)  # RF: the initial features
    comp = Comparison(cfg, ("rf",), device="cpu")
    comp.run_all()
    lim = limit_of(comp.runs["rf"])
    assert lim["separable"] is True and lim["limit_kind"].startswith("λ → 0: max-margin")
    assert lim["converged"] and lim["certificate"] <= TOL


@pytest.mark.parametrize("method", ["rf", "two_step"])
def test_own_decay_newton_from_the_runs_readout_equals_libsvm(method):
    """Beyond libsvm's Gram (paper-parity, n = 50 000) the own-decay hinge starts from the
    run's trained readout: that start is the run's own function, and the warm solve is
    certified and equals libsvm's SVC on the same features (0.1 point)."""
    cfg = preset_config("paper-parity").replace(d=40, D=20, n=1500, n_test=1000, m=30, T=40,
                                                batch=300)
    comp = Comparison(cfg, (method,), device="cpu")
    comp.run_all()
    run, d = comp.runs[method], comp.world.data
    prob = sources.problem_of(run)
    own = predict(run.trainer.p, d.z_train, run.world.schedule.truncated).double()
    assert torch.allclose(prob.train.mv(prob.start[:-1]) + prob.start[-1], own, atol=1e-4)
    res = path._newton(prob, prob.objective)
    assert "run's own readout" in res["detail"] and res["certificate"] <= TOL
    _assert_equals_svc(prob, res)


def test_own_decay_with_p_much_less_than_n_is_solved_by_the_primal_newton():
    """Within libsvm's Gram but with p ≪ n (quick-parity's RF, One and Two Step) the own-decay
    hinge goes to the primal Newton first (libsvm only where it does not certify): certified,
    and equal to libsvm's SVC on the same features (0.1 point)."""
    cfg = preset_config("paper-parity").replace(d=40, D=20, n=1500, n_test=1000, m=30, T=40,
                                                batch=300)
    comp = Comparison(cfg, ("rf",), device="cpu")
    comp.run_all()
    prob = sources.problem_of(comp.runs["rf"])
    assert svm.fits(prob.train, prob.objective)  # libsvm could solve it: the Newton goes first
    res = path.solve_at(prob, prob.objective.lam)
    assert "primal Newton before libsvm" in res["detail"] and res["certificate"] <= TOL
    _assert_equals_svc(prob, res)


def _assert_equals_svc(prob, res) -> None:
    """The solve's test accuracy equals libsvm's SVC (intercept, own decay) on the same explicit
    features within 0.1 point."""
    acc = float(((prob.y_test * (prob.test.mv(res["w"]) + res["c"])) > 0).double().mean())
    x, y = prob.train.x.numpy(), prob.y_train.numpy()
    clf = SVC(kernel="precomputed", C=1 / (2 * prob.objective.lam * len(y)), tol=1e-8)
    ref = np.mean(clf.fit(x @ x.T, y).predict(prob.test.x.numpy() @ x.T) == prob.y_test.numpy())
    assert abs(acc - ref) <= 0.001


@pytest.mark.parametrize("noise", [0.0, 1.0])  # separable; not (a Farkas combination)
def test_hard_margin_with_p_much_less_than_n_starts_on_rows_spread_over_the_sample(
        noise, monkeypatch):
    op, y = _data(800, 10, seed=5, noise=noise)
    sizes, real = [], hardmargin._on
    monkeypatch.setattr(hardmargin, "_on", lambda *a: sizes.append(len(a[3])) or real(*a))
    hard = hardmargin.solve(op, y)
    full = real(op, op.x * y[:, None], y, None)  # the NNLS on every row
    assert sizes[0] <= 2 * hardmargin.SPREAD * 11 and len(sizes) <= hardmargin.ROUNDS
    assert hard["separable"] is full["separable"] is (noise == 0.0)
    if noise:
        assert len(sizes) == 1  # the first subset is already not separable: decided there
        return
    assert torch.allclose(hard["w"], full["w"], rtol=1e-7, atol=1e-9)
    assert float((y * op.mv(hard["w"])).min()) >= 1 - 1e-8
