"""The conformance suite's cases and helpers (tests/engine/test_conformance.py,
tests/ui/test_conformance_pages.py), in the manner of scikit-learn's parametrize_with_checks:
every registered procedure × every world it trains with, read from the registries, each at a
tiny size. A procedure or world that registers gets every check without an edit here."""

from __future__ import annotations

import dataclasses
import re

from engine.config import SPECS, Config, ConfigError, validate
from engine.presets import preset_config
from engine.procedures import PROCEDURE_SETTINGS, RECORDS, runs_with
from engine.scenarios import WORLDS

STEPS = 3  # "three steps": enough for step 1, step 2 and one step after


def base_config(world: str) -> Config:
    """The world's first preset (its own numbers), else its defaults."""
    record = WORLDS[world]
    return preset_config(record.presets[0].name) if record.presets else Config(scenario=world)


def _lowest(name: str):
    """The smallest value a setting allows (the fix for a setting a tiny run makes invalid)."""
    spec = {**SPECS, **PROCEDURE_SETTINGS}[name]
    return spec.lo if spec.lo is not None else spec.default


def tiny(world: str, procedure: str) -> Config:
    """The world's base setting trained by the procedure at a tiny size: n ≤ 600, n_test ≤ 300,
    m ≤ 16, T = 3; a setting that the small T or n makes invalid is set to its lowest value."""
    cfg = base_config(world).replace(procedure=procedure)
    small = {"n": min(cfg.n, 600), "n_test": min(cfg.n_test, 300), "m": min(cfg.m, 16),
             "T": STEPS}
    small["batch"] = min(cfg.batch, small["n"])
    cfg = dataclasses.replace(cfg, **small)  # Config.replace validates: the fixes come first
    for _ in range(5):
        try:
            return validate(cfg)
        except ConfigError as err:
            cfg = dataclasses.replace(cfg, **{err.name: _lowest(err.name)})
    return validate(cfg)


def cases() -> list[tuple[str, str]]:
    """(procedure, world) for every world and every procedure it trains with (a world's own
    list and each record's `worlds`)."""
    return [(proc, world) for world in WORLDS for proc in runs_with(base_config(world))]


def case_id(case: tuple[str, str]) -> str:
    return f"{case[0]}-{case[1]}"


def loss_words(text: str) -> str:
    """A loss's name: its words before the formula ("hinge loss", "logistic loss")."""
    return re.split(r"[(\d]| max| log| ½", text)[0].strip()


def foreign_losses(procedure: str) -> set[str]:
    """The other procedures' loss names that this one's own loss does not contain."""
    own = RECORDS[procedure].loss
    return {loss_words(r.loss) for r in RECORDS.values()
            if r.name != procedure and loss_words(r.loss) not in own}


def neuron_counts(text: str) -> set[int]:
    """Every "N neurons" a text states (N with thousands separators)."""
    return {int(n.replace(",", "")) for n in re.findall(r"\b(\d[\d,]*) neurons", text)}
