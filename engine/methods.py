"""The methods of Table 1 in one registry: name, label, which layer trains, the paper's column,
and the factory that builds a method's run on a world."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from . import scenarios
from .baselines import NTKRun
from .preset import COLUMNS
from .run import Run, World


@dataclass(frozen=True)
class Method:
    """One method: what the UI calls it and how it trains."""

    name: str
    label: str
    short: str  # a card-width label
    color: str  # one colour per base method (Okabe-Ito), shared by its w/o-structure twin
    marker: str  # Plotly marker symbol
    freeze_after: int | None  # the first layer trains up to this step (None: always / NTK)
    structure: bool = True  # False: trained on the world without input structure (A1')
    linearised: bool = False  # a linear model on the tangent features at θ₀ (the NTK): no
    # first layer of its own, so no map, no cosine, and its own evaluation buffers (engine.guard)

    @property
    def base(self) -> str:
        """The method without its world: network, ntk, rf, one_step or two_step."""
        return self.name.removesuffix("_no_structure")

    @property
    def frozen(self) -> bool:
        """True for a fixed first layer under a trained output layer (RF, One Step, Two Step)."""
        return self.freeze_after is not None

    @property
    def uses_init_layer(self) -> bool:
        """True when the method reads the initial first layer itself (RF, and the NTK's θ₀)."""
        return self.base in ("rf", "ntk")


_BASES = (
    Method("network", "Network", "Network", "#0072B2", "circle", None),
    Method("ntk", "NTK", "NTK", "#E69F00", "square", None, linearised=True),
    Method("rf", "RF", "RF", "#009E73", "diamond", 0),
    Method("one_step", "One Step", "One Step", "#CC79A7", "triangle-up", 1),
    Method("two_step", "Two Step", "Two Step", "#D55E00", "x", 2),
)
REGISTRY = _BASES + tuple(
    replace(m, name=f"{m.name}_no_structure", label=f"{m.label} w/o structure",
            short="w/o struct." if m.name == "network" else f"{m.short} w/o", structure=False)
    for m in _BASES if m.name in ("network", "ntk", "rf"))
BY_NAME = {m.name: m for m in REGISTRY}
METHODS = tuple(BY_NAME)
DEFAULT_METHODS = COLUMNS  # Table 1's six columns, in the paper's order
LABELS = {m.name: m.label for m in REGISTRY}
FROZEN_BASES = tuple(m.name for m in _BASES if m.frozen)


@runtime_checkable
class MethodRun(Protocol):
    """What every method's run offers (Run, NTKRun, the FCB and teacher-student runs); Compare,
    the CLI, the report and the sweeps use nothing else."""

    method: str
    history: list  # one Snapshot per step taken, step 0 first

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""

    def step(self):
        """Take one step and return its Snapshot."""

    def summary(self) -> dict:
        """{train_acc, test_acc, cos, steps} of the reported model."""


def make_run(method: str, world: World, world_ns: World | None = None,
             embed: bool = True) -> MethodRun:
    """Build the run of a method: a scenario's own run when the world has one, else the
    engine's Run (network, RF, One/Two Step) or NTKRun; *_no_structure methods use world_ns."""
    if method not in BY_NAME:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    info = BY_NAME[method]
    w = world if info.structure else world_ns
    if w is None:
        raise ValueError(f"{method} needs the world without input structure")
    custom = scenarios.make_run(method, w, embed, info.freeze_after)
    if custom is not None:
        return custom
    if info.base == "ntk":
        return NTKRun(w, method)
    run = Run(w, info.base, embed=embed, freeze_after=info.freeze_after)
    run.method = method
    return run
