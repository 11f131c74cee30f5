"""Settings: the Protocol that annotates a run's settings below engine/config.py.

engine/config.py builds the frozen Config from the settings table and imports the world and
procedure registries to do it, so the modules those registries import cannot name Config
without an import circle (even one under TYPE_CHECKING). They annotate with this Protocol
instead: any object read by attribute, as Config is. It names the settings every world shares;
a world's or a procedure's own settings are read through __getattr__."""

from __future__ import annotations

from typing import Any, Protocol


class Settings(Protocol):
    """A run's settings, read by attribute (engine.config.Config is the one implementation)."""

    scenario: str
    procedure: str
    seed: int
    n: int
    n_test: int
    d: int
    m: int
    T: int
    batch: int

    def __getattr__(self, name: str) -> Any:
        """A world's or a procedure's own setting (declared in its record's spec table)."""
