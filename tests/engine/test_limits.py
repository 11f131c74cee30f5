"""Converged limits (engine/limits) against independent scikit-learn solves on the same features:
the features are rebuilt here from the run's own layers, the solves are LinearSVC / SVC / Ridge."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import torch
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.svm import SVC, LinearSVC

from engine.cli import main
from engine.compare import Comparison
from engine.limits import limit_of
from engine.limits.problem import TOL
from engine.presets import preset_config

pytestmark = pytest.mark.slow


def _acc(y, f) -> float:
    return float(np.mean(y * f > 0) + 0.5 * np.mean(y * f == 0))


def _svc_no_intercept(x, y, x_test, y_test, lam):
    """min λ‖w‖² + mean hinge (no intercept) = LinearSVC with C = 1/(2λn): (test accuracy,
    primal objective). liblinear's own stopping test is not met on these unscaled ReLU features
    within 20 000 epochs (its objective then agrees with ours to 1e-3), hence the cap."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LinearSVC(C=1 / (2 * lam * len(y)), loss="hinge", fit_intercept=False, dual=True,
                        tol=1e-5, max_iter=20_000).fit(x, y)
    w = clf.coef_.ravel()
    return _acc(y_test, x_test @ w), float(np.maximum(0, 1 - y * (x @ w)).mean() + lam * w @ w)


def _dual_box(k, y, k_test, y_test, lam):
    """The same problem's dual, max Σα − αᵀQα/(4λ) over 0 ≤ α ≤ 1/n (Q = yyᵀ ∘ K; no intercept,
    so no equality constraint), by scipy's L-BFGS-B: (test accuracy, dual objective). Any
    feasible α bounds the optimum from below, so it must not exceed our certified objective."""
    n = len(y)
    q = (y[:, None] * y[None, :]) * k / (4 * lam)
    res = minimize(lambda a: (-(a.sum() - a @ q @ a), -(1 - 2 * q @ a)), np.zeros(n), jac=True,
                   method="L-BFGS-B", bounds=[(0, 1 / n)] * n,
                   options={"maxiter": 20_000, "maxfun": 40_000, "ftol": 1e-15, "gtol": 1e-12})
    return _acc(y_test, k_test @ (res.x * y)), -res.fun


def _svc_gram(k, y, k_test, y_test, lam):
    """min λ‖w‖² + mean hinge + unregularised intercept = libsvm's SVC, C = 1/(2λn)."""
    clf = SVC(C=1 / (2 * lam * len(y)), kernel="precomputed", tol=1e-6).fit(k, y)
    return _acc(y_test, clf.decision_function(k_test))


GFL_SMALL = dict(n=300, n_test=1000, T=30)  # the preset's claim at a CI size (issue 36)


def _gfl_features(comp, x, xt):
    """RF's and One Step's ReLU features (their layers after step 1) and the NTK's Gram at θ₀."""
    feats = {}
    for name in ("rf", "one_step"):
        net = comp.runs[name].learner.net
        w, b = net.w.double().numpy(), net.b.double().numpy()
        feats[name] = [f @ f_tr.T for f_tr in [np.maximum(x @ w.T + b, 0)]
                       for f in (np.maximum(x @ w.T + b, 0), np.maximum(xt @ w.T + b, 0))]
    n0 = comp.runs["ntk"].learner.net0
    w0, b0, a0 = (t.double().numpy() for t in (n0.w, n0.b, n0.a))
    parts = [(np.maximum(z @ w0.T + b0, 0), (z @ w0.T + b0 > 0) * a0) for z in (x, xt)]
    feats["ntk"] = [p[0] @ parts[0][0].T + (p[1] @ parts[0][1].T) * (z @ x.T)
                    for p, z in zip(parts, (x, xt), strict=True)]
    return feats


