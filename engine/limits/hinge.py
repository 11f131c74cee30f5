"""The hinge loss with ℓ2 decay (and an unregularised intercept) solved to a duality-gap
certificate: Newton's method on the Huber-smoothed hinge h_μ (quadratic within μ of the margin),
μ → 0 with each stage warm-started, until the gap of the true hinge problem, P(w, c) − D(α)
with α read off h_μ', is ≤ TOL · P. The Hessian 2λI + X_Sᵀ diag(s/nμ) X_S (S: the rows within μ
of the margin) is formed for explicit features and applied by conjugate gradients otherwise."""

from __future__ import annotations

import torch

from . import activeset
from .cg import cg
from .ops import DT, Dense
from .problem import TOL, Objective, check_cancel
from .rows import distinct

MUS = (1.0, 0.3, 0.1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6, 1e-7)  # widest first
NEWTON_STEPS = 60  # per smoothing stage
CG_REL, CG_CAP = 1e-8, 200  # the matrix-free Newton direction's CG: relative residual, products


class _Smoothed:
    """λ‖w‖² + mean s_i h_μ(y_i f_i) of the flat vector v = (w, [c]): value, gradient, Hessian."""

    def __init__(self, op, y, s, obj: Objective, mu: float):
        self.op, self.y, self.s, self.obj, self.mu = op, y, s, obj, mu
        self.p, self.n = op.p, len(y)
        self.kept = None  # the formed Hessian, updated from step to step (Kept)

    def margins(self, v):
        f = self.op.mv(v[:self.p])
        return self.y * (f + v[self.p]) if self.obj.intercept else self.y * f

    def value(self, v, m=None):
        m = self.margins(v) if m is None else m
        gap = 1.0 - m
        h = torch.where(gap >= self.mu, gap - self.mu / 2, gap.clamp_min(0.0) ** 2 / (2 * self.mu))
        w = v[:self.p]
        return float((self.s * h).sum()) / self.n + self.obj.lam * float(w @ w)

    def grad(self, v, m):
        dh = ((1.0 - m) / self.mu).clamp(0.0, 1.0)
        r = -(self.s * dh * self.y) / self.n
        g = self.op.rmv(r) + 2 * self.obj.lam * v[:self.p]
        return torch.cat([g, r.sum().reshape(1)]) if self.obj.intercept else g

    def curvature(self, m):
        """Per-row Hessian weights s_i/(nμ) on the rows within μ of the margin."""
        inside = (m < 1.0) & (m > 1.0 - self.mu)
        return torch.where(inside, self.s / (self.n * self.mu), 0.0)

    def newton_dir(self, g, m):
        """Solve H d = g (H formed for explicit features, else conjugate gradients)."""
        k, lam = self.curvature(m), self.obj.lam
        if isinstance(self.op, Dense):
            rows = k > 0
            if not _woodbury(int(rows.sum()), self.p + int(self.obj.intercept), self.op._gram):
                self.kept = self.kept or Kept(self.op.x, self.obj.intercept)
                return self.kept.solve(k, 2 * lam, g)
            xs, gram = self.op.x[rows], self.op._gram  # the shared Gram, where formed
            if self.obj.intercept:
                xs = torch.cat([xs, torch.ones(len(xs), 1, dtype=DT)], 1)
                gram = None if gram is None else gram + 1.0
            return _dense_solve(xs, k[rows], 2 * lam, g, gram, rows)
        return cg(lambda d: self._hv(d, k), g, CG_REL, CG_CAP)[0]

    def _hv(self, d, k):
        p = self.p
        f = self.op.mv(d[:p]) + (d[p] if self.obj.intercept else 0.0)
        kf = k * f
        out = self.op.rmv(kf) + 2 * self.obj.lam * d[:p]
        if not self.obj.intercept:
            return out
        return torch.cat([out, (kf.sum() + 2 * self.obj.lam * d[p]).reshape(1)])


def _dense_solve(xs: torch.Tensor, k: torch.Tensor, reg: float, g: torch.Tensor,
                 gram: torch.Tensor | None = None, rows=None) -> torch.Tensor:
    """(reg·I + xsᵀ diag(k) xs)⁻¹ g (c's damping is reg too): the p×p system, or by Woodbury
    the |S|×|S| one when fewer than p/2 rows sit within μ of the margin (the Gram form has
    p = n, and few rows on the margin), or whenever its Cholesky is the cheaper one given the
    shared Gram, xs xsᵀ = gram[rows, rows] (gfl-xor's NTK: 91 solves 13.6 s → 70 in 1.1 s)."""
    s, p = xs.shape
    if _woodbury(s, p, gram):
        inner = (xs @ xs.T) if gram is None else gram.clone() if rows is None else \
            gram[rows][:, rows]  # (every row: one copy, not a mask's two)
        inner.diagonal().add_(reg / k)
        return (g - xs.T @ torch.cholesky_solve((xs @ g)[:, None],
                                                torch.linalg.cholesky(inner))[:, 0]) / reg
    h = xs.T @ (xs * k[:, None])
    h.diagonal().add_(reg)
    return torch.cholesky_solve(g[:, None], torch.linalg.cholesky(h))[:, 0]


