"""The AZL world's presets in its own terms (AZLConfig): the proposed default and the source's
other readings and size; engine/scenarios/azl_hier.py turns them into engine.preset.Preset
records, which engine/presets.py looks up like every world's."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ...preset import Preset
from .config import AZLConfig, from_dict

SOURCE = "Allen-Zhu & Li 2019, Sec. 5 / Fig. 2 (new-worlds-spec §3.1)"


@dataclass(frozen=True)
class AZLPreset(Preset):
    """A named AZL setting and what it shows (paper: the source prints no per-method numbers)."""

    def config(self) -> AZLConfig:
        """The validated settings."""
        return from_dict(self.settings)


PRESETS = {p.name: p for p in (
    AZLPreset("azl-resnet", "Depth: a 3-layer ResNet learns F, then G(F) (Allen-Zhu & Li)",
              "x uniform on {±1}³⁰, y = F + 0.3·G(F) ∈ ℝ⁸ with F_r = x_{2r−1}x_{2r} and "
              "G_r = (−1)^r F₁F₂F₃F₄; N = 3000, width 300, SGD (momentum 0.9, batch 100, "
              "weight decay 1e-3), 30 epochs, step sizes ×0.1 at epoch 15. Test error above "
              "kα² = 0.72 means G is not learned at all: the ResNet goes below it; the 2-layer "
              "net, the NTK and the last-layer kernel stay above.",
              SOURCE, {}),
    AZLPreset("azl-literal", "Depth, the source's literal G (two parities alternated)",
              "As azl-resnet, with G as printed in v1 (y₁y₂y₃y₄, y₅y₆y₇y₈) alternated over "
              "the 8 outputs, so kα² = 0.72 still holds.", SOURCE, {"variant": "literal"}),
    AZLPreset("azl-k15", "Depth, the later version: k = 15 (kα² = 1.35)",
              "F over all 15 pairs of x ∈ {±1}³⁰, G_r = (−1)^r F₁F₂F₃F₄, threshold "
              "kα² = 1.35 (the later version trains 800 epochs; this one 30).",
              SOURCE + "; later version", {"variant": "k15"}),
    AZLPreset("azl-n1000", "Depth at the source's N = 1000: the separation does not show",
              "The source's sample size, the same 900 SGD steps (90 epochs, drop at 45). At "
              "this width and budget no method gets below kα² = 0.72: F itself is not fully "
              "learned, so G cannot be either (spec §3.1.6); the separation needs more samples "
              "here than in the source.",
              SOURCE, {"n": 1000, "epochs": 90, "drop_epoch": 45}),
)}
DEFAULT = "azl-resnet"


def get(name: str) -> AZLPreset:
    """The preset of that name (ConfigError listing the known ones)."""
    if name not in PRESETS:
        raise ConfigError("preset", name, "one of " + ", ".join(PRESETS))
    return PRESETS[name]
