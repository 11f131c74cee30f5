"""The paper's world (Sec. 2, App. E.1-E.2): sparse combinations of D dictionary patterns, drawn
by engine.data, declared here under the world contract of engine/scenarios/__init__.py. Its
presets are the paper's tables, listed by engine/presets.py itself."""

from __future__ import annotations

from ..data import make_dataset

SCENARIO = "sparse_coding"
# the world contract: settings only this world shows, whether noise-free data may be stored in
# pattern coordinates, whether it is drawn through a dictionary M
SETTINGS = ()
PATTERN_SPACE = True
DICTIONARY = True
PRESETS: list = []

__all__ = ["SCENARIO", "SETTINGS", "PATTERN_SPACE", "DICTIONARY", "PRESETS", "make_dataset"]
