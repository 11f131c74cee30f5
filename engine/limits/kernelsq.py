"""The squared loss in kernel form, for explicit (or closed-form tangent) features wider than
the sample (n < p, p > DIRECT_P) whose n×n Gram fits GRAM_BYTES: w = Xᵀβ, so the ridge point is
one Cholesky of K + nλ'I and the minimum-norm least-squares fit (λ → 0) a pivoted Cholesky of
K. Both are certified like the primal solves: ‖∇P(w)‖/‖∇P(0)‖ through X w and Xᵀ u (the
tangent's closed form, not K). gfl-multi-index's NTK (n = 8 000, p = 31 000): matrix-free CG
took > 8 min at λ = 1e-6 … 1e-8; here one 8 000² Gram (4 s) and a factorization per point."""

from __future__ import annotations

import torch

from .cg import cg
from .ops import DT, Dense
from .problem import TOL, Objective
from .smooth import DIRECT_P, Centred
from .svm import GRAM_BYTES

RANK_TOL = 1e-12  # the pivoted Cholesky stops where the pivots fall below this × max diagonal
# float32's Cholesky preconditions float64 CG where trace(K)/(nλ) ≤ this (κ·2⁻²⁴ ≤ 0.5: the
# factor's error small against K + nλI, CG converging in a handful of products)
F32_KAPPA = 2.0**23
CG_TOL, CG_CAP = 1e-11, 40  # the mixed solve's relative residual, products before giving up


def applies(op, obj: Objective) -> bool:
    """Squared loss on explicit features wider than both DIRECT_P and the sample, its n×n
    matrices within GRAM_BYTES."""
    return (obj.loss == "squared" and isinstance(op, Dense) and op.p > max(op.n, DIRECT_P)
            and fits(op.n))


def fits(n: int) -> bool:
    """Whether the solve's peak fits GRAM_BYTES: the kept float64 Gram and one working n×n
    (the factor, made in place; gfl-multi-index, n = 8 000: 2 × 512 MB)."""
    return 2 * n * n * 8 <= GRAM_BYTES


def _setup(op, y, obj):
    """(the operator, the fit target as n×k, the Gram): the intercept profiled out by centring,
    done in place once per operator (every path point shares it; no second n×n copy)."""
    y = y.to(DT).reshape(len(y), -1)
    if not obj.intercept:
        return op, y, op.gram()
    k = getattr(op, "_centred_gram", None)
    if k is None:
        k = op.gram()
        mean0, mean1, mean = k.mean(0), k.mean(1, keepdim=True), k.mean()
        k.sub_(mean0).sub_(mean1).add_(mean)  # the same sums as k − mean0 − mean1 + mean
        op._gram, op._centred_gram = None, k  # the raw Gram now overwritten: not kept as such
    return Centred(op), y - y.mean(0), k


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
    """min scale·mean‖Xw + c − y‖² + λ‖w‖² as (K + nλ/scale I) β = y, w = Xᵀβ: where K + nλI is
    well conditioned for float32, its float32 Cholesky preconditioning float64 CG (half the
    flops, a few products of K); else (or if that CG stalls) one float64 Cholesky, in place."""
    a, yc, k = _setup(op, y, obj)
    shift = obj.lam / obj.scale
    nshift = len(yc) * shift
    beta, steps = _mixed(k, nshift, yc)
    how = f"float32 Cholesky + {steps} float64 CG steps"
    if beta is None:
        beta, how = _cholesky(k, nshift, yc), "Cholesky"
    if beta is None:  # K + nλI numerically singular (λ below K's rounding): the pivoted form
        return min_norm(op, y, obj, shift)
    return _result(op, a, y, obj, beta, shift, f"{how} of the n×n kernel K + nλI (w = Xᵀβ)")


def _factor(k, nshift: float, dtype):
    """K + nshift I's Cholesky in dtype by LAPACK, on one column-major working copy factored in
    place, as its solve v ↦ (K + nshift I)⁻¹ v (LAPACK's potrs reads the factor where it lies;
    torch's cholesky_solve would copy it: +512 MB); None where not positive definite."""
    from scipy.linalg import lapack  # here: `import engine.cli` stays free of scipy

    work = k.numpy().T.astype(dtype, order="F")  # K symmetric: its transpose is column-major
    work.flat[::len(work) + 1] += nshift
    potrf, potrs = lapack.get_lapack_funcs(("potrf", "potrs"), (work,))
    low, info = potrf(work, lower=1, clean=0, overwrite_a=1)  # BLAS held by limit_of
    if info != 0:
        return None

    def solve(v: torch.Tensor) -> torch.Tensor:
        out, _ = potrs(low, v.numpy().astype(dtype), lower=1)
        return torch.from_numpy(out).to(DT)

    return solve


def _cholesky(k, nshift: float, yc):
    """(K + nshift I)⁻¹ yc by the float64 Cholesky (peak K + one n×n); None where not positive
    definite."""
    solve = _factor(k, nshift, "float64")
    return None if solve is None else solve(yc)


def _mixed(k, nshift: float, yc):
    """(K + nshift I)⁻¹ yc by CG in float64 preconditioned with K + nshift I's float32
    Cholesky, tried only where trace(K)/nshift (≥ the condition number − 1) keeps float32's
    rounding small against it; (None, 0) where it does not apply or does not converge."""
    if float(k.diagonal().sum()) > F32_KAPPA * nshift:
        return None, 0
    solve = _factor(k, nshift, "float32")
    if solve is None:
        return None, 0
    x, steps, ok = cg(lambda v: k @ v + nshift * v, yc, CG_TOL, CG_CAP, precond=solve)
    return (x, steps) if ok else (None, CG_CAP)


def min_norm(op, y: torch.Tensor, obj: Objective, shift: float = 0.0) -> dict:
    """The minimum-norm least-squares fit (λ → 0): K's pivoted Cholesky PᵀKP = LLᵀ, L = [L₁; L₂]
    of rank r (pivots ≥ RANK_TOL × max diagonal), fits f = Lc projecting y onto K's range, read
    as β = K₁₁⁻¹ f₁ on the r pivot rows."""
    from scipy.linalg.lapack import dpstrf  # here: `import engine.cli` stays free of scipy

    a, yc, k = _setup(op, y, obj)
    floor = RANK_TOL * float(k.diagonal().max().clamp_min(1e-300))
    # factored in place (K symmetric: its transpose is column-major), the Gram dropped from the
    # operator: the path's last use of it, and no second n×n beside it (a later use rebuilds it)
    fac, piv, rank, _ = dpstrf(k.numpy().T, lower=1, tol=floor, overwrite_a=1)
    op._gram = op._centred_gram = None
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
    from scipy.linalg import solve_triangular  # here: `import engine.cli` stays free of scipy

    r = len(top)
    if len(rest) == 0:  # K of full rank: y lies in its range
        return y[:r]
    # Cᵀ = L₁⁻ᵀL₂ᵀ, r × (n − r), by LAPACK on the column-major factor as it lies (torch's solve
    # took 3.1 s on gfl-multi-index's 7 530² factor, LAPACK's trtrs here 1.5× faster)
    ct = torch.from_numpy(solve_triangular(top.numpy(), rest.numpy().T, trans="T", lower=True,
                                           check_finite=False))
    h = y[:r] + ct @ y[r:]
    small = torch.eye(ct.shape[1], dtype=DT) + ct.T @ ct
    return h - ct @ torch.linalg.solve(small, ct.T @ h)
