"""The hinge with an unregularised intercept solved in its dual from a start near the optimum
(the run's own readout at its own decay): primal-dual active-set steps (Hintermüller, Ito &
Kunisch) on  max Σα − ‖Σ α_i y_i x_i‖²/(4λ), 0 ≤ α ≤ s/n, Σ α_i y_i = 0, whose multiplier is
the intercept c. Rows at a bound are held there and the free rows' margins set to 1 with
Σ α_i y_i = 0 — one bordered |F|×|F| solve on the Gram's block of the free rows only (the
tangent features' closed form: no n×n Gram) — and every margin follows from one product
X w (Xᵀβ of the held rows kept by the rows that move). Once the sets stop changing the point
is the KKT point (exact, not approximate). Full steps are not globally convergent: with many
free rows (15–45 % of generic Gaussian samples) they cycle even from near the optimum, so it
gives up early (a repeated set, too many free rows) and libsvm solves it, and its answer is
kept only where it certifies. quick-parity's NTK (n = 10 000, p = 5 200, 340 free rows at the
optimum): 14 steps, 0.3–0.5 s, where libsvm needed the 10 000² Gram (2.9–5.4 s), its fit
(0.7–1.1 s) and scikit-learn's import (1.7–2.1 s)."""

from __future__ import annotations

import math

import torch

from . import svm
from .ops import DT, Dense, Gram
from .problem import Objective, check_cancel

STEPS = 25  # active-set solves before giving up (quick-parity's NTK 14, paper-parity-n10000's 16)
START = 0.1  # the start's rows within START/2 of the margin are the first free ones
BAND = 0.3  # then a held row within this of the margin on the wrong side is freed (HIK's ρ)
# free rows beyond this share of n (quick-parity's NTK: ≤ 12 % on the way, 3.4 % at the optimum)
# or this many: the |F|³ solves are no longer cheap against libsvm's, which is left to it
SHARE, FREE = 0.2, 3000


def fits(op, obj: Objective, start) -> bool:
    """The hinge with an intercept on explicit features or a Gram, with a start (w, c) there."""
    return (obj.loss == "hinge" and obj.intercept and isinstance(op, Dense | Gram)
            and start is not None and len(start) == op.p + 1)


def solve(op, y: torch.Tensor, obj: Objective, start: torch.Tensor) -> dict | None:
    """{w, c, alpha, iterations, detail} at the KKT point reached from start's margins; None
    where the sets cycle or do not settle within STEPS, or the free set outgrows FREE or K's
    rank (its system singular)."""
    y, lam, kern = y.to(DT), obj.lam, _Kernel(op)
    box = svm._box(y, obj)
    m = y * (op.mv(start[:-1].to(DT)) + float(start[-1]))
    alpha = box / 2  # the first free rows: the start's within START/2 of the margin
    sets, seen, c = None, set(), 0.0
    was_up, g_up = torch.zeros_like(y, dtype=torch.bool), kern.weights(None, None)
    g = g_up
    for step in range(STEPS):
        check_cancel()
        up, zero = _sets(alpha / box, m, START if sets is None else BAND)
        if sets is not None and torch.equal(up, sets[0]) and torch.equal(zero, sets[1]):
            return {"w": g / (2 * lam), "c": c, "alpha": alpha, "iterations": step,
                    "detail": "dual active set from the run's own readout "
                              f"({int((~(up | zero)).sum())} free rows; no n×n Gram)"}
        key = hash((up.numpy().tobytes(), zero.numpy().tobytes()))
        if key in seen:  # a cycle: these sets were left before
            return None
        sets, free = (up, zero), ~(up | zero)
        seen.add(key)
        if not bool(free.any()):  # the intercept needs a free row: the one nearest the margin
            free[torch.argmin((m - 1.0).abs())] = True
            up = up & ~free
        if _too_wide(op, int(free.sum()), len(y)):
            return None
        moved = (up != was_up).nonzero().flatten()  # Xᵀβ_up kept: only the rows that moved
        g_up = g_up + kern.weights(moved, (box * y)[moved] * (up[moved].to(DT) * 2 - 1))
        was_up = up
        got = _free_solve(kern, y, box, lam, up, free.nonzero().flatten(), g_up)
        if got is None:
            return None
        alpha, c, m, g = got
    return None


