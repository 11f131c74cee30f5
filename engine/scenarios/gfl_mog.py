"""GFL world: a general mixture of Gaussians (Diss. B.5.2, spec §3.2): r clusters around
orthonormal means, label +1 for odd j and −1 for even j; every centre is a gradient feature."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import Dataset
from ..errors import ConfigError
from ..spec import WorldRecord
from .gfl import datasets
from .gfl.common import GFL_READS, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_mog"


def check(cfg: Config) -> None:
    """At least two clusters (both labels), at most d orthonormal means."""
    if not 2 <= cfg.r <= cfg.d:
        raise ConfigError("r", cfg.r, f"an integer in [2, d] = [2, {cfg.d}]")


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The r-cluster mixture (engine/scenarios/gfl/datasets.py)."""
    return datasets.mixture(cfg)


PRESETS = [gfl_preset(
    "gfl-mog", SCENARIO, "GFL: a mixture of r = 6 Gaussians (Diss. B.5.2)",
    "Six clusters around orthonormal unit means in d = 100, in-cluster variance σ_B = 1 "
    "(σ_r = 1; the spec's σ_B = 4 left the step-1 coverage at 0.84), labels alternating; "
    "step 1 points every neuron into the span of the centres and covers each centre.",
    "Diss. Thm B.35, Assumption 3.15 (spec §3.2)",
    {"d": 100, "D": 6, "k": 2, "r": 6, "sigma_r": 1.0, "n": 4000, "n_test": 4000, "m": 100,
     "T": 200, "batch": 200})]

RECORD = WorldRecord(
    SCENARIO, "GFL: a mixture of r Gaussians (Shi 2024, B.5.2)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=True, shared=("r", "sigma_r"),
    procedure_options={"gfl": GFLOptions()},
    check=check, common=GFL_READS,  # not D or k: r and σ_r make the mixture
)
