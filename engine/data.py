"""The sparse-coding data model of Section 3 / App. E: dictionary, labelings, exact statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .errors import ConfigError
from .mds import single_thread_blas
from .population import Stats, components, label_set, population_stats

if TYPE_CHECKING:  # the settings sit above the data: they list the worlds that draw it
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above


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


TASKS = ("binary", "regression")
DIRECTION_KINDS = ("feature", "centre", "subspace")


@dataclass
class Directions:
    """K unit feature directions in the data coordinates (the map's stars, one colour per group)
    and the relevant subspace U whose share ‖P_U w‖/‖w‖ the probes report."""

    vectors: np.ndarray  # K×r unit rows
    groups: np.ndarray  # K ints: directions of one group share a colour
    kind: str  # feature (a planted direction), centre (a cluster mean), subspace (spans U)
    relevant: np.ndarray | None = None  # r×s orthonormal basis of U; None: span of the vectors

    def __post_init__(self):
        if self.kind not in DIRECTION_KINDS:
            raise ValueError(f"kind must be one of {DIRECTION_KINDS}, not {self.kind!r}")
        v = np.asarray(self.vectors, dtype=np.float64)
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        self.vectors = v / np.where(norms == 0, 1.0, norms)
        self.groups = np.asarray(self.groups, dtype=int)
        if self.relevant is None:
            self.relevant = orthonormal_span(self.vectors.T)


def orthonormal_span(columns: np.ndarray) -> np.ndarray:
    """An orthonormal basis (columns) of the span of the given columns."""
    u, s, _ = np.linalg.svd(np.asarray(columns, dtype=np.float64), full_matrices=False)
    return u[:, s > 1e-9 * max(1.0, float(s.max(initial=0.0)))]


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
    # K names of the centres (fcb: +µ₁, −µ₁, +µ₂, −µ₂): each is a labelled star on the map with
    # its count of neurons; None: the centres are drawn as two unnamed groups by label
    centre_names: tuple[str, ...] | None = None
    # a world's own per-sample arrays, by name (e.g. masks of a mixture's parts, labels before
    # a world flipped some): engine/scenarios/__init__.py lists the ones the dashboard reads
    extras: dict = field(default_factory=dict)
    # "binary": y = ±1 (hinge loss, accuracy); "regression": real y, n or n×k (MSE, MSE / Var(y))
    task: str = "binary"
    # the feature directions a procedure's probes read (gfl's); None: derived from the
    # centres or from Σ_A M by feature_directions() below, so older worlds need not set it
    directions: Directions | None = None

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


def feature_directions(ds: Dataset) -> Directions | None:
    """The dataset's feature directions: its own, else its centres, else the star Σ_A M with
    span(M_A) as the relevant subspace; None for a world with neither."""
    if ds.directions is not None:
        return ds.directions
    if ds.centres is not None:
        return Directions(ds.centres, np.arange(len(ds.centres)), "centre")
    if not ds.has_truth:
        return None
    return Directions(ds.truth_coords[None, :], np.zeros(1), "feature",
                      orthonormal_span(ds.patterns_in_coords[:, ds.A]))


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
    """The sparse-coding world's data: M, A, train and test sets drawn from the seed (every
    world's data: engine.worlds.make_dataset); space 'pattern', 'input' or 'auto'."""
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
