"""The exact finish of the intercept-free hinge on explicit features: from the Newton's
approximate dual point, primal-dual active-set steps (Hintermüller, Ito & Kunisch) on the box
QP  max Σα − αᵀQα/(4λ), 0 ≤ α ≤ s/n, Q = diag(y) X Xᵀ diag(y). Rows at a bound are held
there and the free rows' margins set to 1 (one |F|×|F| solve), until the sets stop changing.
Near the optimum it lands on it in 2–3 solves (gfl-xor's NTK Gram: gap 1e-15 at λ = 1e-2,
2e-9 at 1e-6); from far it can cycle, so its answer is kept only where it certifies."""

from __future__ import annotations

import torch

from . import svm
from .ops import DT, Dense
from .problem import TOL, Objective

STEPS = 8  # active-set solves per attempt
ROWS = 4000  # Q (n×n) is formed up to this many training rows
START_MU = 0.3  # attempted after each smoothing stage from this width down


def fits(op, obj: Objective) -> bool:
    """Explicit features, no intercept, and an n×n Q within ROWS."""
    return isinstance(op, Dense) and not obj.intercept and op.n <= ROWS


class Finish:
    """Q (or, where p < n/2, G = diag(y) X, Q = G Gᵀ never formed) once per solve; `attempt`
    per smoothing stage."""

    def __init__(self, op: Dense, y: torch.Tensor, s: torch.Tensor, obj: Objective):
        self.op, self.y, self.obj, self.box = op, y, obj, s / len(y)
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
        primal = svm.primal_value(self.op, self.y, self.obj, w, None)
        cert = svm.gap_at(self.op, self.y, self.obj, primal, alpha)
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


def _active_set(q, box, lam: float, alpha, rank: int) -> torch.Tensor | None:
    """The box QP's KKT point reached from alpha, or None (singular system, or no fixed point;
    more free rows than Q's rank ≤ p is singular: gfl-linear's 51 features, 5 s of solves)."""
    sets, c = None, float(box.mean())  # c weighs the margin slack against α (α ~ 1/n)
    for _ in range(STEPS):
        z = alpha + c * (1.0 - q @ alpha / (2 * lam))
        up, zero = z >= box, z <= 0
        if sets is not None and torch.equal(up, sets[0]) and torch.equal(zero, sets[1]):
            return alpha.clamp(min=torch.zeros_like(box), max=box)
        sets, free = (up, zero), ~(up | zero)
        if int(free.sum()) > rank:
            return None
        new = torch.where(up, box, torch.zeros((), dtype=DT))
        if free.any():
            rhs = 2 * lam - _times(q, free, up, box[up])
            try:
                new[free] = torch.linalg.solve(_block(q, free, free), rhs)
            except RuntimeError:  # singular on the free set: leave it to the Newton
                return None
        alpha = new
    return None
