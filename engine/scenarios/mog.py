"""Mixture of Gaussians with parity labels (App. E.3.2, Table 6, Fig. 16).

x = Σ_{i≤k} ε_i M_{:,i} + g with ε_i = ±1, g ~ N(0, σ_r² (k/d) I_d), y = Π ε_i: 2^k clusters at
the hypercube vertices, labelled by parity. Trained by typical practice (schedule 'standard').
Headline (P 3855–3857): every centre has a neuron whose direction has cosine ≥ 0.9 with it.
The paper's optimiser settings are not given; the standard schedule's init (σ_w = 1 on unit-norm
inputs) is lazy at m = 800 (coverage stays ≈ 0.6 without decay), so the presets add weight decay
λ = 5e-3: unused neurons decay and the surviving ones sit on the centres (coverage ≥ 0.99).
The Dataset gets `centres` (2^k × d, scaled like the inputs) and `centre_labels`.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from ..data import Dataset, random_dictionary
from ..preset import Preset
from ..spec import Spec, WorldRecord
from ._common import TRAINING, input_space, stats

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "mog"


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """M is d×k (D = k, A = all), inputs divided by σ̃ = √(k(1 + σ_r²)) (trace of the covariance)."""
    seeds = np.random.SeedSequence([cfg.seed, 0x3060]).spawn(3)
    rng_d, rng_tr, rng_te = (np.random.default_rng(s) for s in seeds)
    k, d = cfg.k, cfg.d
    M = random_dictionary(rng_d, d, k)
    sigma2 = k * (1 + cfg.sigma_r**2)
    scale = 1 / np.sqrt(sigma2)
    noise = cfg.sigma_r * np.sqrt(k / d)

    def draw(rng, n):
        eps = rng.choice([-1.0, 1.0], size=(n, k))
        x = eps @ M.T + noise * rng.standard_normal((n, d))
        return x * scale, np.prod(eps, axis=1)

    x_tr, y_tr = draw(rng_tr, cfg.n)
    x_te, y_te = draw(rng_te, cfg.n_test)
    ds = input_space(M, np.arange(k), x_tr, y_tr, x_te, y_te, stats(sigma2))
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=k)))
    ds.centres = signs @ M.T * scale
    ds.centre_labels = np.prod(signs, axis=1)
    ds.has_truth = False  # the features are the 2^k centres, not one Σ_A M star
    return ds


def _preset(i: int, d: int, k: int, sigma_r: float) -> Preset:
    return Preset(f"paper-mog-{i}", f"Mixture of Gaussians, experiment {i} (Table 6, Fig. 16)",
                  f"2^{k} = {2**k} Gaussian clusters at ±1 hypercube vertices in d = {d}, noise "
                  f"σ_r = {sigma_r}, parity labels; m = 800, typical practice (SGD+momentum). "
                  "Every centre gets a neuron aligned with it (cos ≥ 0.9).",
                  "App. E.3.2, Table 6",
                  {"scenario": SCENARIO, "d": d, "D": k, "k": k, "sigma_r": sigma_r,
                   "labeling": "parity", "schedule": "standard", "m": 800, "n": 10000,
                   "n_test": 5000, "batch": 200, "T": 1600, "lam": 5e-3})


PRESETS = [_preset(1, 100, 4, 1.0), _preset(2, 25, 4, 0.7), _preset(3, 100, 5, 1.0)]

RECORD = WorldRecord(
    SCENARIO, "mixture of Gaussians at the hypercube's vertices, parity labels (App. E.3.2)",
    make_dataset, presets=tuple(PRESETS), dictionary=False,
    # σ_r and k make the mixture; structure is read by the paper's schedule (γ)
    common=("d", "k", "structure", "n", "n_test", "seed", TRAINING),
    settings={"sigma_r": Spec(float, 0, 10, label="σ_r", default=1.0,
                              help="mixture of Gaussians: noise g ~ N(0, σ_r² k/d I) (App. E.3.2); "
                                   "FCB: in-cluster noise N(0, σ_r²/d I)")})
