"""The logistic readout's λ → 0 path (engine/limits/path.py): its points, each warm-started
from the one before, and its direction, the hard-margin SVM where the sample is separable.
Where the n×n Gram is formed, the hard margin is reached by active-set steps from the
next-to-last point's dual (engine/limits/activeset.hard_margin) and the last point is started
from the next-to-last moved along it — the path's w grows along the max-margin direction as
λ falls (Rosset, Zhu & Hastie 2004): fcb-xor's NTK at λ = 1e-8 in 5 Newton steps, not 10."""

from __future__ import annotations

import torch

from . import activeset
from .ops import DT
from .problem import Problem


def walk(prob: Problem, lams: tuple, solve_at, point) -> tuple[list, dict, dict | None]:
    """(the path's points, point(λ, answer) each, the last answer, the hard-margin SVM where
    found on the way)."""
    path, last, hard = [], None, None
    for lam in lams:
        start = last
        if lam == lams[-1] and last is not None:
            hard = hard_from(prob, last["w"], last["ridge"])
            start = {"w": along(prob, last["w"], hard["w"], lam)} if hard else last
        last = {**solve_at(prob, lam, start), "ridge": lam}
        path.append(point(lam, last))
    return path, last, hard


def hard_from(prob: Problem, w: torch.Tensor, lam: float) -> dict | None:
    """The hard-margin SVM by active-set steps from the logistic answer w at λ = lam (its dual
    α_i = σ(−m_i)/(2λn), scaled to margins ≥ 1 where that separates), where the n×n Gram is
    already formed (the logistic Newton's Woodbury solves); None: left to the NNLS."""
    op, y = prob.train, prob.y_train.to(DT)
    if not activeset.fits(op, prob.objective) or op._gram is None:
        return None
    q = op.gram() * (y[:, None] * y[None, :])
    alpha = torch.sigmoid(-y * op.mv(w)) / (2 * lam * len(y))  # w = Σ α_i y_i x_i
    low = float((q @ alpha).min())
    alpha = activeset.hard_margin(q, alpha / low if low > 0 else alpha)
    if alpha is None:
        return None
    return {"separable": True, "w": op.rmv(alpha * y), "alpha": alpha,
            "min_margin": float((q @ alpha).min()), "iterations": int((alpha > 0).sum()),
            "method": f"primal-dual active-set steps from the logistic path at λ = {lam:g} "
                      "(Hintermüller, Ito & Kunisch; its KKT point checked)"}


def along(prob: Problem, w: torch.Tensor, direction: torch.Tensor, lam: float) -> torch.Tensor:
    """w + βd with β minimising the logistic objective at lam on that line (a convex function
    of one variable: Brent's method, scipy)."""
    from scipy.optimize import minimize_scalar  # here: `import engine.cli` stays free of scipy

    y = prob.y_train.to(DT)
    m, md = y * prob.train.mv(w), y * prob.train.mv(direction)
    ww, wd, dd = float(w @ w), float(w @ direction), float(direction @ direction)

    def objective(beta: float) -> float:
        loss = float(torch.nn.functional.softplus(-(m + beta * md)).mean())
        return loss + lam * (ww + 2 * beta * wd + beta * beta * dd)

    return w + float(minimize_scalar(objective).x) * direction

