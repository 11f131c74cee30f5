"""The intercept-free hinge on a kernel's Gram K = X Xᵀ, solved in its dual:
min f(α) = αᵀQα/(4λ) − Σα over 0 ≤ α ≤ s/n, Q = diag(y) K diag(y), by Bertsekas' projected
Newton — rows at a bound whose gradient points outwards held there, a Newton step on the rest
(one |F|×|F| Cholesky, F the free rows), the step clipped to the box and halved until f falls
enough. f is a convex quadratic, so once the sets stop changing the step is exact. Its cost
grows as |F|³ per step: fast where few rows sit on the margin (docs/performance.md, Sessions
18b and 19). The hard-margin SVM (λ → 0) is the same problem without the upper bound and with
Q in place of Q/(2λ): min ½αᵀQα − Σα, α ≥ 0 (its α scaled by 2λ is the hinge's optimum at
every λ ≤ λ_max). w = Xᵀ(α∘y)/(2λ): on a Gram operator the coefficients β of the training
rows, on explicit features (a kernel's embedding) Xᵀ of them."""

from __future__ import annotations

import math

import torch

from . import svm
from .ops import DT, Dense, Gram
from .problem import TOL, Objective, check_cancel

STEPS = 400  # Newton steps before giving up (gfl-parity-blocks: 52–156 per solve)
HALVINGS = 40  # step halvings per Newton step
ENTER = 256  # at-bound rows let in per step (64: no convergence in 200 steps; 512: slower)
KKT = 1e-9  # the hard margin's projected gradient (margins − 1) at which it stops
WIDE = 2  # explicit features: the dual where n ≤ WIDE·p (its Gram at most WIDE× their size)
FREE = 20  # the next path point in the dual where at most n/FREE rows were free (quick)
GROWTH = 1e8  # hard margin: Σα beyond this × its start means no separating w (α → ∞)


def fits(op, obj: Objective) -> bool:
    """The hinge without an intercept (libsvm's own form has one) on a Gram operator or on
    explicit features whose n×n Gram is not much larger than them (a kernel's embedding, of
    width n or its rank: gfl-parity-blocks' NTK 3 954 of 4 000)."""
    kernel = isinstance(op, Gram) or (isinstance(op, Dense) and op.n <= WIDE * op.p)
    return kernel and not obj.intercept and obj.loss == "hinge"


def quick(op, obj: Objective, early: float, last: dict | None) -> bool:
    """Whether a λ → 0 path point goes to the dual: it fits, λ ≥ early (nearer the hard margin
    every support vector is free: gfl-xor's 1 127, digits-teacher-student's 857 at 1e-6, each
    step a Cholesky that wide), and either the path's first point (no previous: most rows
    inside the margin sit at the upper bound, 2–155 free measured) or one after a point this
    solver solved with at most n/FREE free rows (gfl-parity-blocks 114 of 4 000, gfl-mog 63,
    digits-teacher-student 2: faster; gfl-xor 155 of 2 000 → 528 at 1e-4: slower)."""
    if not fits(op, obj) or obj.lam < early:
        return False
    return last is None or (last.get("free") is not None and FREE * last["free"] <= op.n)


def gram(op) -> torch.Tensor:
    """The n×n train Gram K of a Gram operator or of explicit features (formed once)."""
    return op.k if isinstance(op, Gram) else op.gram()


def weights(op, coef: torch.Tensor) -> torch.Tensor:
    """w = Σ coef_i x_i in op's coordinates (a Gram operator's w is coef itself)."""
    return coef if isinstance(op, Gram) else op.rmv(coef)


def solve(op, y: torch.Tensor, obj: Objective, start: torch.Tensor | None = None,
          box: torch.Tensor | None = None) -> dict:
    """(w, α, its own gap) of the hinge at obj.lam; start: a dual α to begin from (the path's
    previous point), else every row at its upper bound; box: the upper bounds where they are
    not s_i/n (a sample's distinct rows: each its copies' sum)."""
    y = y.to(DT)
    q = gram(op) * (y[:, None] * y[None, :])
    box = svm._box(y, obj) if box is None else box
    alpha = box.clone() if start is None else start.clamp(min=torch.zeros_like(box), max=box)
    got = _projected_newton(q, box, 2 * obj.lam, alpha, obj.lam)
    if got is None:
        return {"w": None, "c": None, "alpha": None, "iterations": STEPS,
                "certificate": math.inf, "detail": "projected Newton: not converged"}
    alpha, steps, gap = got
    free = int(((alpha > 0) & (alpha < box)).sum())
    return {"w": weights(op, alpha * y / (2 * obj.lam)), "c": None, "alpha": alpha,
            "free": free, "iterations": steps, "certificate": gap,
            "detail": f"projected Newton on the kernel's dual box QP ({op.n}×{op.n} Gram, "
                      "no intercept)"}


