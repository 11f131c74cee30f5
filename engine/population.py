"""The data model's population in closed form: which counts are labelled +1, the mixture of
App. E.1.1 and its exact statistics (γ, σ̃², class balance). Below the settings module, so that
validation can use them; functions take any object with the settings' fields."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from .errors import ConfigError

if TYPE_CHECKING:
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above


def label_set(cfg: Config) -> tuple[int, ...]:
    """P for the configured labeling."""
    k = cfg.k
    if cfg.labeling == "parity":
        return tuple(i for i in range(1, k + 1) if i % 2 == 1)
    if cfg.labeling == "interval":
        return tuple(range(max(cfg.t1, 1), min(cfg.t2, k) + 1))
    if cfg.labeling == "threshold":
        return tuple(i for i in range(1, k + 1) if i > k / 2)
    return parse_counts(cfg.P, k)


def parse_counts(text: str, k: int) -> tuple[int, ...]:
    """Parse a custom P like '1,3,5' into sorted counts within [1, k]."""
    if not str(text).isascii():
        raise ConfigError("P", text, f"comma-separated integers in [1, {k}] in ASCII digits")
    try:
        counts = sorted({int(t) for t in str(text).replace(";", ",").split(",") if t.strip()})
    except ValueError:
        raise ConfigError("P", text, f"comma-separated integers in [1, {k}]") from None
    if not counts or counts[0] < 1 or counts[-1] > k:
        raise ConfigError("P", text, f"a non-empty list of integers in [1, {k}]")
    return tuple(counts)


@dataclass(frozen=True)
class Component:
    """A mixture component: relevant bits ~ Bern(p_rel) (0 or 1: fixed), background ~ Bern(q)."""

    weight: float
    p_rel: float  # probability of each relevant bit; 0 or 1 for the fixed all-0/all-1 parts
    q_bg: float


def parity_q1(p_o: float) -> float:
    """Pattern probability p_o/(2-2p_o) of the parity mixture's D(1) part; ConfigError on p_o
    when it exceeds 1 (p_o > 2/3) — the one place this rule is written."""
    q1 = p_o / (2 - 2 * p_o)
    if q1 > 1:
        raise ConfigError("p_o", p_o, "a number in (0, 2/3] for the parity mixture "
                          "(its D(1) part needs p_o/(2-2p_o) ≤ 1)")
    return q1


def components(cfg: Config) -> list[Component]:
    """The generative mixture for the configured labeling, with or without input structure."""
    if not cfg.structure:
        return [Component(1.0, 0.5, 0.5)]  # (A1'): every pattern uniform
    if cfg.labeling == "parity":
        # D_mix = p_o D(0) + (1 - p_o) D(1)  (App. E.1.1)
        q1 = parity_q1(cfg.p_o)
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
