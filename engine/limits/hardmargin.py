"""The λ → 0 end of the intercept-free hinge path solved exactly: the hard-margin SVM
min ‖w‖ s.t. y_i⟨w, x_i⟩ ≥ 1 as least-distance programming (Lawson & Hanson, ch. 23): the NNLS
min_{u ≥ 0} ‖E u − e‖ with E = [Gᵀ; 1ᵀ], G = diag(y) X, e the last unit vector (scipy's nnls,
active-set: its iterations ≈ the support vectors). Its residual r = E u − e decides
separability: r = 0 (E u = e: a convex combination of the y_i x_i is 0, Farkas) means no w
separates; otherwise w = −r_x/r_last and α = u/(1 − Σu) is the hard-margin dual. Where
p + 1 ≥ n it runs on the n×n Cholesky factor R of EᵀE = Q + 11ᵀ (Q = G Gᵀ), which needs only
the Gram. The hinge optimum at every λ ≤ λ_max = min_i s_i/(2nα_i) is this w (α_λ = 2λα is
then dual-feasible with zero gap), so it is certified by the common duality gap at such λ."""

from __future__ import annotations

import numpy as np
import torch

from . import svm
from .ops import DT, Dense
from .problem import Objective

ROWS = 4000  # the n×n Cholesky form is used up to this many rows
FARKAS = 1e-9  # ‖Σ ū_i y_i x_i‖ / max‖x_i‖ below this (ū ≥ 0, Σū = 1): not separable


def fits(op, obj: Objective) -> bool:
    """Explicit features, no intercept (with one, min ‖w‖ leaves c free: not an LDP)."""
    return isinstance(op, Dense) and not obj.intercept and (op.p + 1 < op.n or op.n <= ROWS)


def solve(op: Dense, y: torch.Tensor) -> dict | None:
    """{separable: False} with its Farkas residual, or {separable: True, w, alpha (the
    hard-margin dual, w = Σ α_i y_i x_i), min_margin}; None where neither is decided."""
    from scipy.optimize import nnls  # here: `import engine.cli` stays free of scipy

    y = y.to(DT)
    g = op.x * y[:, None]
    n, p = g.shape
    e, target = _system(op, g, y)
    u = torch.from_numpy(nnls(e, target, maxiter=50 * n)[0])
    total = float(u.sum())
    gu = g.T @ u
    scale = float(op.x.norm(dim=1).max().clamp_min(1e-300))
    if total > 0 and float(gu.norm()) / total <= FARKAS * scale:
        return {"separable": False, "farkas": float(gu.norm()) / total / scale}
    if total >= 1.0:
        return None
    alpha = u / (1.0 - total)
    w = gu / (1.0 - total)
    margin = float((g @ w).min())
    if margin <= 0:
        return None
    return {"separable": True, "w": w / min(margin, 1.0), "alpha": alpha / min(margin, 1.0),
            "min_margin": margin, "iterations": int((u > 0).sum())}


def _system(op: Dense, g: torch.Tensor, y: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """(E, e) of the NNLS: E = [Gᵀ; 1ᵀ] where it has fewer rows than n, else (R, R⁻ᵀ1) with
    RᵀR = Q + 11ᵀ from the shared Gram (same normal equations, n rows)."""
    n, p = g.shape
    if p + 1 < n or n > ROWS:
        e = torch.cat([g.T, torch.ones(1, n, dtype=DT)])
        target = torch.zeros(p + 1, dtype=DT)
        target[-1] = 1.0
        return e.numpy(), target.numpy()
    q = op.gram() * (y[:, None] * y[None, :]) + 1.0
    low, info = torch.linalg.cholesky_ex(q)
    if int(info) != 0:  # Q + 11ᵀ singular: the explicit system
        e = torch.cat([g.T, torch.ones(1, n, dtype=DT)])
        target = torch.zeros(p + 1, dtype=DT)
        target[-1] = 1.0
        return e.numpy(), target.numpy()
    rhs = torch.linalg.solve_triangular(low, torch.ones(n, 1, dtype=DT), upper=False)[:, 0]
    return low.T.contiguous().numpy(), rhs.numpy()


def lam_max(alpha: torch.Tensor, box: torch.Tensor) -> float:
    """The largest λ whose hinge optimum is the hard-margin w: 2λα_i ≤ s_i/n for every i."""
    on = alpha > 0
    return float((box[on] / (2 * alpha[on])).min()) if bool(on.any()) else float("inf")


def certify(op, y: torch.Tensor, obj: Objective, hard: dict, lam: float) -> tuple[float, float]:
    """(P(w), relative duality gap) of the hard-margin w as the hinge solution at lam ≤ λ_max,
    with the dual point 2·lam·α (the common certificate, engine/limits/svm.gap_at)."""
    at = Objective("hinge", lam, False, obj.class_weights)
    primal = svm.primal_value(op, y, at, hard["w"], None)
    return primal, svm.gap_at(op, y, at, primal, 2 * lam * hard["alpha"])