def hard(op, y: torch.Tensor, start: torch.Tensor) -> dict | None:
    """The hard-margin SVM {separable: True, w, alpha, min_margin, iterations} from start (a
    path point's α/(2λ)); None where it does not converge (not separable: α grows without
    bound)."""
    y = y.to(DT)
    q = gram(op) * (y[:, None] * y[None, :])
    inf = torch.full_like(y, math.inf)
    got = _projected_newton(q, inf, 1.0, start.clamp_min(0.0), None,
                            limit=GROWTH * max(float(start.sum()), 1e-300))
    if got is None:
        return None
    alpha, steps, _ = got
    margin = float((q @ alpha).min())
    if margin < 1.0 - 1e-6:
        return None
    return {"separable": True, "w": weights(op, alpha * y), "alpha": alpha,
            "min_margin": margin, "iterations": steps}


def _projected_newton(q, box, scale: float, alpha, lam, limit: float = math.inf):
    """min αᵀQα/(2·scale) − Σα on 0 ≤ α ≤ box from alpha: (α, steps, relative gap at lam, or
    the projected gradient's size where lam is None); None past the step budget or limit."""
    m = q @ alpha / scale  # the margins y_i f(x_i), then kept by the free columns' updates
    for step in range(STEPS):
        check_cancel()
        g = m - 1.0
        fixed = ((alpha <= 0) & (g >= 0)) | ((alpha >= box) & (g <= 0))
        done = _gap(alpha, m, box, lam) if lam is not None else float(g[~fixed].abs().max()
                                                                      if (~fixed).any() else 0)
        if done <= (TOL * 1e-4 if lam is not None else KKT):
            return alpha, step, done
        free, h, d = _free_step(q, alpha, box, g, _entering(alpha, box, g, ~fixed), scale)
        moved = _line_search(h, box[free], alpha[free], g[free], d)
        if moved is None:
            return None
        alpha = alpha.clone()
        alpha[free] += moved
        m = m + moved @ q[free] / scale  # Q symmetric: its rows, gathered contiguously
        if float(alpha.sum()) > limit:
            return None
    return None


def _entering(alpha, box, g, movable):
    """The interior rows and, of the rows at a bound whose gradient points inwards, the ENTER
    most violating: all of them at once made the free Cholesky thousands of rows wide."""
    inner = (alpha > 0) & (alpha < box)
    edge = movable & ~inner
    count = int(edge.sum())
    if count > ENTER:
        score = torch.where(edge, g.abs(), torch.zeros_like(g))
        edge = torch.zeros_like(edge)
        edge[torch.topk(score, ENTER).indices] = True
    return inner | edge


def _free_step(q, alpha, box, g, movable, scale):
    """(free rows, their Hessian, the Newton step on them): rows at a bound whose step would
    leave the box are held too and the step taken again, so the step is a descent direction
    inside the box (an outward step clipped is not one: the draft's line search found none)."""
    rows = movable.nonzero().flatten()
    whole = q[rows][:, rows] / scale  # gathered once: the repeats take sub-blocks of it
    keep = torch.arange(len(rows))
    for _ in range(50):
        h = whole[keep][:, keep]
        free = rows[keep]
        d = _newton_dir(h, g[free])
        out = ((alpha[free] <= 0) & (d < 0)) | ((alpha[free] >= box[free]) & (d > 0))
        if not bool(out.any()):
            break
        keep = keep[~out]
    return free, h, d


def _newton_dir(h, g_free):
    """−H_FF⁻¹ g_F, a jitter on the diagonal where repeated rows make it singular."""
    jitter = 0.0
    for _ in range(6):
        low, info = torch.linalg.cholesky_ex(h if jitter == 0 else
                                             h + jitter * torch.eye(len(g_free), dtype=DT))
        if int(info) == 0:
            return -torch.cholesky_solve(g_free[:, None], low)[:, 0]
        jitter = max(jitter * 100, 1e-13 * float(h.diagonal().max()))
    return -g_free


def _line_search(h, box, alpha, g, d):
    """The free rows' move: α + s·d clipped to the box, s halved from 1 until f falls by the
    Armijo fraction (f's change on the free rows alone: gᵀΔ + ½ΔᵀHΔ, no n² product)."""
    for _ in range(HALVINGS):
        moved = (alpha + d).clamp(min=torch.zeros_like(box), max=box) - alpha
        change = float(g @ moved) + 0.5 * float(moved @ (h @ moved))
        if change <= 1e-4 * float(g @ moved) and float(moved.abs().sum()) > 0:
            return moved
        d = d / 2
    return None


def _gap(alpha, m, box, lam) -> float:
    """(P − D)/P of w = Σ α_i y_i x_i/(2λ) against this α (m its margins)."""
    quad = float(alpha @ m) / 2  # αᵀQα/(4λ) = λ‖w‖²
    primal = float((box * (1.0 - m).clamp_min(0.0)).sum()) + quad
    return (primal - (float(alpha.sum()) - quad)) / max(primal, 1e-300)
