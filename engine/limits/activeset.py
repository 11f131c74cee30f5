"""The exact finish of the intercept-free hinge on explicit features: from the Newton's
approximate dual point, primal-dual active-set steps (Hintermüller, Ito & Kunisch) on the box
QP  max Σα − αᵀQα/(4λ), 0 ≤ α ≤ s/n, Q = diag(y) X Xᵀ diag(y). Rows at a bound are held
there and the free rows' margins set to 1 (one |F|×|F| solve), until the sets stop changing.
Near the optimum it lands on it in 2–3 solves (gfl-xor's NTK Gram: gap 1e-15 at λ = 1e-2,
2e-9 at 1e-6); from far it can cycle, so its answer is kept only where it certifies."""

from __future__ import annotations

import math

import torch

from . import svm
from .ops import DT, Dense
from .problem import TOL, Objective

STEPS = 8  # active-set solves per attempt
ROWS = 4000  # Q (n×n) is formed up to this many training rows
START_MU = 0.3  # attempted after each smoothing stage from this width down
HARD_STEPS = 20  # hard-margin active-set solves before the NNLS takes over
HARD_KKT = 1e-9  # the margins' distance from 1 (support vectors) or below it that is accepted


def fits(op, obj: Objective) -> bool:
    """Explicit features, no intercept, and an n×n Q within ROWS."""
    return isinstance(op, Dense) and not obj.intercept and op.n <= ROWS


class Finish:
    """Q (or, where p < n/2, G = diag(y) X, Q = G Gᵀ never formed) once per solve; `attempt`
    per smoothing stage."""

    def __init__(self, op: Dense, y: torch.Tensor, s: torch.Tensor, obj: Objective,
                 merged=None):
        """merged (engine/limits/rows.Distinct): op, y, s are its distinct rows and weights,
        and each answer is certified on all of the sample's rows."""
        self.op, self.y, self.obj, self.box, self.merged = op, y, obj, s / len(y), merged
        # gfl-parity-blocks' RF (p = 100, n = 4000): Q formed per path point 1.0 s, and each
        # attempt's Q α and Q[F, U] products n² instead of n·p (3.4 s for 19 attempts)
        self.q = _Signed(op.x * y[:, None]) if 2 * op.p < op.n else \
            op.gram() * (y[:, None] * y[None, :])  # the shared Gram

    def attempt(self, v: torch.Tensor, mu: float) -> tuple[torch.Tensor, float, float] | None:
        """(w, P(w), certificate) from the Newton's point v at width mu, or None if uncertified."""
        m = self.y * self.op.mv(v)
        alpha = _active_set(self.q, self.box, self.obj.lam, self.box * ((1.0 - m) / mu).clamp(0, 1),
                            self.op.p)
        if alpha is None:
            return None
        w = self.op.rmv(alpha * self.y) / (2 * self.obj.lam)
        op, y = (self.op, self.y) if self.merged is None else (self.merged.op, self.merged.y_all)
        alpha = alpha if self.merged is None else self.merged.spread(alpha)
        primal = svm.primal_value(op, y, self.obj, w, None)
        cert = svm.gap_at(op, y, self.obj, primal, alpha)
        return (w, primal, cert) if cert <= TOL else None


class _Signed:
    """Q = G Gᵀ applied through G (n×p, p ≪ n): the products the active set takes of Q."""

    def __init__(self, g: torch.Tensor):
        self.g = g

    def __matmul__(self, alpha: torch.Tensor) -> torch.Tensor:
        return self.g @ (self.g.T @ alpha)

    def block(self, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        """Q[rows][:, cols]."""
        return self.g[rows] @ self.g[cols].T

    def times(self, rows: torch.Tensor, cols: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Q[rows][:, cols] @ x, without the block."""
        return self.g[rows] @ (self.g[cols].T @ x)


def _block(q, rows, cols):
    return q.block(rows, cols) if isinstance(q, _Signed) else q[rows][:, cols]


def _times(q, rows, cols, x):
    return q.times(rows, cols, x) if isinstance(q, _Signed) else q[rows][:, cols] @ x


def _active_set(q, box, lam: float, alpha, rank: int, steps: int = STEPS,
                c: float | None = None) -> torch.Tensor | None:
    """The box QP's KKT point reached from alpha, or None (singular system, or no fixed point;
    more free rows than Q's rank ≤ p is singular: gfl-linear's 51 features, 5 s of solves)."""
    # c weighs the margin slack against α (α ~ 1/n)
    sets, c = None, float(box.mean()) if c is None else c
    for _ in range(steps):
        z = alpha + c * (1.0 - q @ alpha / (2 * lam))
        up, zero = z >= box, z <= 0
        if sets is not None and torch.equal(up, sets[0]) and torch.equal(zero, sets[1]):
            return alpha.clamp(min=torch.zeros_like(box), max=box)
        sets, free = (up, zero), ~(up | zero)
        if int(free.sum()) > rank:
            return None
        new = torch.where(up, box, torch.zeros((), dtype=DT))
        if free.any():
            rhs = 2 * lam - _times(q, free, up, box[up]) if up.any() else \
                torch.full((int(free.sum()),), 2 * lam, dtype=DT)  # (no Q[F, U] to gather)
            try:
                new[free] = torch.linalg.solve(_block(q, free, free), rhs)
            except RuntimeError:  # singular on the free set: leave it to the Newton
                return None
        alpha = new
    return None


def hard_margin(q: torch.Tensor, alpha: torch.Tensor, steps: int = HARD_STEPS
                ) -> torch.Tensor | None:
    """The hard-margin dual min ½αᵀQα − Σα, α ≥ 0 (Q the n×n signed Gram): the box QP's
    active-set steps with no upper bound and 2λ = 1, from alpha (a logistic path point's dual,
    engine/limits/logpath.py) — a fixed point of the sets is its KKT point (free: α > 0,
    margin 1; zero: margin ≥ 1), checked. None where they do not settle, a free block is
    singular, or the check fails (fcb-xor's NTK, 960 support vectors of 2 000: 7 solves from
    λ = 1e-6, 0.2 s against the NNLS's 1.2 s)."""
    unbounded = torch.full_like(alpha, math.inf)
    got = _active_set(q, unbounded, 0.5, alpha, len(alpha), steps, float(alpha.mean()))
    return got if got is not None and _kkt(q, got) else None


def _kkt(q: torch.Tensor, alpha: torch.Tensor) -> bool:
    """α ≥ 0, every margin ≥ 1 and those with α > 0 equal to 1, to HARD_KKT."""
    m = q @ alpha
    on = alpha > 0
    return bool((alpha >= 0).all() and (m >= 1 - HARD_KKT).all()
                and ((m[on] - 1).abs() <= HARD_KKT).all())
