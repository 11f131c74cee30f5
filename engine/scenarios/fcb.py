"""Random feature amplification (Frei, Chatterji & Bartlett 2022; paper-spec §7).

XOR-like clusters: x = µ + z with µ ∈ {±µ1} (clean label +1) or {±µ2} (−1), µ1 ⊥ µ2 unit,
z ~ N(0, σ² I), σ² = σ_r²/d; a fraction `flip` of the labels (train and test) is flipped.
Network f(x) = Σ_j a_j relu(⟨w_j, x⟩), 2m neurons, a_j = ±1/√(2m) fixed, W⁽⁰⁾ ~ N(0, ω²),
ω² = 1/(16·2m·d); full-batch gradient descent with step α (the `eta` setting, default 0.05) on
the logistic loss (always full batch: `batch` is unused). Headline [FCB 31, 122, 258–260]: the
normalised correlation ⟨w_j/‖w_j‖, µ⟩ jumps from Θ(1/√d) to Θ(1) in one step, and the test
error (noisy labels) approaches the noise rate.

The engine's trainer uses the hinge loss and trains a, so the world trains with its own
procedure, fcb2022 (engine/procedures/fcb2022: FCBRun, the engine's Snapshot type with extra
per-step numbers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..data import Dataset, random_dictionary
from ..preset import Preset
from ..spec import Source, Spec, WorldRecord
from ._common import input_space, stats

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "fcb"


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Four clusters ±µ1 (+1), ±µ2 (−1), labels flipped at rate `flip`; no structure: y random."""
    seeds = np.random.SeedSequence([cfg.seed, 0xFCB]).spawn(3)
    rng_d, rng_tr, rng_te = (np.random.default_rng(s) for s in seeds)
    mu = random_dictionary(rng_d, cfg.d, 2)  # columns µ1, µ2
    sigma = cfg.sigma_r / np.sqrt(cfg.d)

    def draw(rng, n):
        which = rng.integers(0, 4, size=n)  # +µ1, −µ1, +µ2, −µ2
        centre = mu[:, which // 2].T * np.where(which % 2 == 0, 1.0, -1.0)[:, None]
        x = centre + sigma * rng.standard_normal((n, cfg.d))
        clean = np.where(which < 2, 1.0, -1.0)
        if not cfg.structure:  # labels carry no information about x
            clean = rng.choice([-1.0, 1.0], size=n)
        y = np.where(rng.random(n) < cfg.flip, -clean, clean)
        return x, y, clean

    x_tr, y_tr, c_tr = draw(rng_tr, cfg.n)
    x_te, y_te, c_te = draw(rng_te, cfg.n_test)
    ds = input_space(mu, np.array([0, 1]), x_tr, y_tr, x_te, y_te,
                     stats(1.0 + cfg.sigma_r**2))
    ds.centres = np.stack([mu[:, 0], -mu[:, 0], mu[:, 1], -mu[:, 1]])
    ds.centre_labels = np.array([1.0, 1.0, -1.0, -1.0])
    ds.centre_names = ("+µ₁", "−µ₁", "+µ₂", "−µ₂")  # labelled with their counts on the map
    ds.extras["clean_test"] = c_te.astype(np.float32)
    ds.has_truth = False  # two feature directions µ1, µ2, no single Σ_A M star
    return ds


PRESETS = [
    Preset("fcb-xor", "Random feature amplification (Frei, Chatterji & Bartlett)",
           "Four clusters ±µ1 (label +1), ±µ2 (label −1) in d = 100, in-cluster σ² = 1/(25d), "
           "15% of labels flipped; 2m = 500 ReLU neurons with fixed ±1/√(2m) output weights, "
           "init variance 1/(16·2m·d), full-batch GD on the logistic loss with step α = η = 1 "
           "(FCB's Fig. 1 uses 0.05 over 3000 steps; a larger step shows the one-step jump). "
           "The neurons' correlation with their own µ jumps from ≈ 0.08 to ≈ 0.35 in one step "
           "and ≈ 0.9 by step 10; test error ≈ the 15% noise rate, clean test error ≈ 0.",
           "FCB Thm 3.1, Fig. 1 (paper-spec §7)",
           {"scenario": SCENARIO, "d": 100, "D": 2, "k": 2, "sigma_r": 0.2, "flip": 0.15,
            "n": 2000, "n_test": 4000, "m": 250, "T": 25, "batch": 100, "eta": 1.0}),
]

RECORD = WorldRecord(
    SCENARIO, "random feature amplification: XOR-like clusters, noisy labels (Frei et al.)",
    make_dataset, presets=tuple(PRESETS), procedures=("fcb2022", "gfl"), shared=("sigma_r",),
    # FCB's world: credited to them under gfl too (the same citation as the fcb2022 record's)
    source=Source("Frei, Chatterji & Bartlett 2022",
                  "XOR-like clusters with noisy labels: one gradient step amplifies the random "
                  "features that correlate with the cluster means",
                  "Frei, Chatterji & Bartlett 2022"),
    # its generator reads d, σ_r, flip and structure (not D, k, labeling, p_o or noise); the
    # training settings are those fcb2022 or gfl read (engine.reads hides the other's)
    common=("d", "n", "n_test", "seed", "structure", "m", "T", "batch", "eta", "optimizer",
            "optimizer_w", "eta_w", "limit_ridge"),
    settings={"flip": Spec(float, 0, 0.5, open_hi=True, label="label noise η", default=0.15,
                           help="random feature amplification (FCB): fraction of flipped "
                                "labels")})