def test_gfl_xor_cli_limits_match_sklearn(tmp_path):
    """The CLI's λ → 0 limits on a small gfl-xor setting: each equals the independent dual QP
    (scipy) at its ridge on Grams rebuilt here (0.1 point, weak duality), and the path's
    λ = 1e-2 point equals liblinear's LinearSVC on the same features."""
    out = tmp_path / "r.json"
    sets = [a for k, v in GFL_SMALL.items() for a in ("--set", f"{k}={v}")]
    assert main(["run", "--preset", "gfl-xor", *sets, "--methods", "network,rf,one_step,ntk",
                 "--quiet", "--out", str(out)]) == 0
    methods = json.loads(out.read_text())["methods"]
    comp = Comparison(preset_config("gfl-xor").replace(**GFL_SMALL), ("rf", "one_step", "ntk"),
                      device="cpu")
    comp.step()  # RF's and One Step's features are fixed from step 1 on
    prep = comp.runs["rf"].prep
    x, xt = prep.x_train.double().numpy(), prep.x_test.double().numpy()
    y, yt = prep.y_train.numpy(), prep.y_test.numpy()
    for name, (k, k_test) in _gfl_features(comp, x, xt).items():
        lim = methods[name]["limit"]
        assert lim["certificate"] <= TOL and lim["converged"], name
        assert lim["separable"] and lim["limit_kind"].startswith("λ → 0: max-margin"), name
        acc, dual = _dual_box(k, y, k_test, yt, lim["ridge"])
        assert abs(lim["test_acc"] - acc) <= 0.001, name
        assert dual <= lim["objective_value"] * (1 + 1e-9), name  # weak duality
        assert lim["objective_value"] - dual <= TOL * lim["objective_value"], name
        at = next(p for p in lim["path"] if p["ridge"] == 1e-2)
        assert abs(at["test_acc"] - _svc_kernel(k, y, k_test, yt, 1e-2)) <= 0.001, name


def _svc_kernel(k, y, k_test, y_test, lam):
    """The same hinge readout without intercept at λ, by liblinear on Φ with ΦΦᵀ = K."""
    s, u = np.linalg.eigh(k)
    keep = s > 1e-12 * s.max()
    phi = u[:, keep] * np.sqrt(s[keep])
    acc, _ = _svc_no_intercept(phi, y, (k_test @ u[:, keep]) / np.sqrt(s[keep]), y_test, lam)
    return acc


SMALL_PARITY = dict(d=100, D=50, n=3000, n_test=2000, m=40, T=30, batch=500)


# quick-parity keeps its own width m = 100 (its NTK: 5 200 explicit tangent features, primal)
@pytest.mark.parametrize("preset, sets", [("paper-parity", SMALL_PARITY),
                                          ("quick-parity", dict(n=3000, n_test=2000, T=30))])
def test_paper_parity_limits_match_libsvm(preset, sets):
    """Each limit (own decay, intercept) equals libsvm's SVC on the Gram rebuilt here, 0.1 point."""
    cfg = preset_config(preset).replace(**sets)
    comp = Comparison(cfg, ("ntk", "rf", "one_step", "two_step"), device="cpu")
    comp.run_all()
    d = comp.world.data
    z, zt = d.z_train.double().numpy(), d.z_test.double().numpy()
    y, yt = d.y_train.numpy(), d.y_test.numpy()
    lam = comp.world.schedule.later.lam_a
    for name in ("rf", "one_step", "two_step"):
        p = comp.runs[name].trainer.p
        q, b = p.q.double().numpy(), p.b.double().numpy()
        f, ft = (np.clip(v @ q.T + b, 0, 1) for v in (z, zt))
        lim = limit_of(comp.runs[name])
        assert lim["certificate"] <= TOL, name
        assert abs(lim["test_acc"] - _svc_gram(f @ f.T, y, ft @ f.T, yt, lam)) <= 0.001, name
    run = comp.runs["ntk"]
    p0 = run.p0
    q, b, a = (t.double().numpy() for t in (p0.q, p0.b, p0.a))
    act = [np.clip(v @ q.T + b, 0, 1) for v in (z, zt)]
    slope = [((s > 0) & (s < 1)) * a for s in act]
    gram = [(act[i] @ act[0].T + (slope[i] @ slope[0].T) * (v @ z.T + 1)) / run.kappa**2
            for i, v in enumerate((z, zt))]
    lim = limit_of(run)
    assert lim["certificate"] <= TOL
    assert abs(lim["test_acc"] - _svc_gram(gram[0], y, gram[1], yt, lam)) <= 0.001


