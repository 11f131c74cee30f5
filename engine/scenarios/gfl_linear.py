"""GFL world: linear data (Diss. B.5.1, spec §3.7): the sparse-coding model with the threshold
labeling (y = +1 iff more than k/2 relevant patterns are on), i.e. y = sign⟨Σ_A M, x⟩; trained by
Algorithm 1 with the source's large b̃ = d·B_x1·σ_w, so half the neurons are always on."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..data import Dataset
from ..data import make_dataset as sparse_coding_data
from ..errors import ConfigError
from ..spec import WorldRecord
from .gfl.common import GFL_COMMON, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_linear"


def check(cfg: Config) -> None:
    """The threshold labeling is what makes the data linear."""
    if cfg.labeling != "threshold":
        raise ConfigError("labeling", cfg.labeling, "threshold for linear data")


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The sparse-coding world's data (engine.data) in input coordinates."""
    return sparse_coding_data(dataclasses.replace(cfg, scenario="sparse_coding"), "input")


PRESETS = [gfl_preset(
    "gfl-linear", SCENARIO, "GFL: linear data (Diss. B.5.1)",
    "The sparse-coding model with the threshold labeling (y = +1 iff at least 3 of the k = 5 "
    "relevant patterns are on, p_A = 1/2): a majority vote, linear in x. With the source's large "
    "b̃ every always-on neuron lands on ±Σ_A M after step 1 and the never-on ones stay at 0; "
    "every method, random features included, classifies it.",
    "Diss. Thm B.25 (spec §3.7)",
    {"labeling": "threshold", "d": 100, "D": 50, "k": 5, "p_a": 0.5, "p_o": 0.1, "n": 4000,
     "n_test": 4000, "m": 100, "T": 100, "batch": 200})]

RECORD = WorldRecord(
    SCENARIO, "GFL: linear data, the threshold labeling (Shi 2024, B.5.1)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=True, shared=(),
    procedure_options={"gfl": GFLOptions(bias="large")},
    check=check,
    # the sparse-coding generator under the threshold labeling its check pins (t1, t2, P unread)
    common=(*GFL_COMMON, "labeling", "p_o", "p_a", "structure", "neg_ratio", "noise"),
)