def _woodbury(s: int, p: int, gram) -> bool:
    """Whether the |S|×|S| system is the cheaper one (_dense_solve)."""
    return 2 * s < p or (gram is not None and s ** 3 < 3 * p * p * s + p ** 3)


class Kept:
    """Xᵀ diag(k) X (bordered by the intercept's row Xᵀk, Σk) kept across the Newton steps of
    one width: only the rows whose weight changed (those entering or leaving the band) are
    multiplied, not all |S| of them (gfl-uniform-parity: 30 000 × 1 024, ~10⁴ rows in the band,
    a few hundred change per step). Where more than half the band changed (a width's first
    step) it starts afresh — or from the last width's h rescaled where fewer rows differ from
    that (k = s/(nμ): the rows still in the band all scale by μ_old/μ; theory-parity's One Step
    keeps the same 25 033 of 50 000 rows in the band at every width)."""

    def __init__(self, x: torch.Tensor, intercept: bool):
        self.x, self.intercept = x, intercept
        self.k = torch.zeros(len(x), dtype=DT)
        self.h = torch.zeros(x.shape[1] + int(intercept), x.shape[1] + int(intercept), dtype=DT)
        self.rows_used = 0  # rows of X multiplied into h so far (tests read it)

    def update(self, k: torch.Tensor) -> None:
        """Make h equal Xᵀ diag(k) X (+ border) for the new weights k."""
        changed = (k != self.k).nonzero().flatten()
        band = (k > 0).nonzero().flatten()
        if 2 * len(changed) > len(band):  # afresh, or rescaled: cheaper than the change
            base, self.h = self._base(k, band)
            changed = (k != base).nonzero().flatten()
            delta = k[changed] - base[changed]
        else:
            delta = k[changed] - self.k[changed]
        xs = self.x[changed]
        if self.intercept:
            xs = torch.cat([xs, torch.ones(len(xs), 1, dtype=DT)], 1)
        self.h.addmm_(xs.T, xs * delta[:, None])
        self.k, self.rows_used = k.clone(), self.rows_used + len(changed)

    def _base(self, k: torch.Tensor, band: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(the weights h starts from, that h): none (zero), or the old h times the commonest
        ratio k/k_old where that leaves fewer rows to multiply than the band."""
        both = (k > 0) & (self.k > 0)
        if bool(both.any()):
            ratio = float(torch.mode(k[both] / self.k[both]).values)
            base = self.k * ratio
            if int((k != base).sum()) < len(band):
                return base, self.h * ratio
        return torch.zeros_like(k), torch.zeros_like(self.h)

    def solve(self, k: torch.Tensor, reg: float, g: torch.Tensor) -> torch.Tensor:
        """(reg·I + Xᵀ diag(k) X)⁻¹ g (c's damping is reg too, as in _dense_solve)."""
        self.update(k)
        h = self.h.clone()
        h.diagonal().add_(reg)
        return torch.cholesky_solve(g[:, None], torch.linalg.cholesky(h))[:, 0]


def _kept(op, intercept: bool) -> Kept | None:
    """The formed Hessian the last solve on op left (h depends on X and the weights only: not
    on λ, y or s), so a path point's first width starts from the last point's last."""
    kept = getattr(op, "_kept", None) if isinstance(op, Dense) else None
    return kept[1] if kept is not None and kept[0] == intercept else None


def gap(op, y, s, obj: Objective, v: torch.Tensor, mu: float) -> tuple[float, float]:
    """(P, relative gap (P − D)/P) with the dual point α_i = s_i/n · clamp((1 − m_i)/μ, 0, 1), made
    feasible for Σ α_i y_i = 0 (with an intercept) by scaling down the heavier class."""
    sm = _Smoothed(op, y, s, obj, mu)
    m, w, n = sm.margins(v), v[:op.p], len(y)
    primal = float((s * (1.0 - m).clamp_min(0.0)).sum()) / n + obj.lam * float(w @ w)
    alpha = s / n * ((1.0 - m) / mu).clamp(0.0, 1.0)
    if obj.intercept:
        pos, neg = float(alpha[y > 0].sum()), float(alpha[y < 0].sum())
        if pos > neg:
            alpha = torch.where(y > 0, alpha * (neg / pos), alpha)
        elif neg > pos:
            alpha = torch.where(y < 0, alpha * (pos / neg), alpha)
    u = op.rmv(alpha * y)
    dual = float(alpha.sum()) - float(u @ u) / (4 * obj.lam)
    return primal, (primal - dual) / max(primal, 1e-300)


def _stage(sm: _Smoothed, v: torch.Tensor, budget: int) -> tuple[torch.Tensor, int]:
    """Damped Newton on one smoothing width until the gradient stops shrinking."""
    m = sm.margins(v)
    val, used = sm.value(v, m), 0
    for _ in range(min(budget, NEWTON_STEPS)):
        check_cancel()
        g = sm.grad(v, m)
        d = sm.newton_dir(g, m)
        used += 1
        slope, t = float(g @ d), 1.0
        # the margins are linear in v: one product per Newton step, not one per trial
        # (gfl-parity-blocks' RF: 4 412 products of X for 553 steps, 9 of its 19 s)
        md = sm.margins(d)
        while t > 1e-10:  # Armijo backtracking
            cand = v - t * d
            mc = m - t * md
            cv = sm.value(cand, mc)
            if cv <= val - 1e-4 * t * slope:
                break
            t *= 0.5
        if t <= 1e-10 or val - cv <= 1e-15 * max(abs(val), 1e-300):
            v, m = (cand, mc) if t > 1e-10 and cv < val else (v, m)
            break
        v, m, val = cand, mc, cv
    return v, used


def solve(op, y: torch.Tensor, obj: Objective, max_iter: int = 400, start=None,
          mus=MUS, stall: bool = False) -> dict:
    """Weights, certificate (relative duality gap), Newton steps, and whether it reached TOL;
    start: a flat (w, [c]) to begin from (then mus: the narrower widths only); stall: give up,
    uncertified, at the first width whose Newton uses all its NEWTON_STEPS (a warm start too
    far from the answer for the narrow widths: the caller then starts cold)."""
    y = y.to(DT)
    s = obj.weights(y)
    s = torch.ones_like(y) if s is None else s
    v = torch.zeros(op.p + int(obj.intercept), dtype=DT) if start is None else start.to(DT)
    iters, cert, mu_used, value = 0, float("inf"), mus[0], float("nan")
    merged = distinct(op, y)  # the Newton on the distinct rows, weighted by their counts
    work = (op, y, s) if merged is None else (merged.x, merged.y, merged.weights(s))
    # the exact finish on the same rows (gfl-uniform-parity's 2 048 of 30 000: within its Q's
    # bound on the distinct rows only), certified on all of them
    finish, finished = (activeset.Finish(*work, obj, merged) if activeset.fits(work[0], obj)
                        else None), ""
    kept = _kept(work[0], obj.intercept)
    for mu in mus:
        sm = _Smoothed(*work, obj, mu)
        sm.kept = kept  # the last width's Hessian: the rows still in the band only rescale
        v, used = _stage(sm, v, max_iter - iters)
        kept = sm.kept
        iters, mu_used = iters + used, mu
        value, cert = gap(*work, obj, v, mu)
        got = finish.attempt(v, mu) if finish and cert > TOL and mu <= activeset.START_MU else None
        if got is not None:  # the active-set finish certified: its exact point replaces v
            (v, value, cert), finished = got, ", finished by the active-set solve"
        if cert <= TOL or iters >= max_iter or (stall and used >= NEWTON_STEPS):
            break
    if kept is not None:  # the next path point's widths start from it
        work[0]._kept = (obj.intercept, kept)
    if merged is not None:  # the certificate taken again on every row (the finish's: already)
        if not finished:
            value, cert = gap(op, y, s, obj, v, mu_used)
        finished += f", on the {merged.x.n} distinct of {op.n} rows"
    form = "formed Hessian" if isinstance(op, Dense) else "Newton-CG (matrix-free)"
    return {"w": v[:op.p], "c": v[op.p] if obj.intercept else None, "certificate": cert,
            "certificate_kind": "relative duality gap", "iterations": iters,
            "converged": cert <= TOL, "objective_value": value, "mu": mu_used,
            "detail": f"Newton on the smoothed hinge ({form}), last μ = {mu_used:g}{finished}"}
