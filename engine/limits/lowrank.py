"""A tangent kernel of small rank embedded without its n×n Gram: the pivoted Cholesky taken a
column at a time (each column K[:, j] by the closed form), stopped where the largest remaining
diagonal falls below the floor kernel_embedding uses (ops.RANK_FLOOR × K's largest diagonal). Its
rows Φ (ΦΦᵀ = K, exact for a rank-r K) and test rows Φ_t = K_t[:, P] L_P⁻ᵀ are those of the
Nyström form, as in ops.kernel_embedding; only r columns of K and of K_t are made. gfl-linear's
NTK has rank 51 of 4 000: 51 columns (ms) instead of the 4 000² Gram and its pivoted Cholesky
(≈ 3 s). A kernel whose rank passes `most` gives up (None): the caller forms the Gram."""

from __future__ import annotations

import torch

from .ops import DT, RANK_FLOOR, Dense, Embedded, Tangent

# columns taken before giving up: a column costs three passes over the n × units arrays
# (≈ 2.8 ms at n = 4 000, 250 units), so a full-rank kernel loses ≈ 0.2 s to the attempt
MOST = 64


def embedding(train: Tangent, test: Tangent) -> tuple[Dense, Embedded] | None:
    """(Φ, Φ_t) from at most MOST pivoted columns of the train kernel (and n/4), or None where
    its rank is larger."""
    n = train.n
    most = min(MOST, n // 4)
    d = train.diagonal()
    floor = RANK_FLOOR * float(d.max().clamp_min(1e-300))
    if _rank_passes(train, most, floor):
        return None
    low = torch.zeros(n, most, dtype=DT)
    piv: list[int] = []
    for j in range(most + 1):
        i = int(torch.argmax(d))
        if float(d[i]) <= floor:
            break
        if j == most:
            return None
        col = train.gram(train.rows(slice(i, i + 1)))[0]
        col -= low[:, :j] @ low[i, :j]
        low[:, j] = col / float(d[i]) ** 0.5
        d -= low[:, j] ** 2
        if piv:  # zero on the earlier pivots (rounding's residue): L_P is triangular
            low[torch.tensor(piv), j] = 0.0
        d[i] = 0.0  # pivoted: exactly spent (rounding must not pick it again)
        piv.append(i)
    rank, at = len(piv), torch.tensor(piv, dtype=torch.long)
    phi = low[:, :rank].contiguous()
    cols = train.rows(at).gram(test).contiguous() if rank else torch.zeros(test.n, 0, dtype=DT)
    return Dense(phi), Embedded(cols, phi[at].contiguous())


def _rank_passes(train: Tangent, most: int, floor: float) -> bool:
    """Whether K's rank surely passes `most`: its block on most + 1 rows spread over the sample
    is positive definite above the floor (a principal block's rank bounds K's from below; ≈ 1 ms
    against the ≈ 0.2 s of `most` columns on a full-rank kernel)."""
    rows = torch.linspace(0, train.n - 1, most + 1).long().unique()
    if len(rows) <= most:
        return False
    block = train.rows(rows)
    return float(torch.linalg.eigvalsh(block.gram(block))[0]) > floor
