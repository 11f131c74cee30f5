"""The methods of Table 1 as data: name, label, colour and marker, which layer trains, the
paper's column (the shi2022, fcb2022 and gfl procedures train them; engine/procedures). Low in
the import graph, so that engine.run can check a method's name; engine.methods adds the factory
that builds each method's run."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .preset import COLUMNS


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
        return self.linearised or self.freeze_after == 0


_BASES = (
    Method("network", "Network", "Network", "#0072B2", "circle", None),
    Method("ntk", "NTK", "NTK", "#E69F00", "square", None, linearised=True),
    Method("rf", "RF", "RF", "#009E73", "diamond", 0),
    Method("one_step", "One Step", "One Step", "#CC79A7", "triangle-up", 1),
    Method("two_step", "Two Step", "Two Step", "#D55E00", "x", 2),
)
# the table's rows, Method records (engine.methods keeps the old name REGISTRY for one release)
METHOD_RECORDS = _BASES + tuple(
    replace(m, name=f"{m.name}_no_structure", label=f"{m.label} w/o structure",
            short="w/o struct." if m.name == "network" else f"{m.short} w/o", structure=False)
    for m in _BASES if m.name in ("network", "ntk", "rf"))
# (a procedure with methods of its own declares them in its record: engine/procedures/resnet3)
BY_NAME = {m.name: m for m in METHOD_RECORDS}
METHODS = tuple(m.name for m in METHOD_RECORDS)  # Table 1's methods, on every paper world
DEFAULT_METHODS = COLUMNS  # Table 1's six columns, in the paper's order
LABELS = {m.name: m.label for m in METHOD_RECORDS}
FROZEN_BASES = tuple(m.name for m in _BASES if m.frozen)
