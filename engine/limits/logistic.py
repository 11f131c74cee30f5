"""The logistic readout without intercept on explicit features by Newton's method with the exact
Hessian XᵀDX/n + 2λI (D = σ(m)σ(−m)), solved as the p×p system or, where cheaper, by Woodbury
on the n×n one sliced from the shared Gram (engine/limits/hinge._dense_solve), with Armijo
backtracking; warm-started from the previous path point. L-BFGS took 916 steps (13.7 s) at
λ = 1e-8 on fcb-xor's NTK; Newton takes tens. Certificate: the relative gradient norm, as for
L-BFGS (engine/limits/smooth.logistic)."""

from __future__ import annotations

import torch

from .hinge import _dense_solve
from .ops import DT, Dense
from .problem import TOL, Objective, check_cancel

STEPS = 200
GRAM_ROWS = 4000  # the shared n×n Gram is formed up to this many rows


def fits(op, obj: Objective) -> bool:
    """Explicit features, no intercept, unweighted."""
    return isinstance(op, Dense) and not obj.intercept and obj.class_weights is None


def _value(op: Dense, y, lam: float, w):
    m = y * op.mv(w)
    return float(torch.nn.functional.softplus(-m).sum()) / len(y) + lam * float(w @ w), m


def solve(op: Dense, y: torch.Tensor, obj: Objective, start: torch.Tensor | None = None) -> dict:
    """min mean log(1 + e^{−y⟨w, x⟩}) + λ‖w‖² to ‖∇P(w)‖ ≤ TOL/100 · ‖∇P(0)‖."""
    y, lam, n = y.to(DT), obj.lam, len(y)
    g0 = float(op.rmv(-y / (2 * n)).norm())  # ∇P(0) = −Xᵀy σ(0)/n
    w = torch.zeros(op.p, dtype=DT) if start is None else start.to(DT).clone()
    val, m = _value(op, y, lam, w)
    if 2 * op.p > n and n <= GRAM_ROWS:  # Woodbury's n×n system is the cheaper: form the Gram
        op.gram()
    steps, cert = 0, float("inf")
    while steps < STEPS:
        check_cancel()
        g = op.rmv(-y * torch.sigmoid(-m) / n) + 2 * lam * w
        cert = float(g.norm()) / max(g0, 1e-300)
        if cert <= TOL / 100:
            break
        k = (torch.sigmoid(m) * torch.sigmoid(-m) / n).clamp_min(1e-100)  # reg/k stays finite
        d = _dense_solve(op.x, k, 2 * lam, g, op._gram)
        slope, t = float(g @ d), 1.0
        while t > 1e-12:
            cand, (cv, cm) = w - t * d, _value(op, y, lam, w - t * d)
            if cv <= val - 1e-4 * t * slope:
                break
            t *= 0.5
        if t <= 1e-12:
            break
        w, val, m, steps = cand, cv, cm, steps + 1
    return {"w": w, "c": None, "certificate": cert, "certificate_kind": "relative gradient norm",
            "iterations": steps, "converged": cert <= TOL,
            "detail": "Newton (exact Hessian, Armijo), warm-started down the path"}
