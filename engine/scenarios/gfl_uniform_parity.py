"""GFL world: uniform sparse parity (Barak et al.; Diss. B.5.5–B.5.6, spec §3.5): x uniform on
{±1}^d, y = Π_{i∈A} x_i with |A| = k even; ±1 init (B.479/B.493). No input structure, yet one
step finds the k relevant bits once n passes about (2/ξ_{k−1})²."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import Dataset
from ..errors import ConfigError
from ..spec import WorldRecord
from .gfl import datasets
from .gfl.common import GFL_COMMON, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_uniform_parity"


def check(cfg: Config) -> None:
    """k even (B.53: Maj has odd Fourier support, so step 1 sees A only when k − 1 is odd), d odd
    (⟨w, x⟩ then never ties); D = d is its pin (the coordinates are the bits)."""
    if cfg.k % 2:
        raise ConfigError("k", cfg.k, "an even integer for uniform parity (Diss. B.53)")
    if cfg.d % 2 == 0:
        raise ConfigError("d", cfg.d, "an odd integer for uniform parity (⟨w, x⟩ is then odd)")


def pins(cfg: Config) -> dict:
    """D = d: fixed by d, never a control of its own."""
    return {"D": (cfg.d, "D = d: one pattern per bit")}


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The uniform bits and their parity on A (engine/scenarios/gfl/datasets.py)."""
    return datasets.uniform_parity(cfg)


PRESETS = [gfl_preset(
    "gfl-uniform-parity", SCENARIO, "GFL: uniform sparse parity (Barak et al.; Diss. B.5.5)",
    "x uniform on {±1}^11, y the product of k = 4 of the bits; 4m = 1024 neurons with ±1 "
    "weights (B.493), b̃ = 1. After one step the neurons' weight concentrates on the 4 relevant "
    "bits (relevant share from √(4/11) ≈ 0.60 to above 0.75) and the readout learns the parity; "
    "random features stay near chance.",
    "Diss. Thm B.57, Algorithm 6 (spec §3.5)",
    {"d": 11, "D": 11, "k": 4, "n": 30000, "n_test": 20000, "m": 256, "T": 200,
     "batch": 500})]

RECORD = WorldRecord(
    SCENARIO, "GFL: uniform sparse parity of Barak et al. (Shi 2024, B.5.5)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=False, shared=(),
    procedure_options={"gfl": GFLOptions(w_init="sign", a_init="sign", bias="grid",
                                         eta1_rule="alg6")},
    check=check, pins=pins, common=GFL_COMMON,
)