def _sets(share: torch.Tensor, m: torch.Tensor, width: float):
    """(at the upper bound, at 0) by HIK's α + ρ(1 − m) over the bound (share = α/bound,
    ρ = bound/width): a held row whose margin is within width of 1 on the wrong side is freed,
    one further out moves to the other bound; a free row out of its box goes to that bound."""
    score = share + (1.0 - m) / width
    return score >= 1.0, score <= 0.0


def _too_wide(op, size: int, n: int) -> bool:
    """More free rows than SHARE of n or FREE, or than K's rank + 1 (explicit features: the
    bordered system is singular)."""
    return size > min(FREE, SHARE * n) or (isinstance(op, Dense) and size > op.p + 1)


def _free_solve(kern, y, box, lam, up, free, g_up):
    """(α, c, margins, weights) with α = box on up, 0 off up and free, and on free the
    bordered system [K_FF/(2λ) 1; 1ᵀ 0] [β_F; c] = [y_F − K_F,up β_up/(2λ); −Σ β_up]
    (β = α∘y: margins 1 on free, Σ α_i y_i = 0); None where it is singular."""
    beta = torch.where(up, box, torch.zeros((), dtype=DT)) * y
    rhs = y[free] - kern.rows_times(free, g_up) / (2 * lam)
    got = _bordered(kern.block(free) / (2 * lam), rhs, -float(beta.sum()))
    if got is None:
        return None
    beta[free], c = got
    g = g_up + kern.weights(free, beta[free])
    return beta * y, c, y * (kern.times(g) / (2 * lam) + c), g


def _bordered(k, r, s):
    """(b, c) with k b + c·1 = r, 1ᵀb = s: k's Cholesky and the Schur complement 1ᵀk⁻¹1 (k
    positive definite), else the bordered LU; None where singular."""
    ones = torch.ones_like(r)
    low, info = torch.linalg.cholesky_ex(k)
    if int(info) == 0:
        both = torch.cholesky_solve(torch.stack([r, ones], 1), low)
        c = (float(both[:, 0].sum()) - s) / float(both[:, 1].sum())
        b = both[:, 0] - c * both[:, 1]
    else:
        n = len(r)
        a = torch.zeros(n + 1, n + 1, dtype=DT)
        a[:n, :n], a[:n, n], a[n, :n] = k, ones, ones
        sol, info = torch.linalg.solve_ex(a, torch.cat([r, torch.tensor([s], dtype=DT)]))
        if int(info) != 0:
            return None
        b, c = sol[:n], float(sol[n])
    return (b, c) if bool(torch.isfinite(b).all()) and math.isfinite(c) else None


class _Kernel:
    """The products the active set takes of K = X Xᵀ: weights Xᵀu of some rows, X w of all or
    some rows, K's block on some rows (a Gram operator: its weights are the coefficients β)."""

    def __init__(self, op):
        self.op, self.kernel = op, isinstance(op, Gram)

    def weights(self, rows, u) -> torch.Tensor:
        """X_Rᵀ u (zero for rows None)."""
        if rows is None:
            return torch.zeros(self.op.p, dtype=DT)
        if self.kernel:
            return torch.zeros(self.op.n, dtype=DT).index_put_((rows,), u)
        return self.op.part(rows).rmv(u) if len(rows) else torch.zeros(self.op.p, dtype=DT)

    def times(self, w) -> torch.Tensor:
        """X w on every row."""
        return self.op.mv(w)

    def rows_times(self, rows, w) -> torch.Tensor:
        """X_R w."""
        return self.op.k[rows] @ w if self.kernel else self.op.part(rows).mv(w)

    def block(self, rows) -> torch.Tensor:
        """K_RR."""
        return self.op.gram_block(rows)
