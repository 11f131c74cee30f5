"""The squared loss's direct solve shares XᵀX across path points, with and without an intercept."""

import numpy as np
import torch

from engine.limits import smooth
from engine.limits.ops import Dense
from engine.limits.problem import Objective


def _numpy_ridge(x, y, lam, intercept):
    """min mean‖Xw + c − y‖² + λ‖w‖² by numpy, the intercept profiled out by centring."""
    if intercept:
        x, y = x - x.mean(0), y - y.mean(0)
    return np.linalg.solve(x.T @ x / len(y) + lam * np.eye(x.shape[1]), x.T @ y / len(y))


def test_ridge_points_on_one_operator_share_xtx_without_mixing_the_intercept():
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(300, 40, generator=gen, dtype=torch.float64) + 2.0  # a mean to centre
    y = torch.randn(300, generator=gen, dtype=torch.float64)
    op = Dense(x)
    for lam in (1e-2, 1e-4):
        for intercept in (True, False):
            res = smooth.ridge(op, y, Objective("squared", lam, intercept))
            want = _numpy_ridge(x.numpy(), y.numpy(), lam, intercept)
            assert np.allclose(res["w"].numpy(), want, rtol=1e-9, atol=1e-12), (lam, intercept)
            assert res["converged"]
    # formed once per intercept choice, then read by each point
    assert sorted(op._normal) == [False, True]


def test_one_cg_serves_a_vector_and_columns_with_and_without_a_preconditioner():
    """engine/limits/cg: a vector (the hinge Newton's direction) and several columns (the ridge's
    outputs) reach numpy's solve; a cap too small reports not converged."""
    from engine.limits.cg import cg

    gen = torch.Generator().manual_seed(5)
    m = torch.randn(60, 60, generator=gen, dtype=torch.float64)
    a = m @ m.T + torch.eye(60, dtype=torch.float64)
    want = np.linalg.solve(a.numpy(), np.eye(60)[:, :2])
    for b in (torch.eye(60, dtype=torch.float64)[:, 0], torch.eye(60, dtype=torch.float64)[:, :2]):
        x, products, ok = cg(lambda v: a @ v, b, 1e-12, 500)
        assert ok and 0 < products <= 500
        np.testing.assert_allclose(x.numpy(), want[:, 0] if b.dim() == 1 else want, rtol=1e-7)
    jacobi = 1.0 / a.diagonal()
    x, few, ok = cg(lambda v: a @ v, b, 1e-12, 500, precond=lambda r: jacobi[:, None] * r)
    assert ok
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-7)
    assert cg(lambda v: a @ v, b, 1e-12, 3)[1:] == (3, False)
