"""GFL world: a multi-index polynomial (Damian et al.; Diss. B.5.7, spec §3.6): x ~ N(0, I_d),
real y = g(⟨u₁, x⟩, ⟨u₂, x⟩) of degree 4; regression with Algorithm 7 (MSE on the centred
target, only W moves at step 1, biases re-drawn after it). The truth is the plane span(u₁, u₂)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import Dataset
from ..spec import WorldRecord
from .gfl import datasets
from .gfl.common import GFL_READS, gfl_preset
from .gfl.options import GFLOptions

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "gfl_multi_index"


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Gaussian inputs and the degree-4 target (engine/scenarios/gfl/datasets.py)."""
    return datasets.multi_index(cfg)


PRESETS = [gfl_preset(
    "gfl-multi-index", SCENARIO, "GFL: multi-index polynomial (Damian et al.; Diss. B.5.7)",
    "x ~ N(0, I_30), y = [He₂(z₁) − He₂(z₂) + He₂(z₁)He₂(z₂)]/√8 with z = ⟨u, x⟩ on a random "
    "plane; 4m = 1000 neurons. One step projects every neuron onto the plane (relevant share "
    "from about 0.22 to above 0.8); random features keep their random share and cannot fit the "
    "degree-4 half of the target.",
    "Diss. Thm B.69, Algorithm 7 (spec §3.6)",
    {"d": 30, "D": 2, "k": 2, "n": 8000, "n_test": 10000, "m": 250, "T": 300, "batch": 500})]

RECORD = WorldRecord(
    SCENARIO, "GFL: a multi-index polynomial, regression (Shi 2024, B.5.7)",
    make_dataset, presets=tuple(PRESETS), procedures=("gfl",), pattern_space=False,
    dictionary=False, shared=(),
    procedure_options={"gfl": GFLOptions(a_init="sign", bias="zero", eta1_rule="rms",
                                         step1_moves_a=False, rebias=True, centre_target=True)},
    common=GFL_READS,  # not D or k: the plane is 2-dimensional whatever they say
)
