"""The limits' building blocks on tiny problems: operators agree with their explicit matrices,
the Gram embedding keeps inner products, and the hinge certificate is a real duality gap."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.svm import SVC

from engine.limits import hinge, smooth, svm
from engine.limits.ops import Dense, FuncLinear, Tangent, kernel_embedding
from engine.limits.path import _certified
from engine.limits.problem import TOL, Objective, Problem
from engine.limits.sources import TangentDense

DT = torch.float64


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_tangent_operator_matches_its_explicit_features():
    g = _gen()
    for bias in (True, False):
        t = Tangent(torch.rand(9, 4, generator=g), torch.randn(9, 4, generator=g),
                    torch.randn(9, 5, generator=g), kappa=2.0, fold=1.3, bias=bias)
        x = t.dense().x
        w, u = torch.randn(t.p, generator=g, dtype=DT), torch.randn(9, generator=g, dtype=DT)
        assert torch.allclose(x @ w, t.mv(w)) and torch.allclose(x.T @ u, t.rmv(u))
        assert torch.allclose(x @ x.T, t.gram(t))


def test_func_linear_is_the_jacobian_of_a_linear_model():
    g = _gen(1)
    a, x = torch.randn(3, 4, generator=g, dtype=DT), torch.randn(6, 5, generator=g, dtype=DT)
    op = FuncLinear(lambda w: (x @ w.T) @ a.T, [torch.Size((4, 5))], 6 * 3)
    w = torch.randn(20, generator=g, dtype=DT)
    assert torch.allclose(op.mv(w), ((x @ w.view(4, 5).T) @ a.T).reshape(-1))
    u = torch.randn(18, generator=g, dtype=DT)
    jac = torch.stack([op.mv(e) for e in torch.eye(20, dtype=DT)], 1)
    assert torch.allclose(op.rmv(u), jac.T @ u)


@pytest.mark.parametrize("p", [30, 3])  # a full-rank Gram (Cholesky), a rank-3 one (pivoted)
def test_kernel_embedding_keeps_inner_products(p):
    g = _gen(2)
    x, xt = torch.randn(8, p, generator=g, dtype=DT), torch.randn(5, p, generator=g, dtype=DT)
    phi, phi_t = kernel_embedding(x @ x.T, xt @ x.T)
    assert phi.p == min(p, 8)
    assert torch.allclose(phi.x @ phi.x.T, x @ x.T) and torch.allclose(phi_t.mv(phi.x.T), xt @ x.T)


def test_kernel_embedding_of_repeated_samples_factors_the_distinct_rows():
    """Repeated samples (gfl-parity-blocks: 46 of 4000) make K singular: the embedding has one
    column per distinct sample and each repeat gets exactly its sample's row (the plain
    Cholesky of the distinct rows' Gram, not the pivoted one of K)."""
    g = _gen(3)
    x, xt = torch.randn(10, 30, generator=g, dtype=DT), torch.randn(5, 30, generator=g, dtype=DT)
    x = torch.cat([x, x[[2, 7, 2]]])  # rows 10, 11, 12 repeat 2, 7, 2
    phi, phi_t = kernel_embedding(x @ x.T, xt @ x.T)
    assert phi.p == 10
    assert all(torch.equal(phi.x[i], phi.x[j]) for i, j in ((10, 2), (11, 7), (12, 2)))
    assert torch.allclose(phi.x @ phi.x.T, x @ x.T) and torch.allclose(phi_t.mv(phi.x.T), xt @ x.T)


def test_hinge_limit_matches_libsvm_with_an_unregularised_intercept():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 6))
    y = np.sign(x[:, 0] - 0.5 * x[:, 1] + 0.8 + 0.7 * rng.standard_normal(300))
    lam = 1e-3
    res = hinge.solve(Dense(torch.tensor(x)), torch.tensor(y), Objective("hinge", lam, True))
    assert res["converged"] and res["certificate"] <= TOL
    clf = SVC(C=1 / (2 * lam * len(y)), kernel="linear", tol=1e-8).fit(x, y)
    w, c = clf.coef_.ravel(), clf.intercept_[0]
    ref = np.maximum(0, 1 - y * (x @ w + c)).mean() + lam * w @ w
    # certified within TOL·P of the optimum, and libsvm's point is no better than that
    assert res["objective_value"] <= ref * (1 + TOL)
    assert ref >= res["objective_value"] * (1 - TOL)


def test_ridge_certificate_is_the_relative_gradient_norm():
    g = _gen(4)
    x, y = torch.randn(50, 7, generator=g, dtype=DT), torch.randn(50, 2, generator=g, dtype=DT)
    res = smooth.ridge(Dense(x), y, Objective("squared", 0.1, scale=0.5))
    exact = torch.linalg.solve(x.T @ x / 50 + 0.2 * torch.eye(7, dtype=DT), x.T @ y / 50)
    assert res["certificate"] <= TOL and torch.allclose(res["w"], exact)


def _tangent(g, n: int, bias: bool) -> Tangent:
    return Tangent(torch.rand(n, 4, generator=g), torch.randn(n, 4, generator=g),
                   torch.randn(n, 5, generator=g), kappa=2.0, fold=1.3, bias=bias)


@pytest.mark.parametrize("bias", [True, False])
def test_tangent_dense_gram_is_its_features_gram(bias):
    """The closed-form Gram libsvm is given (blocks above the diagonal, mirrored) is X Xᵀ."""
    t = _tangent(_gen(5), 23, bias)
    x = t.dense().x
    assert torch.allclose(TangentDense(t).gram(block=7), x @ x.T)
    assert torch.allclose(TangentDense(t).gram(), x @ x.T)


def test_libsvm_on_the_closed_form_gram_equals_svc_on_the_features():
    """The own-decay hinge (intercept) by libsvm on TangentDense's Gram: SVC fitted here on
    X Xᵀ gives the same test accuracy (0.1 point) and the engine's answer is certified."""
    g = _gen(6)
    t, tt = _tangent(g, 400, True), _tangent(g, 300, True)
    x, xt = t.dense().x, tt.dense().x
    w_true = torch.randn(t.p, generator=g, dtype=DT)
    y, yt = torch.sign(x @ w_true + 0.3), torch.sign(xt @ w_true + 0.3)
    obj = Objective("hinge", 1e-3, True)
    prob = Problem(TangentDense(t), Dense(xt), y, yt, obj)
    res = _certified(prob, obj, svm.libsvm(prob.train, y, obj))
    assert res["converged"] and res["certificate"] <= TOL
    acc = float(((yt * (xt @ res["w"] + res["c"])) > 0).double().mean())
    clf = SVC(kernel="precomputed", C=1 / (2 * obj.lam * len(y)), tol=1e-8)
    ref = float(np.mean(clf.fit((x @ x.T).numpy(), y.numpy()).predict((xt @ x.T).numpy())
                        == yt.numpy()))
    assert abs(acc - ref) <= 0.001
