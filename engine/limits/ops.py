"""Linear operators X (rows = samples) the solvers use through X w and Xᵀ u only: an explicit
feature matrix, the paper network's tangent features in closed form, a linear model's J v / Jᵀ u
by torch.func, and the exact n-dimensional embedding of an n×n Gram (the dual/kernel form)."""

from __future__ import annotations

import copy

import torch

DT = torch.float64
RANK_FLOOR = 1e-12  # a kernel's rank ends where its pivots fall below this × its largest diagonal
# explicit features (or an n×n Gram) are built while they take at most this many bytes; above it
# the solve is matrix-free (the NTK) or refused with its size
DENSE_BYTES = 1536 * 2**20


class Dense:
    """An explicit n×p feature matrix (float64); its n×n Gram X Xᵀ formed once, on demand, and
    shared by every path point's solve (or given: the kernel embedding's is K itself)."""

    def __init__(self, x: torch.Tensor, gram: torch.Tensor | None = None):
        self.x = x.to(DT)
        self.n, self.p = self.x.shape
        self._gram = gram

    def gram(self) -> torch.Tensor:
        """X Xᵀ (n×n), computed once."""
        if self._gram is None:
            self._gram = self.x @ self.x.T
        return self._gram

    def gram_block(self, rows: torch.Tensor) -> torch.Tensor:
        """X_R X_Rᵀ for the rows R (sliced from the Gram where it is formed)."""
        if self._gram is not None:
            return self._gram[rows][:, rows]
        part = self.x[rows]
        return part @ part.T

    def part(self, rows: torch.Tensor) -> Dense:
        """The operator of the rows R alone (X_R w, X_Rᵀ u at |R|·p, not n·p)."""
        return Dense(self.take(rows))

    def take(self, rows: torch.Tensor) -> torch.Tensor:
        """The rows R of X."""
        return self.x[rows]

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

    def rows(self, sl: slice | torch.Tensor) -> Tangent:
        """The operator of a block of rows (no copy of the arrays for a slice; an index tensor
        gathers them)."""
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

    def diagonal(self) -> torch.Tensor:
        """⟨x, x⟩ of each row by the closed form of gram: ‖σ‖² + ‖a σ'‖² (‖z‖² [+ 1])."""
        zz = (self.z * self.z).sum(1) + (1.0 if self.bias else 0.0)
        return (self.act * self.act).sum(1) + (self.slope * self.slope).sum(1) * zz

    def gram(self, other: Tangent) -> torch.Tensor:
        """⟨x, x'⟩ of other's rows with this one's: σσ'ᵀ + (a σ')(a σ')ᵀ ∘ (z z'ᵀ [+ 1]), each
        product made in place on the last (the same sums: 8 000² for gfl-multi-index's NTK
        2.4 → 1.3 s, three n×block temporaries fewer)."""
        inner = other.z @ self.z.T
        if self.bias:
            inner += 1.0
        slopes = (other.slope @ self.slope.T).mul_(inner)
        return (other.act @ self.act.T).add_(slopes)


class TangentDense(Dense):
    """A tangent operator's explicit features whose n×n Gram, where one is formed (libsvm's
    precomputed kernel, the Woodbury solves), comes from the closed form (Tangent.gram_blocked:
    n²(2·units + r) multiply-adds, not n²p: quick-parity's NTK 20 s → 3.7 s under load)."""

    def __init__(self, tangent: Tangent):  # not Dense.__init__: that would build x at once
        self._tangent, self._x, self._gram = tangent, None, None
        self.n, self.p = tangent.n, tangent.p

    @property
    def x(self) -> torch.Tensor:
        """The explicit features, built on first use (libsvm's solve and certificate need
        only X w, Xᵀ u and the Gram: 416 MB not built on quick-parity)."""
        if self._x is None:
            self._x = self._tangent.dense().x
        return self._x

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """X w by the tangent's closed form."""
        return self._tangent.mv(w)

    def rmv(self, u: torch.Tensor) -> torch.Tensor:
        """Xᵀ u by the tangent's closed form."""
        return self._tangent.rmv(u)

    def gram(self, block: int = 2048) -> torch.Tensor:
        """X Xᵀ by the tangent's closed form, computed once: the blocks on and above the diagonal
        (half the work), those below mirrored."""
        if self._gram is None:
            t, n = self._tangent, self.n
            out = torch.empty(n, n, dtype=DT)
            for i in range(0, n, block):
                end = min(i + block, n)
                out[i:end, i:] = t.rows(slice(i, n)).gram(t.rows(slice(i, end)))
                out[end:, i:end] = out[i:end, end:].T
            self._gram = out
        return self._gram

    def gram_block(self, rows: torch.Tensor) -> torch.Tensor:
        """X_R X_Rᵀ for the rows R by the closed form (|R|²(2·units + r), not the n×n Gram)."""
        if self._gram is not None:
            return self._gram[rows][:, rows]
        part = self._tangent.rows(rows)
        return part.gram(part)

    def part(self, rows: torch.Tensor) -> Tangent:
        """The closed-form operator of the rows R alone."""
        return self._tangent.rows(rows)


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

    def gram_block(self, rows: torch.Tensor) -> torch.Tensor:
        """K_RR for the training rows R."""
        return self.k[rows][:, rows]


