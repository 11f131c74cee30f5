"""A named setting with the paper's own numbers: the plain-data record every world's presets are
made of (engine.presets validates them into a Config)."""

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
