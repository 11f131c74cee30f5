"""Daniely & Malach sparse parity: the parity mixture with M = I (paper-spec §2.2 'Link to DM').

x ∈ {±1/√n}^n: half uniform, half with the bits in A all +1 or all −1 (p_o = 1/2), y = parity
of A. In the sparse-coding coordinates φ = (φ̃ − 1/2)/σ̃ with σ̃² = n/4, each coordinate is
exactly ±1/√n, so the data are DM's up to the 0/1 → ±1 translation. Headline [DM 71, 140]:
after one step neurons are ∝ Σ_{j∈A} e_j; a fixed-feature (random features) model fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..data import Dataset, _normalise, population_stats, sample
from ..preset import Preset
from ..spec import Source, WorldRecord
from ._common import TRAINING, check_odd_parity

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "dm_parity"


def check(cfg: Config) -> None:
    """Parity needs an odd k (D = d is its pin)."""
    check_odd_parity(cfg)


def pins(cfg: Config) -> dict:
    """DM's inputs are the patterns themselves (M = I, so D = d): D follows d."""
    return {"D": (cfg.d, "D = d for Daniely-Malach sparse parity: M = I")}


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """M = I_n, A random of size k, the parity mixture with p_o as configured (1/2 for DM)."""
    seeds = np.random.SeedSequence([cfg.seed, 0xD1A]).spawn(3)
    rng_a, rng_tr, rng_te = (np.random.default_rng(s) for s in seeds)
    M = np.eye(cfg.d)
    A = np.sort(rng_a.choice(cfg.D, size=cfg.k, replace=False))
    base = cfg.replace(scenario="sparse_coding", labeling="parity", noise=0.0)
    st = population_stats(base)
    phi_tr, y_tr = sample(base, rng_tr, cfg.n, A)
    phi_te, y_te = sample(base, rng_te, cfg.n_test, A)
    z_tr, z_te = _normalise(base, st, phi_tr, A), _normalise(base, st, phi_te, A)
    return Dataset(M, A, M, z_tr, y_tr, z_te, y_te, st)


PRESETS = [
    Preset("dm-sparse-parity", "Sparse parity (Daniely & Malach)",
           "x ∈ {±1/√n}^n with n = 100, k = 5: half uniform, half with the bits of A all equal; "
           "y = parity of A. DM's step 1 is a full reset (η₁ = 1, λ₁ = 1/2), so ν⁽¹⁾ = 0 here: one "
           "step already aligns neurons with Σ_A e_j; the random-features baseline stays far "
           "below the network.",
           "DM Thm 3 / §2.2 of paper-spec (P 1072–1087)",
           {"scenario": SCENARIO, "d": 100, "D": 100, "k": 5, "p_o": 0.5, "n": 20000,
            "n_test": 5000, "m": 200, "T": 300, "nu1": 0.0}),
]

RECORD = WorldRecord(
    SCENARIO, "sparse parity of Daniely & Malach: the parity mixture with M = I",
    make_dataset, check=check, pins=pins, presets=tuple(PRESETS), pattern_space=True,
    # Daniely & Malach's world, trained by the shi2022 procedure: the credit names both
    source=Source("Daniely & Malach, NeurIPS 2020",
                  "Learning parities with neural networks: one gradient step aligns the "
                  "neurons with the parity's bits, where fixed random features fail",
                  "Daniely & Malach 2020"),
    # the parity mixture with its own labeling and no noise (make_dataset)
    common=("d", "D", "k", "p_o", "structure", "neg_ratio", "n", "n_test", "seed", TRAINING))