class Embedded:
    """Test rows of a kernel embedding, Φ_t = K_t[:, P] L⁻ᵀ (L the train Gram's Cholesky factor
    on its pivots P), applied as Φ_t w = K_t[:, P] (L⁻ᵀ w): never formed (an n_t × n triangular
    solve, 3.5 s at n = 4000, for the few predictions made)."""

    def __init__(self, cols: torch.Tensor, low: torch.Tensor):
        self.cols, self.low = cols, low
        self.n, self.p = cols.shape[0], low.shape[0]

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """Φ_t w (w a vector or a matrix of columns)."""
        col = w[:, None] if w.dim() == 1 else w
        out = self.cols @ torch.linalg.solve_triangular(self.low.T, col, upper=True)
        return out[:, 0] if w.dim() == 1 else out


def kernel_embedding(k_train: torch.Tensor, k_test: torch.Tensor) -> tuple[Dense, Embedded]:
    """Rows Φ with ΦΦᵀ = K and the test rows Φ_t with Φ_t Φᵀ = K_t, from the Cholesky factor
    K = LLᵀ (Φ = L); a singular K by LAPACK's pivoted Cholesky (dpstrf), its rank r where the
    pivots fall below RANK_FLOOR of the largest diagonal: Φ = L_r on the pivoted rows, the Nyström
    form, exact for a rank-r K. A ridge-regularised linear model (its weights in the span of the
    training rows) has the same predictions; 7× faster than the eigendecomposition at n = 4000."""
    k_train, k_test = k_train.to(DT), k_test.to(DT)
    floor = RANK_FLOOR * float(k_train.diagonal().max().clamp_min(1e-300))
    low, info = torch.linalg.cholesky_ex(k_train)
    if int(info) == 0 and float(low.diagonal().min()) ** 2 > floor:
        return Dense(low, gram=k_train), Embedded(k_test, low)
    keep, group = _distinct_rows(k_train, floor)
    if len(keep) < len(k_train):  # repeated samples (gfl-parity-blocks: 46 of 4000) make K
        # singular; K on the distinct rows is often not: its plain Cholesky (0.07 s) instead
        # of the pivoted one (dpstrf, 0.9 s), Φ the distinct rows' factor repeated
        low, info = torch.linalg.cholesky_ex(k_train[keep][:, keep])
        if int(info) == 0 and float(low.diagonal().min()) ** 2 > floor:
            return Dense(low[group], gram=k_train), Embedded(k_test[:, keep], low)
    from scipy.linalg.lapack import dpstrf  # here: `import engine.cli` stays free of scipy

    fac, piv, rank, _ = dpstrf(k_train.numpy(), lower=1, tol=floor)
    piv = torch.from_numpy(piv.astype("int64") - 1)
    low = torch.from_numpy(fac).tril()[:, :rank]
    phi = torch.empty_like(low)
    phi[piv] = low
    return Dense(phi, gram=k_train), Embedded(k_test[:, piv[:rank]], low[:rank].contiguous())


ROW_BLOCK = 1024  # _distinct_rows' rows per block (1024 × n distances at a time)


def _distinct_rows(k: torch.Tensor, floor: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(the distinct samples' indices, each row's index among them): a row whose squared
    feature distance K_ii + K_jj − 2K_ij to an earlier row j is ≤ floor (a repeat, equal up to
    rounding) is that row's; its first such j has none earlier."""
    diag, n = k.diagonal(), len(k)
    first, cols = torch.arange(n), torch.arange(n)
    for lo in range(0, n, ROW_BLOCK):  # by row blocks: no n×n temporaries beside K itself
        rows = torch.arange(lo, min(lo + ROW_BLOCK, n))
        near = (diag[rows, None] + diag[None, :] - 2 * k[rows]) <= floor
        near &= cols[None, :] < rows[:, None]  # earlier rows only
        hit = near.any(1)
        first[rows[hit]] = near[hit].to(torch.uint8).argmax(1)
    keep = (first == torch.arange(len(k))).nonzero().flatten()
    where = torch.full((len(k),), -1, dtype=torch.long)
    where[keep] = torch.arange(len(keep))
    return keep, where[first]
