"""The preset lookup: every world's PRESETS (engine/scenarios/, each an engine.preset.Preset
record) by name, validated into a Config. Named sweeps are engine/sweep/presets.py."""

from __future__ import annotations

from .config import Config, ConfigError, from_dict
from .preset import Preset
from .scenarios import scenario_presets

# every world's presets in the registry's order: the paper's (the sparse-coding world) first
PRESETS: dict[str, Preset] = {p.name: p for p in scenario_presets()}


LISTED = 8  # names an error line lists (every world adds presets; the line stays short)


def get(name: str) -> Preset:
    """The preset of that name, or a ConfigError naming the first few known ones."""
    if name not in PRESETS:
        first = ", ".join(list(PRESETS)[:LISTED])
        raise ConfigError("preset", name, f"a preset name, e.g. {first} ({len(PRESETS)} in all; "
                                          "`python -m engine presets` lists them)")
    return PRESETS[name]


def preset_config(name: str) -> Config:
    """The validated Config of a named preset."""
    return from_dict(get(name).settings)