def test_azl_limits_match_ridge():
    cfg = preset_config("azl-resnet").replace(m=40, n=800, T=24, batch=100, azl_drop_epoch=2)
    comp = Comparison(cfg, ("ntk", "rf"), device="cpu")
    comp.run_all()
    run = comp.runs["rf"]
    init, wd = run.world.init, run.cfg.wd
    tr, te = run.world.train, run.world.test
    W, b1, A = (t.double().numpy() for t in (init.W, init.b1, init.A))
    x, xt = tr.x.double().numpy(), te.x.double().numpy()
    n, k = len(x), A.shape[0]
    h, ht = (np.maximum(v @ W.T + b1, 0) for v in (x, xt))
    ridge = Ridge(alpha=n * wd, fit_intercept=False, solver="cholesky").fit(h, tr.y.numpy())
    err = float(((ridge.predict(ht) - te.y.numpy()) ** 2).sum(1).mean())
    lim = limit_of(run)
    assert lim["certificate"] <= TOL and lim["test_err"] == pytest.approx(err, rel=1e-3)
    # NTK: out = A(1{W⁽⁰⁾x + b₁ > 0} ⊙ (Wx + b₁)), W trained with decay: rows (sample, output)
    gates = [(v @ W.T + b1 > 0).astype(float) for v in (x, xt)]
    design = [np.einsum("rm,nm,nd->nrmd", A, g, v).reshape(len(v) * k, -1)
              for g, v in zip(gates, (x, xt), strict=True)]
    offs = [((g * b1) @ A.T).reshape(-1) for g in gates]
    fit = Ridge(alpha=n * wd, fit_intercept=False, solver="cholesky").fit(
        design[0], tr.y.numpy().reshape(-1) - offs[0])
    pred = (fit.predict(design[1]) + offs[1]).reshape(len(xt), k)
    err = float(((pred - te.y.numpy()) ** 2).sum(1).mean())
    lim = limit_of(comp.runs["ntk"])
    assert lim["certificate"] <= TOL and lim["test_err"] == pytest.approx(err, rel=1e-3)


def test_limit_is_cached_per_setting_seed_and_method():
    cfg = preset_config("gfl-xor").replace(n=300, n_test=300, m=10, T=3)
    comp = Comparison(cfg, ("rf",), device="cpu")
    comp.run_all()
    first = limit_of(comp.runs["rf"])
    assert limit_of(comp.runs["rf"]) is first
    other = Comparison(cfg.replace(seed=1), ("rf",), device="cpu")
    other.run_all()
    assert limit_of(other.runs["rf"]) is not first
    assert torch.is_tensor(comp.runs["rf"].prep.x_train)


