"""Linear operators X (rows = samples) the solvers use through X w and Xᵀ u only: an explicit
feature matrix, the paper network's tangent features in closed form, a linear model's J v / Jᵀ u
by torch.func, and the exact n-dimensional embedding of an n×n Gram (the dual/kernel form)."""

from __future__ import annotations

import copy

import torch

DT = torch.float64
# explicit features (or an n×n Gram) are built while they take at most this many bytes; above it
# the solve is matrix-free (the NTK) or refused with its size
DENSE_BYTES = 1536 * 2**20


class Dense:
    """An explicit n×p feature matrix (float64)."""

    def __init__(self, x: torch.Tensor):
        self.x = x.to(DT)
        self.n, self.p = self.x.shape

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """X w."""
        return self.x @ w

    def rmv(self, u: torch.Tensor) -> torch.Tensor:
        """Xᵀ u."""
        return self.x.T @ u


class Tangent:
    """The tangent features ∇g(x; θ₀)/κ of the paper's network, g = Σ a_i σ(⟨q_i, z⟩ + b_i):
    [σ_i, a_i σ'_i z, a_i σ'_i]/κ, never materialised (n × width(r + 2) is 3·10⁹ numbers on
    paper-parity); w = (δa, δq, δb) flattened. Twin pairs of the symmetric init count once with
    features ×√2 (the same minimum-norm model: λ(u² + v²) at u + v fixed is λ(u + v)²/2)."""

    def __init__(self, act: torch.Tensor, slope: torch.Tensor, z: torch.Tensor, kappa: float = 1.0,
                 fold: float = 1.0, bias: bool = True):
        scale = fold / kappa
        self.act, self.slope = act.to(DT) * scale, slope.to(DT) * scale
        self.z, self.bias = z.to(DT), bias
        self.n, self.units = self.act.shape
        self.r = self.z.shape[1]
        self.p = self.units * (self.r + 1 + int(bias))

    def _split(self, w):
        u, r = self.units, self.r
        db = w[u + u * r:] if self.bias else None
        return w[:u], w[u:u + u * r].view(u, r), db

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """X w = σ·δa + Σ_i a_i σ'_i (⟨δq_i, z⟩ + δb_i)."""
        da, dq, db = self._split(w)
        lin = self.z @ dq.T if db is None else torch.addmm(db, self.z, dq.T)
        return torch.addmv(lin.mul_(self.slope).sum(1), self.act, da)

    def rmv(self, u: torch.Tensor) -> torch.Tensor:
        """Xᵀ u = (σᵀu, (σ'∘u)ᵀ z, σ'ᵀu)."""
        su = self.slope * u[:, None]
        parts = [self.act.T @ u, (su.T @ self.z).reshape(-1)]
        return torch.cat(parts + [su.sum(0)] if self.bias else parts)

    def dense(self) -> Dense:
        """The explicit n × p feature matrix, in the order of w."""
        parts = [self.act, (self.slope[:, :, None] * self.z[:, None, :]).reshape(self.n, -1)]
        return Dense(torch.cat(parts + [self.slope] if self.bias else parts, dim=1))

    def rows(self, sl: slice) -> Tangent:
        """The operator of a block of rows (no copy of the arrays)."""
        part = copy.copy(self)
        part.act, part.slope, part.z = self.act[sl], self.slope[sl], self.z[sl]
        part.n = part.act.shape[0]
        return part

    def gram_blocked(self, other: Tangent, block: int = 2048) -> torch.Tensor:
        """other's rows against this one's, a block of rows at a time: the peak holds one
        block's temporaries, not three n×n ones."""
        out = torch.empty(other.n, self.n, dtype=DT)
        for i in range(0, other.n, block):
            out[i:i + block] = self.gram(other.rows(slice(i, i + block)))
        return out

    def gram(self, other: Tangent) -> torch.Tensor:
        """⟨x, x'⟩ of other's rows with this one's: σσ'ᵀ + (a σ')(a σ')ᵀ ∘ (z z'ᵀ [+ 1])."""
        inner = other.z @ self.z.T
        if self.bias:
            inner += 1.0
        return other.act @ self.act.T + (other.slope @ self.slope.T) * inner


class FuncLinear:
    """A model linear in its trained tensors, out(θ) (n×k), as an operator through
    torch.func.jvp / vjp at θ = 0 (X w = J w, Xᵀ u = Jᵀ u); w flattens the tensors."""

    def __init__(self, model, shapes: list[torch.Size], n: int):
        self.model, self.shapes, self.n = model, shapes, n  # n: rows × outputs
        self.sizes = [int(torch.Size(s).numel()) for s in shapes]
        self.p = sum(self.sizes)
        self._zero = tuple(torch.zeros(s, dtype=DT) for s in shapes)

    def _unflat(self, w: torch.Tensor) -> tuple:
        return tuple(part.view(s) for part, s in zip(torch.split(w, self.sizes), self.shapes,
                                                     strict=True))

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """J w, the n×k outputs flattened (the JVP at 0 of a linear model)."""
        return torch.func.jvp(self.model, self._zero, self._unflat(w))[1].reshape(-1)

    def rmv(self, u: torch.Tensor) -> torch.Tensor:
        """Jᵀ u for u the flattened n×k output."""
        out, pull = torch.func.vjp(self.model, *self._zero)
        return torch.cat([g.reshape(-1) for g in pull(u.view(out.shape))])


class Gram:
    """Rows of a kernel, K (rows × n train samples): a readout's weights are the coefficients β
    of the training rows (w = Σ β_i x_i), so X w = K β and ‖w‖² = βᵀK_train β. Formed where the
    n×n Gram fits but its eigendecomposition (kernel_embedding, O(n³)) would not be quick."""

    def __init__(self, k: torch.Tensor):
        self.k = k.to(DT)
        self.n, self.p = self.k.shape

    def mv(self, beta: torch.Tensor) -> torch.Tensor:
        """K β: the predictions of the rows."""
        return self.k @ beta

    def sq(self, beta: torch.Tensor) -> float:
        """βᵀKβ (the train Gram): ‖Σ β_i x_i‖²."""
        return float(beta @ (self.k @ beta))


def kernel_embedding(k_train: torch.Tensor, k_test: torch.Tensor) -> tuple[Dense, Dense]:
    """Rows Φ with ΦΦᵀ = K (Φ = U√S from K = USUᵀ) and the test rows Φ_t = K_t U/√S: the same
    inner products as the features, so a ridge-regularised linear model (whose weights lie in the
    span of the training rows) has the same predictions; eigenvalues below 1e-12·max are dropped."""
    s, u = torch.linalg.eigh(k_train.to(DT))
    keep = s > 1e-12 * float(s.max().clamp_min(1e-300))
    s, u = s[keep], u[:, keep]
    root = s.sqrt()
    return Dense(u * root), Dense((k_test.to(DT) @ u) / root)
