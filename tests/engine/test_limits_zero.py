"""The λ → 0 limit (engine/limits/path.py) and the certificate any solver is held to
(engine/limits/svm.py): libsvm's answer and the engine's own Newton pass the same duality-gap
test, a perturbed answer fails it; a no-decay readout reports the max-margin solution where its
features separate the sample, with its ridge path; limit_ridge is refused where the run's own
decay defines the limit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize
from sklearn.svm import SVC

from engine.cli import main
from engine.compare import Comparison
from engine.limits import hinge, limit_of, sources, svm
from engine.limits.ops import Dense
from engine.limits.path import PATH, separable_lp
from engine.limits.problem import TOL, Objective, Problem
from engine.presets import preset_config


def _data(n=240, p=30, seed=0, noise=0.0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, p, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] + 0.5 * x[:, 1] + noise * torch.randn(n, generator=gen,
                                                                 dtype=torch.float64))
    return Dense(x), y


@pytest.mark.parametrize("intercept,weights", [(False, None), (True, (0.8, 1.3))])
def test_libsvm_and_newton_pass_the_same_certificate(intercept, weights):
    op, y = _data(noise=0.5)
    obj = Objective("hinge", 1e-3, intercept, weights)
    for res in (svm.libsvm(op, y, obj), hinge.solve(op, y, obj)):
        _, gap = svm.certificate(op, y, obj, res["w"], res["c"])
        assert 0 <= gap <= TOL, res["detail"]
    bad = svm.libsvm(op, y, obj)
    _, gap = svm.certificate(op, y, obj, bad["w"] * 1.05, bad["c"])
    assert gap > 10 * TOL  # a worse answer is not certified


def _hard_margin(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """max Σα − ½‖Σ α_i y_i x_i‖², α ≥ 0 (no intercept) by scipy's L-BFGS-B: w."""
    q = (x * y[:, None]) @ (x * y[:, None]).T
    res = minimize(lambda a: (-(a.sum() - 0.5 * a @ q @ a), -(1 - q @ a)), np.zeros(len(y)),
                   jac=True, method="L-BFGS-B", bounds=[(0, None)] * len(y),
                   options={"maxiter": 50_000, "ftol": 1e-16, "gtol": 1e-12})
    return (res.x * y) @ x


def test_separable_sample_gives_the_max_margin_solution():
    op, y = _data(n=100, p=80, seed=1, noise=1.0)  # n < p: separable
    test_op, test_y = _data(n=400, p=80, seed=2)
    prob = Problem(op, test_op, y, test_y, Objective("hinge", 0.0, tie_break=True))
    assert separable_lp(prob) is True
    from engine.limits import _solve
    lim = _solve(prob)
    assert lim["limit_kind"].startswith("λ → 0: max-margin") and lim["separable"]
    assert [p["ridge"] for p in lim["path"]] == list(PATH)
    w = _hard_margin(op.x.numpy(), y.numpy())
    ref = float(np.mean(test_y.numpy() * (test_op.x.numpy() @ w) > 0))
    assert abs(lim["test_acc"] - ref) <= 1e-3
    assert lim["certificate"] <= TOL and lim["converged"]


def test_non_separable_sample_ends_the_path():
    op, y = _data(n=300, p=3, seed=3, noise=1.0)
    prob = Problem(op, op, y, y, Objective("hinge", 0.0, tie_break=True))
    assert separable_lp(prob) is False
    from engine.limits import _solve
    lim = _solve(prob)
    assert lim["separable"] is False and lim["ridge"] == PATH[-1]
    assert "not separable" in lim["limit_kind"]


def test_gfl_limit_is_lambda_to_zero_with_its_path():
    cfg = preset_config("gfl-xor").replace(n=300, n_test=300, m=10, T=4)
    comp = Comparison(cfg, ("rf",), device="cpu")
    comp.run_all()
    lim = limit_of(comp.runs["rf"])
    assert lim["limit_kind"].startswith("λ → 0") and len(lim["path"]) == len(PATH)
    assert lim["tie_break"] and "λ → 0" in lim["objective"]


def test_limit_ridge_is_refused_where_the_own_decay_defines_the_limit(capsys):
    argv = ["run", "--preset", "quick-parity", "--methods", "rf", "--set", "limit_ridge=1e-6"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "limit_ridge" in err and "own decay λ = 0.0001" in err and "\n" not in err


def test_ntk_limit_on_the_gram_by_libsvm_matches_svc(monkeypatch):
    """Where the tangent features are too wide and n too large for the eigendecomposition but
    the n×n Gram fits (dm-sparse-parity at n = 10 000), libsvm solves on the Gram itself (issue
    36: 5 s where the matrix-free Newton took 849 s); here forced at n = 600 by lowering the
    width limit, and held to scikit-learn's SVC on the Gram built independently."""
    monkeypatch.setattr(sources, "DIRECT_WIDTH", 100)
    cfg = preset_config("paper-parity").replace(d=40, D=20, n=600, n_test=800, m=30, T=2,
                                                batch=200)
    comp = Comparison(cfg, ("ntk",), device="cpu")
    comp.run_all()
    run, d = comp.runs["ntk"], comp.world.data
    lim = limit_of(run)
    assert lim["form"] == "dual: libsvm on the n×n tangent Gram", lim
    assert lim["certificate"] <= TOL and lim["converged"]
    z, zt = d.z_train.double().numpy(), d.z_test.double().numpy()
    y, yt = d.y_train.numpy(), d.y_test.numpy()
    q, b, a = (t.double().numpy() for t in (run.p0.q, run.p0.b, run.p0.a))
    act = [np.clip(v @ q.T + b, 0, 1) for v in (z, zt)]
    slope = [((s > 0) & (s < 1)) * a for s in act]
    gram = [(act[i] @ act[0].T + (slope[i] @ slope[0].T) * (v @ z.T + 1)) / run.kappa**2
            for i, v in enumerate((z, zt))]
    lam = comp.world.schedule.later.lam_a
    clf = SVC(C=1 / (2 * lam * len(y)), kernel="precomputed", tol=1e-7).fit(gram[0], y)
    ref = float(np.mean(yt * clf.decision_function(gram[1]) > 0))
    assert abs(lim["test_acc"] - ref) <= 1e-3
