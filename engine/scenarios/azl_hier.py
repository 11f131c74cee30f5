"""Depth (Allen-Zhu & Li 2019; new-worlds-spec §3.1): x uniform on {±1}³⁰, y = F + 0.3·G(F) ∈ ℝ⁸
with F_r = x_{2r−1}x_{2r} and G_r = (−1)^r F₁F₂F₃F₄; a 3-layer ResNet learns F, then G(F).

The world's data lives in engine/scenarios/azl/ (docs/azl.md); this module is its record.
It trains with the resnet3 procedure (engine/procedures/resnet3: its five methods, its step
sizes, its runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import Dataset
from ..preset import Preset
from ..spec import Spec, WorldRecord
from .azl.config import D_INPUT, RANGES, VARIANTS
from .azl.convert import engine_dataset, engine_settings, from_engine
from .azl.presets import PRESETS as AZL_PRESETS

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "azl_hier"


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The seed's data: x in its own coordinates, y n×k, the pair stars as centres."""
    return engine_dataset(from_engine(cfg))


def check(cfg: Config) -> None:
    """The AZL settings in range (d and k are its pins)."""
    from_engine(cfg)  # the AZL world's own rules (drop epoch within the epochs, …)


def pins(cfg: Config) -> dict:
    """d = 30 (x ∈ {±1}³⁰) and k = the variant's number of outputs: fixed, never a control."""
    out = {"d": (D_INPUT, "x ∈ {±1}³⁰ in the AZL world")}
    k = VARIANTS.get(cfg.azl_variant)
    if k is not None:
        out["k"] = (k, f"azl_variant={cfg.azl_variant} has {k} outputs")
    return out


def _spec(name: str, label: str, default) -> Spec:
    kind, lo, hi, text = RANGES[name]
    return Spec(kind, lo, hi, label=label, default=default, help=f"AZL world: {text}")


SETTINGS = {
    "azl_variant": Spec(str, choices=tuple(VARIANTS), label="reading of G", default="v1v2",
                        help="AZL world: v1v2 = G_r = (−1)^r y₁y₂y₃y₄ (default); literal = "
                             "the source's two parities alternated; k15 = the later version"),
    "azl_alpha": _spec("alpha", "α (weight of G)", 0.3),
    "azl_beta": _spec("beta", "β (weight of F)", 1.0),
}
PRESETS = tuple(Preset(p.name, p.title, p.description, p.source,
                       engine_settings(p.config(), SCENARIO)) for p in AZL_PRESETS.values())
RECORD = WorldRecord(
    SCENARIO, "depth: a 3-layer ResNet learns F, then G(F) (Allen-Zhu & Li)", make_dataset,
    settings=SETTINGS, check=check, presets=PRESETS, procedures=("resnet3",),
    dictionary=False, pins=pins,
    # scenarios.azl.convert.ENGINE_NAMES, and d, k that its pins fix (not D: x is its own patterns;
    # its presets keep D = 30, which nothing reads)
    common=("d", "k", "n", "n_test", "seed", "m", "T", "batch"))
