"""The sparse-coding data model of Section 3 / App. E: dictionary, labelings, exact statistics."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from .config import Config, ConfigError, label_set
from .mds import single_thread_blas


@dataclass(frozen=True)
class Component:
    """A mixture component: relevant bits ~ Bern(p_rel) (0 or 1: fixed), background ~ Bern(q)."""

    weight: float
    p_rel: float  # probability of each relevant bit; 0 or 1 for the fixed all-0/all-1 parts
    q_bg: float


def components(cfg: Config) -> list[Component]:
    """The generative mixture for the configured labeling, with or without input structure."""
    if not cfg.structure:
        return [Component(1.0, 0.5, 0.5)]  # (A1'): every pattern uniform
    if cfg.labeling == "parity":
        # D_mix = p_o D(0) + (1 - p_o) D(1)  (App. E.1.1)
        q1 = cfg.p_o / (2 - 2 * cfg.p_o)
        if q1 > 1:
            raise ConfigError("p_o", cfg.p_o, "a number in (0, 2/3] for the parity mixture "
                              "(D(1) needs p_o/(2-2p_o) ≤ 1)")
        half = (1 - cfg.p_o) / 2
        return [Component(cfg.p_o, 0.5, 0.5), Component(half, 1.0, q1), Component(half, 0.0, q1)]
    return [Component(1.0, cfg.p_a, cfg.p_o)]


def _count_pmf(p: float, k: int) -> np.ndarray:
    """Pr[count = c] for c = 0..k of k Bern(p) bits (p may be exactly 0 or 1)."""
    return np.array([comb(k, c) * p**c * (1 - p) ** (k - c) for c in range(k + 1)])


@dataclass(frozen=True)
class Stats:
    """Exact population statistics of the (possibly class-reweighted) distribution."""

    mean_rel: float  # E[φ̃_j], j ∈ A
    mean_bg: float  # E[φ̃_j], j ∉ A
    gamma: float  # E[y φ̃_j] - E[y] E[φ̃_j], j ∈ A  (A1)
    sigma2: float  # σ̃² = trace of the covariance of x̃
    pos_frac: float  # Pr[y = +1]
    natural_pos_frac: float  # Pr[y = +1] before any class reweighting

    @property
    def sigma(self) -> float:
        """σ̃."""
        return float(np.sqrt(self.sigma2))


def population_stats(cfg: Config) -> Stats:
    """γ, σ̃², means and class balance in closed form from the mixture (no sampling)."""
    k, labels = cfg.k, np.zeros(cfg.k + 1)
    labels[list(label_set(cfg))] = 1.0  # indicator of y = +1 per count
    mass = np.zeros(2)  # class masses [neg, pos]
    rel = np.zeros(2)  # E[φ̃_j 1{y=v}], j ∈ A
    bg = np.zeros(2)  # E[φ̃_j 1{y=v}], j ∉ A
    for c in components(cfg):
        pos = float(_count_pmf(c.p_rel, k) @ labels)
        pos_given_on = float(_count_pmf(c.p_rel, k - 1) @ labels[1:])  # one relevant bit is on
        cls = np.array([1 - pos, pos])
        mass += c.weight * cls
        rel += c.weight * c.p_rel * np.array([1 - pos_given_on, pos_given_on])
        bg += c.weight * c.q_bg * cls
    natural = mass[1]
    if natural <= 0 or natural >= 1:
        raise ConfigError("labeling", cfg.labeling, "a labeling that produces both classes")
    weights = np.ones(2)
    if cfg.neg_ratio is not None:
        weights = np.array([cfg.neg_ratio, 1 - cfg.neg_ratio]) / mass
    mass, rel, bg = mass * weights, rel * weights, bg * weights
    mean_rel, mean_bg = rel.sum(), bg.sum()
    ey = mass[1] - mass[0]
    gamma = (rel[1] - rel[0]) - ey * mean_rel
    sigma2 = k * mean_rel * (1 - mean_rel) + (cfg.D - k) * mean_bg * (1 - mean_bg)
    sigma2 += cfg.d * cfg.noise**2
    return Stats(float(mean_rel), float(mean_bg), float(gamma), float(sigma2), float(mass[1]),
                 float(natural))


def random_dictionary(rng: np.random.Generator, d: int, D: int) -> np.ndarray:
    """A random d×D matrix with orthonormal columns (QR of a Gaussian, signs fixed)."""
    with single_thread_blas():  # same M whatever the BLAS thread count; no spinning under load
        q, r = np.linalg.qr(rng.standard_normal((d, D)))
    return q * np.sign(np.where(np.diag(r) == 0, 1, np.diag(r)))


def _sample_raw(cfg: Config, rng: np.random.Generator, n: int, A: np.ndarray):
    """n draws of (φ̃, y) from the mixture, natural class balance."""
    comps = components(cfg)
    which = rng.choice(len(comps), size=n, p=[c.weight for c in comps])
    p_rel = np.array([c.p_rel for c in comps])[which]
    q_bg = np.array([c.q_bg for c in comps])[which]
    u = rng.random((n, cfg.D))
    rel_mask = np.zeros(cfg.D, dtype=bool)
    rel_mask[A] = True
    prob = np.where(rel_mask[None, :], p_rel[:, None], q_bg[:, None])
    phi = (u < prob).astype(np.float32)
    counts = phi[:, A].sum(axis=1).astype(int)
    pos = np.isin(counts, label_set(cfg))
    return phi, np.where(pos, 1.0, -1.0).astype(np.float32)


def sample(cfg: Config, rng: np.random.Generator, n: int, A: np.ndarray):
    """n samples (φ̃, y); with neg_ratio, exactly round(n·ratio) negatives by rejection."""
    if cfg.neg_ratio is None:
        return _sample_raw(cfg, rng, n, A)
    n_neg = int(round(n * cfg.neg_ratio))
    want = {-1.0: n_neg, 1.0: n - n_neg}
    natural = population_stats(cfg).natural_pos_frac
    rarest = min(natural, 1 - natural)
    if rarest < 1e-3:
        raise ConfigError("neg_ratio", cfg.neg_ratio, "auto for this labeling (a class is too rare "
                          "to resample)")
    kept_phi, kept_y, have = [], [], {-1.0: 0, 1.0: 0}
    while have[-1.0] < want[-1.0] or have[1.0] < want[1.0]:
        phi, y = _sample_raw(cfg, rng, max(n, 1000), A)
        for v in (-1.0, 1.0):
            idx = np.flatnonzero(y == v)[: want[v] - have[v]]
            kept_phi.append(phi[idx])
            kept_y.append(y[idx])
            have[v] += len(idx)
    phi, y = np.concatenate(kept_phi), np.concatenate(kept_y)
    order = rng.permutation(n)
    return phi[order], y[order]


@dataclass
class Dataset:
    """Train/test data in coordinates of an orthonormal basis B (x = B z) plus the ground truth."""

    M: np.ndarray  # d×D dictionary
    A: np.ndarray  # relevant pattern indices
    basis: np.ndarray  # d×r basis of the coordinates (M, or I_d when x leaves span(M))
    z_train: np.ndarray  # n×r coordinates of normalised inputs
    y_train: np.ndarray
    z_test: np.ndarray
    y_test: np.ndarray
    stats: Stats
    # Scenarios without one planted Σ_A M (mixtures, real data) set has_truth False and may give
    # K×r cluster centres with their ±1 labels for the map (engine/scenarios/__init__.py).
    has_truth: bool = True
    centres: np.ndarray | None = None
    centre_labels: np.ndarray | None = None

    @property
    def in_pattern_space(self) -> bool:
        """True when coordinates are the D pattern coefficients φ (the exact fast path)."""
        return self.basis is self.M

    @property
    def truth(self) -> np.ndarray:
        """Σ_{j∈A} M_j in d-space."""
        return self.M[:, self.A].sum(axis=1)

    @property
    def truth_coords(self) -> np.ndarray:
        """Σ_{j∈A} M_j in the coordinates of the basis."""
        return self.basis.T @ self.truth if not self.in_pattern_space else _indicator(self)

    @property
    def patterns_in_coords(self) -> np.ndarray:
        """r×D matrix Bᵀ M: column j is pattern M_j in coordinates."""
        return np.eye(self.M.shape[1]) if self.in_pattern_space else self.basis.T @ self.M


def _indicator(ds: Dataset) -> np.ndarray:
    v = np.zeros(ds.M.shape[1])
    v[ds.A] = 1.0
    return v


def _normalise(cfg: Config, st: Stats, phi: np.ndarray, A: np.ndarray) -> np.ndarray:
    """φ = (φ̃ - E φ̃)/σ̃ with population means (the paper's x = (x̃ - E x̃)/σ̃)."""
    mean = np.full(cfg.D, st.mean_bg, dtype=np.float32)
    mean[A] = st.mean_rel
    return (phi - mean) / np.float32(st.sigma)


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Draw M, A, train and test sets from the seed; space 'pattern', 'input' or 'auto'."""
    if cfg.scenario != "sparse_coding":
        from . import scenarios

        return scenarios.make_dataset(cfg, space)
    seeds = np.random.SeedSequence([cfg.seed, 0xFEA7]).spawn(4)
    rng_dict, rng_train, rng_test, rng_noise = (np.random.default_rng(s) for s in seeds)
    M = random_dictionary(rng_dict, cfg.d, cfg.D)
    A = np.sort(rng_dict.choice(cfg.D, size=cfg.k, replace=False))
    st = population_stats(cfg)
    phi_tr, y_tr = sample(cfg, rng_train, cfg.n, A)
    phi_te, y_te = sample(cfg, rng_test, cfg.n_test, A)
    z_tr, z_te = _normalise(cfg, st, phi_tr, A), _normalise(cfg, st, phi_te, A)
    if space == "pattern" and cfg.noise > 0:
        raise ConfigError("noise", cfg.noise,
                          "0 for the pattern-space path (noisy x leaves span(M))")
    if space == "input" or (space == "auto" and cfg.noise > 0):
        Mf = M.astype(np.float32)
        z_tr, z_te = z_tr @ Mf.T, z_te @ Mf.T
        if cfg.noise > 0:
            scale = np.float32(cfg.noise / st.sigma)
            z_tr += scale * rng_noise.standard_normal(z_tr.shape, dtype=np.float32)
            z_te += scale * rng_noise.standard_normal(z_te.shape, dtype=np.float32)
        return Dataset(M, A, np.eye(cfg.d), z_tr, y_tr, z_te, y_te, st)
    return Dataset(M, A, M, z_tr, y_tr, z_te, y_te, st)
