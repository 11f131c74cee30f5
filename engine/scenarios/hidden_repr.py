"""Hidden-representation labelling (App. E.3.1): φ̃_A drawn from a set of labelled binary vectors.

2·v random vectors in {0,1}^k (v per label; the paper: k = 50, v = 50), φ̃_A uniform over the
set, background φ̃_j (j ∉ A) i.i.d. Bernoulli(p_o), x̃ = Mφ̃. Headline (Fig. 15, P 3808): the
neuron weights form clusters. The ground-truth star Σ_A M is kept for the common probes; the
labelled vectors are the Dataset's `centres` (centred and scaled like the inputs).
The paper's parity-tuned schedule collapses every neuron onto the single direction E[y x] here
(labels are a random function of φ̃_A, test ≈ 46%), so the preset trains by typical practice
(SGD + momentum, weight decay 3e-3): test ≈ 98%, the relevant share of the weights
(weight_ratio) grows from 0.5 at init to > 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..data import Dataset, random_dictionary
from ..preset import Preset
from ..spec import Spec, WorldRecord
from ._common import TRAINING, stats

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "hidden_repr"


def vectors(cfg: Config, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The 2v distinct binary vectors (rows) and their labels (+1 for the first v)."""
    v, k = cfg.vectors, cfg.k
    if 2 * v > 2**k:
        v = 2 ** (k - 1)
    seen: dict[bytes, None] = {}
    while len(seen) < 2 * v:
        row = (rng.random(k) < 0.5).astype(np.uint8)
        seen.setdefault(row.tobytes(), None)
    V = np.array([np.frombuffer(b, dtype=np.uint8) for b in seen], dtype=np.float32)
    return V, np.where(np.arange(2 * v) < v, 1.0, -1.0).astype(np.float32)


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Dictionary, vectors, samples; pattern coordinates unless space == 'input'."""
    seeds = np.random.SeedSequence([cfg.seed, 0x41DD]).spawn(3)
    rng_d, rng_tr, rng_te = (np.random.default_rng(s) for s in seeds)
    M = random_dictionary(rng_d, cfg.d, cfg.D)
    A = np.sort(rng_d.choice(cfg.D, size=cfg.k, replace=False))
    V, lab = vectors(cfg, rng_d)
    mean = np.full(cfg.D, cfg.p_o, dtype=np.float32)
    mean[A] = V.mean(axis=0)
    var_rel = V.var(axis=0)
    sigma2 = float(var_rel.sum() + (cfg.D - cfg.k) * cfg.p_o * (1 - cfg.p_o))
    cov = (V * lab[:, None]).mean(axis=0) - lab.mean() * V.mean(axis=0)
    # the labels are random functions of φ̃_A, so E[y φ̃_j] - E y E φ̃_j has a random sign per j;
    # its mean magnitude stands in for γ in the schedule's scales
    st = stats(sigma2, gamma=float(np.abs(cov).mean()), mean_rel=float(V.mean()),
               mean_bg=cfg.p_o)
    scale = np.float32(1 / np.sqrt(sigma2))

    def draw(rng, n):
        idx = rng.integers(0, len(V), size=n)
        phi = (rng.random((n, cfg.D)) < cfg.p_o).astype(np.float32)
        phi[:, A] = V[idx]
        return (phi - mean) * scale, lab[idx]

    z_tr, y_tr = draw(rng_tr, cfg.n)
    z_te, y_te = draw(rng_te, cfg.n_test)
    centres = np.zeros((len(V), cfg.D))
    centres[:, A] = (V - mean[A]) * scale
    if space == "input":
        Mf = M.astype(np.float32)
        ds = Dataset(M, A, np.eye(cfg.d), z_tr @ Mf.T, y_tr, z_te @ Mf.T, y_te, st)
        centres = centres @ M.T
    else:
        ds = Dataset(M, A, M, z_tr, y_tr, z_te, y_te, st)
    ds.centres, ds.centre_labels = centres, lab
    return ds


PRESETS = [
    Preset("paper-hidden-repr", "Hidden-representation labeling (App. E.3.1, Fig. 15)",
           "φ̃_A uniform over 100 random binary vectors (50 per label), background uniform; "
           "d = 500, D = 250, k = 50, p_o = 1/2. The neuron weights form clusters.",
           "App. E.3.1, Fig. 15",
           {"scenario": SCENARIO, "d": 500, "D": 250, "k": 50, "p_o": 0.5, "vectors": 50,
            "n": 20000, "n_test": 5000, "m": 100, "T": 800, "schedule": "standard",
            "batch": 200, "eta": 0.05, "lam": 3e-3}),
]

RECORD = WorldRecord(
    SCENARIO, "hidden representation: φ̃_A drawn from labelled binary vectors (App. E.3.1)",
    make_dataset, presets=tuple(PRESETS), pattern_space=True,
    # its vectors, not a labeling; structure is read by the paper's schedule (γ)
    common=("d", "D", "k", "p_o", "structure", "n", "n_test", "seed", TRAINING),
    settings={"vectors": Spec(int, 2, 100_000, label="vectors per label", default=50,
                              help="hidden representation: binary vectors φ̃_A per label "
                                   "(App. E.3.1)")})
