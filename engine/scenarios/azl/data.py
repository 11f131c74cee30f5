"""The AZL world's data: x uniform on {±1}³⁰, y = βF(x) + αG(F(x)) ∈ ℝᵏ (spec §3.1.1)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .config import AZLConfig

# per-step probe points; the last step uses the whole sets. The test probe carries c_F and c_G
# (their sampling error is ≈ 0.04 on 1 024 points); the train error only needs a trend, and a
# larger train probe made fc3's 300×300 layer cost more in probes than in training
TEST_PROBE, TRAIN_PROBE = 1024, 256
G_SUPPORT = (0, 1, 2, 3)  # the F coordinates G_1 (out₁'s hierarchical part) reads


def features_F(x: np.ndarray, k: int) -> np.ndarray:
    """F_r(x) = x_{2r−1} x_{2r} for r = 1..k (n×k)."""
    return x[:, 0:2 * k:2] * x[:, 1:2 * k:2]


def features_G(f: np.ndarray, variant: str) -> np.ndarray:
    """G(F) (n×k): G_r = (−1)^r F₁F₂F₃F₄, or in the literal reading F₁F₂F₃F₄ for odd r and
    F₅F₆F₇F₈ for even r (the source's two printed outputs, alternated over the k rows)."""
    k = f.shape[1]
    first = np.prod(f[:, 0:4], axis=1)
    if variant == "literal":
        second = np.prod(f[:, 4:8], axis=1)
        return np.stack([first if r % 2 == 1 else second for r in range(1, k + 1)], axis=1)
    signs = np.array([(-1.0) ** r for r in range(1, k + 1)])
    return first[:, None] * signs[None, :]


def target(x: np.ndarray, cfg: AZLConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, F, G) of inputs x."""
    f = features_F(x, cfg.k)
    g = features_G(f, cfg.variant)
    return cfg.beta * f + cfg.alpha * g, f, g


def population_moments(cfg: AZLConfig) -> dict:
    """Exact population moments by enumerating F ∈ {±1}ᵏ (its coordinates are independent
    fair signs because the pairs are disjoint): E‖y‖², the Gram matrices of F and G, E[F Gᵀ]."""
    f = np.array(list(itertools.product((-1.0, 1.0), repeat=cfg.k)))
    g = features_G(f, cfg.variant)
    y = cfg.beta * f + cfg.alpha * g
    count = len(f)
    return {"E_y2": float((y**2).sum(axis=1).mean()), "FF": f.T @ f / count,
            "GG": g.T @ g / count, "FG": f.T @ g / count}


@dataclass
class AZLData:
    """Train and test sets with the F and G parts of every target (float32)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    F_test: np.ndarray
    G_test: np.ndarray
    F_train: np.ndarray
    G_train: np.ndarray


def draw(rng: np.random.Generator, n: int, cfg: AZLConfig):
    """n inputs uniform on {±1}ᵈ and their (y, F, G)."""
    x = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=(n, cfg.d))
    y, f, g = target(x, cfg)
    return x, y.astype(np.float32), f.astype(np.float32), g.astype(np.float32)


def make_data(cfg: AZLConfig) -> AZLData:
    """The seed's train and test sets (independent generators, the same for every method)."""
    rng_train, rng_test = (np.random.default_rng(s)
                           for s in np.random.SeedSequence([cfg.seed, 0xA21]).spawn(2))
    x_tr, y_tr, f_tr, g_tr = draw(rng_train, cfg.n, cfg)
    x_te, y_te, f_te, g_te = draw(rng_test, cfg.n_test, cfg)
    return AZLData(x_tr, y_tr, x_te, y_te, f_te, g_te, f_tr, g_tr)


def pair_stars(cfg: AZLConfig) -> np.ndarray:
    """The 4k unit pair features ±(e_{2r−1} ± e_{2r})/√2 in ℝᵈ (rows): x_{2r−1}x_{2r} on ±1
    inputs is 1 − σ(x_{2r−1} − x_{2r}) − σ(x_{2r} − x_{2r−1}) = σ(x_{2r-1}+x_{2r}) +
    σ(−x_{2r−1}−x_{2r}) − 1, so these are the directions a first layer needs (spec §3.1.3)."""
    rows = []
    for r in range(cfg.k):
        for s1, s2 in ((1, 1), (-1, -1), (1, -1), (-1, 1)):
            v = np.zeros(cfg.d)
            v[2 * r], v[2 * r + 1] = s1, s2
            rows.append(v / np.sqrt(2.0))
    return np.array(rows)
