"""The squared loss in kernel form (engine/limits/kernelsq.py): where the features are wider
than the sample and the n×n Gram fits (gfl-multi-index's NTK, n = 8 000, p = 31 000), the λ → 0
limit is the minimum-norm least-squares fit itself, not the path's smallest ridge, and each path
point is the ridge solution — both held to numpy's solves on the explicit features."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.compare import Comparison
from engine.limits import kernelsq, limit_of, sources
from engine.limits.cg import cg
from engine.limits.ops import Dense
from engine.limits.path import PATH
from engine.limits.problem import TOL, Objective
from engine.presets import preset_config
from engine.regression import mse_ratio


def _min_norm(x: np.ndarray, y: np.ndarray, intercept: bool) -> tuple[np.ndarray, float]:
    """numpy's minimum-norm least squares (SVD), the intercept profiled out by centring."""
    if not intercept:
        return np.linalg.lstsq(x, y, rcond=None)[0], 0.0
    mx, my = x.mean(0), y.mean(0)
    w = np.linalg.lstsq(x - mx, y - my, rcond=None)[0]
    return w, float(my - mx @ w)


@pytest.mark.parametrize("intercept", [False, True])
def test_min_norm_on_a_singular_gram_equals_lstsq(intercept):
    """Repeated samples with different targets: K singular, y outside its range; the pivoted
    Cholesky's projection gives numpy's minimum-norm fit, and its gradient certificate."""
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(60, 150, generator=gen, dtype=torch.float64)
    x = torch.cat([x, x[:15]])  # 15 repeats: rank 60 of 75
    y = torch.randn(75, generator=gen, dtype=torch.float64)
    res = kernelsq.min_norm(Dense(x), y, Objective("squared", 0.0, intercept))
    w, c = _min_norm(x.numpy(), y.numpy(), intercept)
    assert res["certificate"] <= TOL  # centring takes one rank
    assert f"rank {60 - intercept} of 75" in res["detail"]
    np.testing.assert_allclose(res["w"].numpy(), w, atol=1e-8)
    assert abs(float(res["c"] if intercept else 0.0) - c) <= 1e-8


def test_ridge_in_kernel_form_equals_the_primal_solve():
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(50, 120, generator=gen, dtype=torch.float64)
    y = torch.randn(50, 2, generator=gen, dtype=torch.float64)  # two outputs
    obj = Objective("squared", 1e-3, scale=0.5)
    res = kernelsq.ridge(Dense(x), y, obj)
    n, a = 50, x.numpy()
    w = np.linalg.solve(a.T @ a / n + 1e-3 / 0.5 * np.eye(120), a.T @ y.numpy() / n)
    assert res["certificate"] <= TOL
    np.testing.assert_allclose(res["w"].numpy(), w, atol=1e-9)


def test_gfl_ntk_limit_is_the_min_norm_fit(monkeypatch):
    """gfl-multi-index's NTK made small (n = 300, 40 units × 30 inputs: p = 1 200 > n) with the
    kernel form forced by lowering the width limits: the λ → 0 limit equals numpy's
    minimum-norm fit on the explicit tangent features, the 1e-4 path point numpy's ridge (the
    old code gave the matrix-free path's end at λ = 1e-8 instead)."""
    monkeypatch.setattr(sources, "DIRECT_WIDTH", 100)
    monkeypatch.setattr(kernelsq, "DIRECT_P", 100)
    cfg = preset_config("gfl-multi-index").replace(n=300, n_test=400, m=10, T=3, batch=100)
    comp = Comparison(cfg, ("ntk",), device="cpu")
    comp.run_all()
    run = comp.runs["ntk"]
    lim = limit_of(run)
    assert lim["form"].startswith("kernel form") and lim["ridge"] == 0.0, lim
    assert lim["certificate"] <= TOL and lim["converged"]
    net, prep = run.learner.net0, run.prep
    feats = []
    for x in (prep.x_train, prep.x_test):
        x = x.double().numpy()
        pre = x @ net.w.double().numpy().T + net.b.double().numpy()
        slope = (pre > 0) * net.a.double().numpy()
        feats.append(np.hstack([np.maximum(pre, 0), (slope[:, :, None] * x[:, None]).reshape(
            len(x), -1)]))
    y = prep.fit_train.double().numpy()
    assert feats[0].shape[1] > len(y)
    rho, beta = prep.offset
    off = float(rho) + prep.x_test.double().numpy() @ beta.double().numpy()

    def test_value(w):
        return mse_ratio(torch.from_numpy(feats[1] @ w + off), prep.y_test.double())

    assert abs(lim["test_mse_ratio"] - test_value(_min_norm(feats[0], y, False)[0])) <= 1e-6
    a, n = feats[0], len(y)
    ridge = np.linalg.solve(a.T @ a / n + 1e-4 * np.eye(a.shape[1]), a.T @ y / n)
    point = next(p for p in lim["path"] if p["ridge"] == 1e-4)
    assert abs(point["test_mse_ratio"] - test_value(ridge)) <= 1e-6
    assert [p["ridge"] for p in lim["path"]] == list(PATH)


