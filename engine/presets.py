"""Named settings with the paper's own numbers (App. E, Tables 1–5) to compare against: every
world's PRESETS (engine/scenarios/), looked up by name."""

from __future__ import annotations

from .config import Config, ConfigError, from_dict
from .preset import Preset
from .scenarios import scenario_presets

# every world's presets in the registry's order: the paper's (the sparse-coding world) first
PRESETS: dict[str, Preset] = {p.name: p for p in scenario_presets()}


def get(name: str) -> Preset:
    """The preset of that name, or a ConfigError listing the known ones."""
    if name not in PRESETS:
        raise ConfigError("preset", name, "one of " + ", ".join(PRESETS))
    return PRESETS[name]


def preset_config(name: str) -> Config:
    """The validated Config of a named preset."""
    return from_dict(get(name).settings)

