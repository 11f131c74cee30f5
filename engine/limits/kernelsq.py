"""The squared loss in kernel form, for explicit (or closed-form tangent) features wider than
the sample (n < p, p > DIRECT_P) whose n×n Gram fits GRAM_BYTES: w = Xᵀβ, so the ridge point is
one Cholesky of K + nλ'I and the minimum-norm least-squares fit (λ → 0) a pivoted Cholesky of
K. Both are certified like the primal solves: ‖∇P(w)‖/‖∇P(0)‖ through X w and Xᵀ u (the
tangent's closed form, not K). gfl-multi-index's NTK (n = 8 000, p = 31 000): matrix-free CG
took > 8 min at λ = 1e-6 … 1e-8; here one 8 000² Gram (4 s) and a factorization per point."""

from __future__ import annotations

import torch

from .ops import DT, Dense
from .problem import TOL, Objective
from .smooth import DIRECT_P, Centred
from .svm import GRAM_BYTES

RANK_TOL = 1e-12  # the pivoted Cholesky stops where the pivots fall below this × max diagonal


def applies(op, obj: Objective) -> bool:
    """Squared loss on explicit features wider than both DIRECT_P and the sample, n² within
    GRAM_BYTES."""
    return (obj.loss == "squared" and isinstance(op, Dense) and op.p > max(op.n, DIRECT_P)
            and op.n * op.n * 8 <= GRAM_BYTES)


def _setup(op, y, obj):
    """(the operator, the fit target as n×k, the Gram): the intercept profiled out by centring."""
    y = y.to(DT).reshape(len(y), -1)
    k = op.gram()
    if obj.intercept:
        k = k - k.mean(0) - k.mean(1, keepdim=True) + k.mean()
        return Centred(op), y - y.mean(0), k
    return op, y, k


def _result(op, a, y, obj, beta, shift, detail) -> dict:
    """w = aᵀβ certified on the normal equations (aᵀa/n + shift) w = aᵀy/n through a's own
    products (y: the raw target, n or n×k)."""
    y2 = y.to(DT).reshape(len(y), -1)
    yc = y2 - y2.mean(0) if obj.intercept else y2
    w = _cols(a.rmv, beta)
    b = _cols(a.rmv, yc) / len(y)
    grad = _cols(a.rmv, _cols(a.mv, w)) / len(y) + shift * w - b
    cert = float(grad.norm() / b.norm().clamp_min(1e-300))
    c = (y2 - _cols(op.mv, w)).mean(0) if obj.intercept else None
    if y.dim() == 1:
        w, c = w[:, 0], None if c is None else c[0]
    return {"w": w, "c": c, "certificate": cert, "certificate_kind": "relative gradient norm",
            "iterations": 1, "converged": cert <= TOL, "detail": detail}


def _cols(apply, m: torch.Tensor) -> torch.Tensor:
    """apply (an operator's mv or rmv, which take vectors) to each column of m."""
    return torch.stack([apply(m[:, j]) for j in range(m.shape[1])], 1)


def ridge(op, y: torch.Tensor, obj: Objective) -> dict:
    """min scale·mean‖Xw + c − y‖² + λ‖w‖² as (K + nλ/scale I) β = y, w = Xᵀβ: one Cholesky."""
    a, yc, k = _setup(op, y, obj)
    shift = obj.lam / obj.scale
    shifted = k.clone()
    shifted.diagonal().add_(len(yc) * shift)
    low, info = torch.linalg.cholesky_ex(shifted)
    del shifted
    if int(info) != 0:  # K + nλI numerically singular (λ below K's rounding): the pivoted form
        return min_norm(op, y, obj, shift)
    beta = torch.cholesky_solve(yc, low)
    return _result(op, a, y, obj, beta, shift, "Cholesky of the n×n kernel K + nλI (w = Xᵀβ)")


def min_norm(op, y: torch.Tensor, obj: Objective, shift: float = 0.0) -> dict:
    """The minimum-norm least-squares fit (λ → 0): K's pivoted Cholesky PᵀKP = LLᵀ, L = [L₁; L₂]
    of rank r (pivots ≥ RANK_TOL × max diagonal), fits f = Lc projecting y onto K's range, read
    as β = K₁₁⁻¹ f₁ on the r pivot rows."""
    from scipy.linalg.lapack import dpstrf  # here: `import engine.cli` stays free of scipy

    a, yc, k = _setup(op, y, obj)
    floor = RANK_TOL * float(k.diagonal().max().clamp_min(1e-300))
    fac, piv, rank, _ = dpstrf(k.numpy(), lower=1, tol=floor)
    piv = torch.from_numpy(piv.astype("int64") - 1)
    low = torch.from_numpy(fac).tril_()[:, :rank]
    del fac
    f = _project(low[:rank], low[rank:], yc[piv])
    beta = torch.zeros_like(yc)
    beta[piv[:rank]] = torch.cholesky_solve(f, low[:rank])
    detail = (f"minimum-norm least squares in kernel form (pivoted Cholesky of the n×n K, "
              f"rank {rank} of {len(yc)}; w = Xᵀβ)")
    return _result(op, a, y, obj, beta, shift, detail)


def _project(top: torch.Tensor, rest: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """L₁'s part g of the projection of y onto range([L₁; L₂]), L₁ r×r lower triangular: with
    C = L₂L₁⁻¹, g = (I + CᵀC)⁻¹(y₁ + Cᵀy₂) by Woodbury (the n − r rows are few); every
    eigenvalue of I + CᵀC is ≥ 1, so this is well conditioned however ill L₁ is."""
    r = len(top)
    ct = torch.linalg.solve_triangular(top.T, rest.T, upper=True)  # Cᵀ, r × (n − r)
    h = y[:r] + ct @ y[r:]
    if ct.shape[1] == 0:
        return h
    small = torch.eye(ct.shape[1], dtype=DT) + ct.T @ ct
    return h - ct @ torch.linalg.solve(small, ct.T @ h)
