"""Preset, the record: one named setting with its source's numbers, plain data, low in the import
graph so that every world module can declare its presets with it.

Not to be confused with engine/presets.py (the lookup: every world's presets by name, validated
into a Config), engine/sweep/presets.py (named sweeps, not settings) or
engine/scenarios/azl/presets.py (the AZL world's own readings, in its own AZLConfig terms)."""

from __future__ import annotations

from dataclasses import dataclass, field

COLUMNS = ("network", "ntk", "rf", "one_step", "two_step", "network_no_structure")


def paper_table(train, test, cos) -> dict:
    """Per-method {train_acc, test_acc, cos} from Table rows in the paper's column order (%)."""
    return {m: {"train_acc": tr / 100, "test_acc": te / 100, "cos": c}
            for m, tr, te, c in zip(COLUMNS, train, test, cos, strict=True)}


@dataclass(frozen=True)
class Preset:
    """A named setting, what it reproduces and the paper's numbers for it."""

    name: str
    title: str
    description: str
    source: str
    settings: dict = field(default_factory=dict)
    paper: dict | None = None
