"""The methods of Table 1 in one registry: name, label, which layer trains, the paper's column,
and the factory that builds a method's run on a world."""

from __future__ import annotations

from dataclasses import dataclass

from . import scenarios
from .baselines import NTKRun
from .run import FREEZE_AFTER, Run, World


@dataclass(frozen=True)
class Method:
    """One method: what the UI calls it and how it trains."""

    name: str
    label: str
    structure: bool = True  # False: trained on the world without input structure (A1')
    table1: bool = False  # one of Table 1's six columns (the default comparison)

    @property
    def base(self) -> str:
        """The method without its world: network, ntk, rf, one_step or two_step."""
        return self.name.removesuffix("_no_structure")

    @property
    def freeze_after(self) -> int | None:
        """The step after which the first layer is frozen (None: it trains; the NTK has none)."""
        return FREEZE_AFTER.get(self.base)


REGISTRY = (
    Method("network", "Network", table1=True),
    Method("ntk", "NTK", table1=True),
    Method("rf", "RF", table1=True),
    Method("one_step", "One Step", table1=True),
    Method("two_step", "Two Step", table1=True),
    Method("network_no_structure", "Network w/o structure", structure=False, table1=True),
    Method("ntk_no_structure", "NTK w/o structure", structure=False),
    Method("rf_no_structure", "RF w/o structure", structure=False),
)
BY_NAME = {m.name: m for m in REGISTRY}
METHODS = tuple(BY_NAME)
DEFAULT_METHODS = tuple(m.name for m in REGISTRY if m.table1)
LABELS = {m.name: m.label for m in REGISTRY}


def make_run(method: str, world: World, world_ns: World | None = None, embed: bool = True):
    """Build the run of a method: a scenario's own run when the world has one, else the
    engine's Run (network, RF, One/Two Step) or NTKRun; *_no_structure methods use world_ns."""
    if method not in BY_NAME:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    info = BY_NAME[method]
    w = world if info.structure else world_ns
    if w is None:
        raise ValueError(f"{method} needs the world without input structure")
    custom = scenarios.make_run(method, w, embed)
    if custom is not None:
        return custom
    if info.base == "ntk":
        return NTKRun(w, method)
    run = Run(w, info.base, embed=embed)
    run.method = method
    return run