def test_cli_limits_per_seed_and_no_limits(tmp_path, capsys):
    small = ["--preset", "gfl-xor", "--set", "n=300", "--set", "n_test=300", "--set", "m=10",
             "--set", "T=4", "--methods", "network,rf", "--quiet"]
    out = tmp_path / "r.json"
    assert main(["run", *small, "--seeds", "2", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    lim = report["methods"]["rf"]["limit"]
    assert [s["test_acc"] for s in lim["per_seed"]] and len(lim["per_seed"]) == 2
    assert lim["test_acc"] == pytest.approx(np.mean([s["test_acc"] for s in lim["per_seed"]]))
    assert "limit" not in report["methods"]["network"] and report["timing"]["limits_s"] > 0
    assert "Test % limit" in capsys.readouterr().out
    assert main(["run", *small, "--no-limits", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert "limit" not in report["methods"]["rf"] and "limits_s" not in report["timing"]
    assert "converged limits" not in capsys.readouterr().out


def test_fcb_rf_limit_matches_logistic_regression():
    """FCB trains a by full-batch logistic steps without decay: the limit is λ → 0; its path's
    point at λ = 1e-4 is the logistic regression scikit-learn solves with C = 1/(2λn)."""
    cfg = preset_config("fcb-xor").replace(n=600, n_test=1000, T=4)
    comp = Comparison(cfg, ("rf",), device="cpu")
    comp.run_all()
    run = comp.runs["rf"]
    w = run.w.double().numpy()
    f, ft = (np.maximum(x.double().numpy() @ w.T, 0) for x in (run.x_tr, run.x_te))
    y, yt = run.y_tr.numpy(), run.y_te.numpy()
    clf = LogisticRegression(C=1 / (2 * 1e-4 * len(y)), fit_intercept=False, tol=1e-12,
                             max_iter=100_000).fit(f, y)
    lim = limit_of(run)
    assert lim["certificate"] <= TOL and lim["limit_kind"].startswith("λ → 0")
    at = next(p for p in lim["path"] if p["ridge"] == 1e-4)
    assert abs(at["test_acc"] - _acc(yt, clf.decision_function(ft))) <= 0.001
    # separable: the logistic path's direction is the hard-margin SVM's (scipy's dual QP here)
    assert lim["separable"] and lim["limit_kind"].startswith("λ → 0: max-margin")
    assert abs(lim["test_acc"] - _hard_margin(f @ f.T, y, ft @ f.T, yt)) <= 0.001


def _hard_margin(k, y, k_test, y_test):
    """Test accuracy of the hard-margin SVM without intercept: max Σα − ½αᵀQα over α ≥ 0."""
    q = (y[:, None] * y[None, :]) * k
    res = minimize(lambda a: (a @ q @ a / 2 - a.sum(), q @ a - 1), np.zeros(len(y)), jac=True,
                   method="L-BFGS-B", bounds=[(0, None)] * len(y),
                   options={"maxiter": 50_000, "maxfun": 100_000, "ftol": 1e-15, "gtol": 1e-12})
    return _acc(y_test, k_test @ (res.x * y))


def test_hinge_active_set_finish_is_the_exact_optimum():
    """The intercept-free hinge on explicit features ends on the dual box QP's exact KKT point
    (engine/limits/activeset.py): gap far below TOL (the Newton alone stops near it), the free
    rows' margins exactly 1, and libsvm on the mirrored sample agrees on the objective."""
    from dataclasses import replace

    from engine.limits import hinge
    from engine.limits.ops import Dense
    from engine.limits.problem import Objective

    gen = torch.Generator().manual_seed(3)
    x = torch.randn(300, 40, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] * x[:, 1] + 0.3 * torch.randn(300, generator=gen, dtype=torch.float64))
    obj = replace(Objective("hinge", 1e-3), tie_break=True)
    res = hinge.solve(Dense(x), y, obj)
    assert "active-set" in res["detail"] and res["certificate"] < 1e-8
    m = (y * (x @ res["w"])).numpy()
    on = np.abs(m - 1) < 1e-3
    assert on.sum() > 0 and np.abs(m[on] - 1).max() < 1e-8
    xn, yn = x.numpy(), y.numpy()
    k = np.block([[xn @ xn.T, -xn @ xn.T], [-xn @ xn.T, xn @ xn.T]])
    clf = SVC(C=1 / (4 * 1e-3 * 300), kernel="precomputed", tol=1e-8).fit(
        k, np.concatenate([yn, -yn]))
    w = np.vstack([xn, -xn])[clf.support_].T @ clf.dual_coef_[0]
    ref = float(np.maximum(0, 1 - yn * (xn @ w)).mean() + 1e-3 * w @ w)
    assert abs(res["objective_value"] - ref) <= 1e-6 * ref
