"""GFL world: parity with r blocks (Diss. B.5.4, spec §3.4): x = Mφ with a ternary background,
r blocks A_j of k relevant patterns, y = sign Σ_j Π_{A_j} φ; the network must learn r directions
D_j = Σ_{A_j} M_l/√k (one colour each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import Dataset
from ..errors import ConfigError
from ..spec import Spec, WorldRecord
from .gfl import datasets
from .gfl.common import GFL_COMMON, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_parity_blocks"


def check(cfg: Config) -> None:
    """r and k odd (the label is then never 0), r·k ≤ d, 2r·p_A < 1, p_o ≤ 1/2 (D = d: a pin)."""
    if cfg.r % 2 == 0:
        raise ConfigError("r", cfg.r, "an odd integer for parity with blocks")
    if cfg.k % 2 == 0:
        raise ConfigError("k", cfg.k, "an odd integer for parity with blocks")
    if cfg.r * cfg.k > cfg.d:
        raise ConfigError("r", cfg.r, f"an integer with r·k ≤ d, i.e. at most {cfg.d // cfg.k}")
    if 2 * cfg.r * cfg.p_a >= 1:
        raise ConfigError("p_a", cfg.p_a, f"a value below 1/(2r) = {1 / (2 * cfg.r):.3g}")
    if cfg.p_o > 0.5:
        raise ConfigError("p_o", cfg.p_o, "a value in (0, 0.5] (background ±1 each w.p. p_o)")


def pins(cfg: Config) -> dict:
    """D = d: fixed by d, never a control of its own."""
    return {"D": (cfg.d, "D = d: M is a d×d orthonormal matrix")}


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The structured parity mixture (engine/scenarios/gfl/datasets.py)."""
    return datasets.parity_blocks(cfg)


PRESETS = [gfl_preset(
    "gfl-parity-blocks", SCENARIO, "GFL: parity with r = 3 blocks (Diss. B.5.4)",
    "x = Mφ in d = 60 with r = 3 blocks of k = 5 relevant patterns, p_A = 0.15, background "
    "p_o = 0.05; step 1 finds all three block directions (coverage above 0.9; random features "
    "stay near 0.4). 90% of the points are the easy structured ones, so accuracies hardly differ.",
    "Diss. Thm B.48, Assumption 3.19 (spec §3.4)",
    {"d": 60, "D": 60, "r": 3, "k": 5, "p_a": 0.15, "p_o": 0.05, "n": 4000, "n_test": 4000,
     "m": 100, "T": 200, "batch": 200})]

RECORD = WorldRecord(
    SCENARIO, "GFL: parity with r blocks, structured inputs (Shi 2024, B.5.4)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=True, shared=("p_a",),  # p_A under every labeling
    procedure_options={"gfl": GFLOptions()},
    settings={"r": Spec(int, 1, 1000, label="r", default=3,
                        help="GFL worlds: parity blocks, or Gaussian clusters (gfl_mog)")},
    check=check, pins=pins, common=(*GFL_COMMON, "p_o", "p_a"),  # its data and check read both
)
