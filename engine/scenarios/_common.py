"""Shared helpers: building a `Dataset` for worlds outside the sparse-coding model, and probes."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field

import numpy as np
import torch

from ..data import Dataset, Stats
from ..errors import ConfigError
from ..snapshot import Snapshot

# The common data settings (engine.config.COMMON's group "data"; a test checks this list). A
# world's `common` may name TRAINING for every other common setting: the procedure's to read.
DATA_COMMON = ("scenario", "labeling", "d", "D", "k", "p_o", "p_a", "t1", "t2", "P",
               "structure", "neg_ratio", "noise", "n", "n_test", "seed")
TRAINING = "training"
# k where no data reads it: only the paper's and the theory's step-1 formulas do (engine.schedule)
SCHEDULE_K = (lambda cfg: cfg.schedule != "standard", "with schedule=paper or theory")


def check_odd_parity(cfg) -> None:
    """The parity mixture's rule: an even k leaves its labels without a parity to learn."""
    if cfg.labeling == "parity" and cfg.k % 2 == 0:
        raise ConfigError("k", cfg.k, "an odd integer for the parity labeling (App. E.1.1)")


def stats(sigma2: float, gamma: float = 0.0, mean_rel: float = 0.0, mean_bg: float = 0.0,
          pos_frac: float = 0.5) -> Stats:
    """A Stats record for a scenario (σ̃² is what the inputs were divided by, squared)."""
    return Stats(float(mean_rel), float(mean_bg), float(gamma), float(sigma2), float(pos_frac),
                 float(pos_frac))


def input_space(M: np.ndarray, A: np.ndarray, x_tr: np.ndarray, y_tr: np.ndarray,
                x_te: np.ndarray, y_te: np.ndarray, st: Stats) -> Dataset:
    """A Dataset whose coordinates are the inputs themselves (basis = I_d)."""
    f = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
    d = x_tr.shape[1]
    return Dataset(M, np.asarray(A), np.eye(d), f(x_tr), f(y_tr), f(x_te), f(y_te), st)


def unit_rows(w: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm (zero rows stay zero)."""
    w = np.asarray(w, dtype=np.float64)
    n = np.linalg.norm(w, axis=1, keepdims=True)
    return w / np.where(n == 0, 1.0, n)


def centre_cosines(weights: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """K×2m cosines between every centre (rows, data coordinates) and every neuron."""
    return unit_rows(centres) @ unit_rows(weights).T


def centre_coverage(weights: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Per centre, the largest cosine of any neuron with it (MoG: every centre covered?)."""
    return centre_cosines(weights, centres).max(axis=1)


def neighbour_cosine(weights: np.ndarray, top: float = 1.0) -> float:
    """Median over neurons of the cosine with their nearest other neuron: ≈ 0 for random
    directions in high dimension, → 1 when the neurons sit in tight clusters. With top < 1 only
    that fraction of neurons with the largest norms is used (dead, unmoved neurons ignored)."""
    u = unit_rows(top_norm(weights, top))
    c = u @ u.T
    np.fill_diagonal(c, -np.inf)
    return float(np.median(c.max(axis=1)))


def top_norm(weights: np.ndarray, top: float) -> np.ndarray:
    """The fraction `top` of the rows with the largest norms (at least 2)."""
    w = np.asarray(weights, dtype=np.float64)
    if top >= 1.0:
        return w
    keep = np.argsort(-np.linalg.norm(w, axis=1))[: max(2, int(round(top * len(w))))]
    return w[keep]


def two_cluster_score(weights: np.ndarray, seed: int = 0,
                      top: float = 1.0) -> tuple[float, np.ndarray]:
    """2-means on the unit neuron directions (of the `top` fraction with the largest norms):
    mean cosine of a neuron with its cluster's centre direction, and the two centre directions."""
    from sklearn.cluster import KMeans  # here: scikit-learn costs ~1 s to import (issue 37)

    u = unit_rows(top_norm(weights, top))
    km = KMeans(n_clusters=2, n_init=10, random_state=seed).fit(u)
    cent = unit_rows(km.cluster_centers_)
    return float(np.mean(np.sum(u * cent[km.labels_], axis=1))), cent


@dataclass
class ScenarioSnapshot(Snapshot):
    """An engine Snapshot plus scenario numbers (`extra`), which scalars() includes."""

    extra: dict = field(default_factory=dict)

    def scalars(self) -> dict:
        """The Snapshot's scalars and the scenario's extra numbers."""
        return {**super().scalars(), **self.extra}


def with_extra(snap: Snapshot, extra: dict) -> ScenarioSnapshot:
    """A ScenarioSnapshot carrying snap's fields and the extra numbers."""
    fields = {f.name: getattr(snap, f.name) for f in dataclasses.fields(Snapshot)}
    return ScenarioSnapshot(**fields, extra=dict(extra))


@contextlib.contextmanager
def torch_threads(n: int = 1):
    """Run tiny torch loops on n threads (restored after): on a busy 2-core machine a 1258×64
    teacher took 18 s with two spinning threads and 2 s with one."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