def _numpy_ridge(x: np.ndarray, y: np.ndarray, shift: float, intercept: bool) -> np.ndarray:
    """numpy's ridge min mean‖aw − y‖² + shift‖w‖² as an augmented least squares (stable at
    small shift, unlike the normal equations), centred with an intercept."""
    if intercept:
        x, y = x - x.mean(0), y - y.mean(0)
    n, p = x.shape
    rows = np.vstack([x / np.sqrt(n), np.sqrt(shift) * np.eye(p)])
    target = np.concatenate([y / np.sqrt(n), np.zeros((p,) + y.shape[1:])])
    return np.linalg.lstsq(rows, target, rcond=None)[0]


def test_path_points_on_one_operator_share_the_centred_gram():
    """Every path point on one operator with an intercept: the well-conditioned ones by the
    float32-preconditioned CG, the small λ by the float64 Cholesky, each numpy's ridge; the
    Gram centred once, in place (one n×n kept, not a centred copy per point)."""
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(60, 140, generator=gen, dtype=torch.float64) * 3 + 1
    y = torch.randn(60, generator=gen, dtype=torch.float64)
    op = Dense(x)
    for lam, how in ((1e-2, "float32 Cholesky + "), (1e-3, "float32 Cholesky + "),
                     (1e-6, "Cholesky of"), (1e-10, "Cholesky of")):
        res = kernelsq.ridge(op, y, Objective("squared", lam, True))
        assert res["detail"].startswith(how), (lam, res["detail"])
        assert res["certificate"] <= TOL
        w = _numpy_ridge(x.numpy(), y.numpy(), lam, True)
        np.testing.assert_allclose(res["w"].numpy(), w, rtol=1e-7, atol=1e-9)
        assert op._gram is None and op._centred_gram.shape == (60, 60)
        np.testing.assert_allclose(op._centred_gram.sum(0).numpy(), 0.0, atol=1e-9)
    # λ → 0 factors the kept Gram in place and drops it; a later point rebuilds it
    end = kernelsq.min_norm(op, y, Objective("squared", 0.0, True))
    assert op._gram is None and op._centred_gram is None
    np.testing.assert_allclose(end["w"].numpy(), _min_norm(x.numpy(), y.numpy(), True)[0],
                               atol=1e-8)
    again = kernelsq.ridge(op, y, Objective("squared", 1e-2, True))
    np.testing.assert_allclose(again["w"].numpy(), _numpy_ridge(x.numpy(), y.numpy(), 1e-2, True),
                               rtol=1e-7, atol=1e-9)


def test_mixed_solve_that_stalls_falls_back_to_the_float64_cholesky(monkeypatch):
    """CG given no products (as where float32's factor is too rough) is dropped for the float64
    Cholesky: the same ridge point."""
    monkeypatch.setattr(kernelsq, "CG_CAP", 0)
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(40, 90, generator=gen, dtype=torch.float64)
    y = torch.randn(40, 2, generator=gen, dtype=torch.float64)
    res = kernelsq.ridge(Dense(x), y, Objective("squared", 1e-2, False))
    assert res["detail"].startswith("Cholesky of"), res["detail"]
    np.testing.assert_allclose(res["w"].numpy(), _numpy_ridge(x.numpy(), y.numpy(), 1e-2, False),
                               atol=1e-10)


def test_pcg_preconditioned_by_a_rough_factor_reaches_the_float64_solve():
    """The CG itself: SPD A with a float32 factor of A as preconditioner, several right-hand
    sides at once, each column numpy's solve."""
    gen = torch.Generator().manual_seed(7)
    m = torch.randn(80, 80, generator=gen, dtype=torch.float64)
    a = m @ m.T + 1e-1 * torch.eye(80, dtype=torch.float64)
    b = torch.randn(80, 3, generator=gen, dtype=torch.float64)
    low = torch.linalg.cholesky(a.float())
    x, steps, ok = cg(lambda v: a @ v, b, kernelsq.CG_TOL, kernelsq.CG_CAP,
                      precond=lambda r: torch.cholesky_solve(r.float(), low).double())
    assert ok and 0 < steps <= kernelsq.CG_CAP
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), rtol=1e-8)


def test_kernel_form_needs_room_for_the_gram_and_its_factor(monkeypatch):
    """The size rule counts the kept Gram and one working n×n (the old rule n² alone let n
    up to √2 × what the 1 GiB holds)."""
    monkeypatch.setattr(kernelsq, "DIRECT_P", 10)
    monkeypatch.setattr(kernelsq, "GRAM_BYTES", int(1.5 * 40 * 40 * 8))
    op, obj = Dense(torch.zeros(40, 60, dtype=torch.float64)), Objective("squared", 0.0)
    assert not kernelsq.applies(op, obj)
    monkeypatch.setattr(kernelsq, "GRAM_BYTES", 2 * 40 * 40 * 8)
    assert kernelsq.applies(op, obj)
