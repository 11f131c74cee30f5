"""The AZL world in the engine's terms: its settings read from an engine Config, its data as an
engine Dataset (inputs in x coordinates, y n×k, the 32 pair stars as the map's centres)."""

from __future__ import annotations

import numpy as np

from ...data import Dataset
from ...errors import ConfigError
from .._common import input_space, stats
from .config import AZLConfig, from_dict
from .data import make_data, pair_stars

# AZL setting → the engine Config field that carries it (the world's own settings are prefixed
# so they cannot collide with another world's: `alpha` is already real data's Gaussian share)
ENGINE_NAMES = {"variant": "azl_variant", "fc_bias": "azl_fc_bias", "n": "n",
                "n_test": "n_test", "m": "m", "batch": "batch", "seed": "seed", "steps": "T",
                "drop_epoch": "azl_drop_epoch", "lr": "azl_lr", "lr_ntk": "azl_lr_ntk",
                "lr_last": "azl_lr_last", "wd": "azl_wd", "momentum": "azl_momentum",
                "alpha": "azl_alpha", "beta": "azl_beta"}


def from_engine(cfg) -> AZLConfig:
    """The AZL settings an engine Config carries (fields it lacks keep the AZL defaults); the
    engine's T is the number of SGD steps, and the epochs are the ones T starts."""
    values = {name: getattr(cfg, field) for name, field in ENGINE_NAMES.items()
              if getattr(cfg, field, None) is not None}
    if "steps" in values:
        per_epoch = -(-values.get("n", AZLConfig.n) // values.get("batch", AZLConfig.batch))
        values["epochs"] = min(1000, -(-values["steps"] // per_epoch))
    try:
        return from_dict(values)
    except ConfigError as err:  # name the setting as the engine's users know it
        raise ConfigError(ENGINE_NAMES.get(err.name, err.name), err.value, err.allowed) from None


def engine_dataset(acfg: AZLConfig) -> Dataset:
    """The seed's data as an engine Dataset: M = I_d, the relevant coordinates x₁..x₂ₖ as A,
    no single Σ_A M star (has_truth False), the pair stars as centres (+1: sum stars
    ±(e_{2r−1}+e_{2r}), −1: difference stars), F and G of both sets in extras."""
    data = make_data(acfg)
    d = acfg.d
    ds = input_space(np.eye(d), np.arange(2 * acfg.k), data.x_train, data.y_train,
                     data.x_test, data.y_test, stats(1.0))
    ds.has_truth = False
    stars = pair_stars(acfg)
    ds.centres = stars
    ds.centre_labels = np.tile([1.0, 1.0, -1.0, -1.0], acfg.k)  # pair_stars' order per r
    ds.extras.update(F_train=data.F_train, G_train=data.G_train, F_test=data.F_test,
                     G_test=data.G_test)
    return ds


def engine_settings(acfg: AZLConfig, scenario: str) -> dict:
    """The engine Config values that carry acfg (inverse of from_engine): d = D = 30, k the
    number of outputs, T the number of SGD steps."""
    values = {"scenario": scenario, "d": acfg.d, "D": acfg.d, "k": acfg.k, "T": acfg.T}
    values.update({field: getattr(acfg, name) for name, field in ENGINE_NAMES.items()
                   if name != "steps"})
    return values
