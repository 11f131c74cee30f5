"""GFL world: the XOR mixture of Refinetti et al. (Diss. Assumption B.36; spec §3.3), drawn by
the fcb world's generator with σ_r = √σ_B and no label noise; trained by Shi's Algorithm 1."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..data import Dataset
from ..spec import WorldRecord
from . import fcb
from .gfl.common import GFL_READS, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_xor"


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Four clusters ±µ1 (+1), ±µ2 (−1), ‖µ‖ = 1, noise N(0, σ_r²/d I): fcb's, flip = 0."""
    return fcb.make_dataset(dataclasses.replace(cfg, flip=0.0), space)


PRESETS = [gfl_preset(
    "gfl-xor", SCENARIO, "GFL: the XOR mixture (Refinetti et al.; Diss. B.5.3)",
    "Four Gaussian clusters ±µ1 (label +1), ±µ3 (label −1) in d = 200 with σ_B = 8 "
    "(σ_r = √8); 4m = 400 neurons with the symmetric init (3.9), b̃ = 1; step 1 turns random "
    "neurons into cluster detectors (coverage of the four centres from about 0.2 to above 0.9), "
    "and the learned features beat random features and the NTK.",
    "Diss. Thm B.42, Assumption B.36 (spec §3.3)",
    {"d": 200, "D": 2, "k": 2, "sigma_r": 2.8284, "n": 2000, "n_test": 4000, "m": 100,
     "T": 200, "batch": 200})]

RECORD = WorldRecord(
    SCENARIO, "GFL: the XOR mixture of Refinetti et al., Algorithm 1 (Shi 2024)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=True, shared=("sigma_r",),
    procedure_options={"gfl": GFLOptions()},
    # fcb's generator reads structure (off: random labels); no labeling, p_o or schedule
    common=(*GFL_READS, "structure"),  # not D or k: fcb's generator draws µ1, µ2 alone
)
