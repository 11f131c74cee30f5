"""Named sweeps with the paper's expected shape stated beside them (README "Sweeps")."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import ConfigError
from .spec import SweepSpec


@dataclass(frozen=True)
class SweepPreset:
    """A sweep, the claim it tests and the shape the paper predicts."""

    name: str
    spec: SweepSpec
    claim: str
    expected: str


SWEEP_PRESETS = {p.name: p for p in [
    SweepPreset(
        "separation-vs-k",
        SweepSpec("quick-parity", {}, (("k", (1, 3, 5, 7, 9)),), (), 3, 0,
                  ("network", "ntk", "rf")),
        "Fixed features need a size exponential in k; the network learns Σ_A M in two steps "
        "(Theorems 1-2, Table 1).",
        "with m = 100 and n = 10 000 fixed, the network stays near 100 % test accuracy for every "
        "odd k while NTK and RF fall towards chance (50 %) as k grows"),
    SweepPreset(
        "structure-strength",
        SweepSpec("quick-parity", {}, (("p_o", (0.1, 0.2, 0.4, 0.6)),
                                       ("structure", (True, False))), (), 3, 0,
                  ("network", "ntk", "rf")),
        "Feature learning needs input structure (A1); without it no SQ algorithm learns the "
        "labels efficiently (Theorem 3, 'w/o structure' column).",
        "with structure the network is near 100 % for every p_o (background patterns only add "
        "noise); without structure every method stays near chance"),
]}


def get(name: str) -> SweepPreset:
    """The named sweep preset, or a ConfigError listing them."""
    if name not in SWEEP_PRESETS:
        raise ConfigError("--sweep-preset", name, "one of " + ", ".join(SWEEP_PRESETS))
    return SWEEP_PRESETS[name]
