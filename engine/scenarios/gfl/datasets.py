"""The data of the GFL worlds the project did not have (spec §3.2, §3.4–3.6). Each draws from
its own generators seeded by cfg.seed; XOR (fcb's generator) and linear data (the sparse-coding
threshold labeling) reuse the existing worlds' generators."""

from __future__ import annotations

import numpy as np

from ...data import Dataset, Directions, orthonormal_span, random_dictionary
from .._common import input_space, stats


def _rngs(cfg, tag: int, count: int = 3) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence([cfg.seed, tag]).spawn(count)]


def uniform_parity(cfg) -> Dataset:
    """x uniform on {±1}^d, y = Π_{i∈A} x_i with |A| = k (B.53); truth Σ_A e_j, U = span e_A."""
    rng_a, rng_tr, rng_te = _rngs(cfg, 0x0BA2)
    A = np.sort(rng_a.choice(cfg.d, size=cfg.k, replace=False))

    def draw(rng, n):
        x = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=(n, cfg.d))
        return x, np.prod(x[:, A], axis=1)

    (x_tr, y_tr), (x_te, y_te) = draw(rng_tr, cfg.n), draw(rng_te, cfg.n_test)
    return input_space(np.eye(cfg.d), A, x_tr, y_tr, x_te, y_te, stats(float(cfg.d)))


def he2(z: np.ndarray) -> np.ndarray:
    """The second Hermite polynomial z² − 1."""
    return z * z - 1.0


def multi_index_target(z1: np.ndarray, z2: np.ndarray) -> np.ndarray:
    """g(z₁, z₂) = [He₂(z₁) − He₂(z₂) + He₂(z₁)He₂(z₂)]/√8: E g = 0, E g x = 0, E g² = 1,
    E∇²g = diag(1, −1)/√2 (rank 2), degree 4 (spec §3.6)."""
    return (he2(z1) - he2(z2) + he2(z1) * he2(z2)) / np.sqrt(8.0)


def multi_index(cfg) -> Dataset:
    """x ~ N(0, I_d), y = g(⟨u₁, x⟩, ⟨u₂, x⟩) real-valued; the truth is the plane span(u₁, u₂)."""
    rng_u, rng_tr, rng_te = _rngs(cfg, 0xDA3)
    U = random_dictionary(rng_u, cfg.d, 2)

    def draw(rng, n):
        x = rng.standard_normal((n, cfg.d))
        z = x @ U
        return x, multi_index_target(z[:, 0], z[:, 1])

    (x_tr, y_tr), (x_te, y_te) = draw(rng_tr, cfg.n), draw(rng_te, cfg.n_test)
    ds = input_space(U, np.array([0, 1]), x_tr, y_tr, x_te, y_te, stats(float(cfg.d)))
    ds.task, ds.has_truth = "regression", False
    ds.directions = Directions(U.T, np.array([0, 1]), "subspace", U)
    return ds


def parity_blocks(cfg) -> Dataset:
    """x = Mφ (B.396–B.397): with probability 1 − 2r·p_A the relevant φ_A are uniform ±1, with
    p_A each block j is all +1 or all −1 and the other blocks 0; background ±1 w.p. p_o each,
    else 0; y = sign Σ_j Π_{l∈A_j} φ_l (r, k odd). Stars: D_j = Σ_{A_j} M_l/√k."""
    rng_m, rng_tr, rng_te = _rngs(cfg, 0xB10C)
    M = random_dictionary(rng_m, cfg.d, cfg.d)
    A = np.sort(rng_m.choice(cfg.d, size=cfg.r * cfg.k, replace=False))
    blocks = A.reshape(cfg.r, cfg.k)

    def draw(rng, n):
        phi = rng.choice([-1.0, 0.0, 1.0], size=(n, cfg.d), p=[cfg.p_o, 1 - 2 * cfg.p_o, cfg.p_o])
        phi[:, A] = rng.choice([-1.0, 1.0], size=(n, len(A)))
        comp = rng.choice(2 * cfg.r + 1, size=n, p=[1 - 2 * cfg.r * cfg.p_a]
                          + [cfg.p_a] * (2 * cfg.r))
        for j in range(cfg.r):
            for sign, c in ((1.0, 1 + 2 * j), (-1.0, 2 + 2 * j)):
                rows = comp == c
                phi[np.ix_(rows, A)] = 0.0
                phi[np.ix_(rows, blocks[j])] = sign
        y = np.sign(np.prod(phi[:, blocks], axis=2).sum(axis=1))
        return phi @ M.T, y, comp

    (x_tr, y_tr, _), (x_te, y_te, c_te) = draw(rng_tr, cfg.n), draw(rng_te, cfg.n_test)
    ds = input_space(M, A, x_tr, y_tr, x_te, y_te, stats(float(cfg.d)))
    ds.directions = Directions(np.stack([M[:, b].sum(axis=1) for b in blocks]),
                               np.arange(cfg.r), "feature", orthonormal_span(M[:, A]))
    ds.extras["uniform_test"] = (c_te == 0).astype(np.float32)  # the X_U points carry the parity
    return ds


def mixture(cfg) -> Dataset:
    """r clusters around orthonormal unit means µ_j (θ = 0), p_j = 1/r, noise N(0, σ_r²/d I)
    (σ_r² = σ_B in the source's units); label +1 for odd j, −1 for even j (spec §3.2)."""
    rng_m, rng_tr, rng_te = _rngs(cfg, 0x3A6)
    mu = random_dictionary(rng_m, cfg.d, cfg.r)
    labels = np.where(np.arange(cfg.r) % 2 == 0, 1.0, -1.0)  # j = 1, 3, … (1-based) are +1

    def draw(rng, n):
        which = rng.integers(0, cfg.r, size=n)
        x = mu[:, which].T + cfg.sigma_r / np.sqrt(cfg.d) * rng.standard_normal((n, cfg.d))
        return x, labels[which]

    (x_tr, y_tr), (x_te, y_te) = draw(rng_tr, cfg.n), draw(rng_te, cfg.n_test)
    ds = input_space(mu, np.arange(cfg.r), x_tr, y_tr, x_te, y_te, stats(1.0 + cfg.sigma_r**2))
    ds.has_truth, ds.centres, ds.centre_labels = False, mu.T.copy(), labels
    return ds
