"""Methods at run time: the MethodRun protocol, make_run (a method's run on a world, through its
procedure), the one rule for a list of method names (parse_methods: the CLI's, a sweep's and
the URL's), and Table 1's rows re-exported from engine.method_table (plain data, low in the
import graph, where engine.run can read it)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from . import procedures
from .baselines import NTKRun
from .errors import ConfigError
from .method_table import (
    BY_NAME,
    DEFAULT_METHODS,
    FROZEN_BASES,
    LABELS,
    METHOD_RECORDS,
    METHODS,
    Method,
)
from .run import Run, World

# the registry's public names: the table's, then this module's factory and protocol
__all__ = ["BY_NAME", "DEFAULT_METHODS", "FROZEN_BASES", "LABELS", "METHODS", "NAMES",
           "REGISTRY", "METHOD_RECORDS", "Method", "MethodRun", "make_run", "parse_methods"]
# every method some procedure trains (the CLI's help; each procedure checks its own)
NAMES = tuple(dict.fromkeys(m for r in procedures.RECORDS.values() for m in r.names))
REGISTRY = METHOD_RECORDS  # the table's old name, one release (it is no registry of modules)


def parse_methods(text: str, names: tuple[str, ...] = NAMES,
                  whose: str = "") -> tuple[str, ...]:
    """Comma-separated method names, each one of `names` and each once: the one rule of the
    CLI's --methods (names: its procedure's), a sweep's and the Compare URL's (every method)."""
    picked = tuple(m.strip() for m in text.split(",") if m.strip())
    if not picked or any(m not in names for m in picked):
        raise ConfigError("--methods", text, f"a comma-separated subset of {', '.join(names)}"
                                             + (f" ({whose})" if whose else ""))
    twice = sorted({m for m in picked if picked.count(m) > 1})
    if twice:
        raise ConfigError("--methods", text, f"each method once ({', '.join(twice)} twice)")
    return picked


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
    """Build the run of a method: the world's procedure's run (engine/procedures: gfl, resnet3,
    fcb2022, a world's own trainer), else the engine's Run (network, RF, One/Two Step) or
    NTKRun; *_no_structure methods use world_ns."""
    procedure = procedures.procedure_of(world.cfg)
    try:
        info = procedure.method(method)
    except KeyError:
        raise ValueError(f"unknown method {method!r}: the {procedure.name} procedure trains "
                         f"{', '.join(procedure.names)}") from None
    w = world if info.structure else world_ns
    if w is None:
        raise ValueError(f"{method} needs the world without input structure")
    custom = procedure.make_run(method, w, embed, info.freeze_after)
    if custom is not None:
        return custom
    if info.linearised:
        return NTKRun(w, method)
    run = Run(w, info.base, embed=embed, freeze_after=info.freeze_after)
    run.method = method
    return run
