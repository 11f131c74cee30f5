"""The training procedures (spec §4.1): how a world's network is trained. A world names the
procedures it runs with (its module's PROCEDURES, the first is its default); Config.procedure
picks one ("auto" = the world's first); engine.methods.make_run asks it for a method's run.

  shi2022  the paper's: Run / NTKRun (2m twin network, trained biases, three-stage schedule,
           hinge loss), or a world's own run where its module has make_run (teacher_student)
  fcb2022  Frei, Chatterji & Bartlett's trainer (engine/scenarios/fcb_run.py), its world's own
  resnet3  Allen-Zhu & Li's 3-layer ResNet and its baselines (engine/azl), its world's own run;
           the engine's method names stand for them (network = resnet3, ntk, rf = last layer;
           two_layer is its own)
  gfl      Shi's Algorithm 1 (engine/gfl): 4m neurons with init (3.9), b fixed, a reset step on
           the full sample, then the classifier stage; methods network, ntk, rf, one_step
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import scenarios
from .config import Config, ConfigError
from .gfl.learners import METHODS as GFL_METHODS
from .gfl.options import GFLOptions
from .gfl.run import GFLRun
from .method_table import METHODS
from .preset import COLUMNS

# the engine's method names the AZL world's own run maps (engine/scenarios/azl_hier.py); its
# two_layer is a method of that world alone (engine.method_table.OWN)
AZL_METHODS = ("network", "ntk", "rf")
AZL_ALL = (*AZL_METHODS, "two_layer")


@dataclass(frozen=True)
class Procedure:
    """One training procedure: its name, the tasks and methods it trains, and its run factory
    make_run(method, world, embed, freeze_after) → a MethodRun, or None for the engine's Run."""

    name: str
    label: str
    tasks: tuple[str, ...]
    methods: tuple[str, ...]
    make_run: Callable
    defaults: tuple[str, ...]  # the methods a run trains when none are named


def _world_run(method, world, embed, freeze_after):
    """The world's own run when its record has one (its make_run), else None."""
    return scenarios.make_run(method, world, embed, freeze_after)


def _gfl_run(method, world, embed, freeze_after):
    """Algorithm 1 with the world's GFLOptions (spec §2.2's single rule when it has none)."""
    opts = scenarios.world(world.cfg).procedure_options.get("gfl") or GFLOptions()
    return GFLRun(world, method, opts, embed)


REGISTRY = (
    Procedure("shi2022", "Shi, Wei & Liang 2022 (three-stage schedule)", ("binary",), METHODS,
              _world_run, COLUMNS),
    Procedure("fcb2022", "Frei, Chatterji & Bartlett 2022 (full-batch GD, logistic loss)",
              ("binary",), METHODS, _world_run, COLUMNS),
    Procedure("resnet3", "Allen-Zhu & Li 2019 (3-layer ResNet, SGD, MSE)", ("regression",),
              AZL_ALL, _world_run, AZL_METHODS),
    Procedure("gfl", "Shi 2024, Algorithm 1 (gradient feature learning)",
              ("binary", "regression"), GFL_METHODS, _gfl_run,
              GFL_METHODS),
)
BY_NAME = {p.name: p for p in REGISTRY}


def procedure_of(cfg: Config) -> Procedure:
    """cfg's procedure: the setting, or the world's default for "auto" (ConfigError when the
    world does not run with it)."""
    allowed = scenarios.world(cfg).procedures
    name = allowed[0] if cfg.procedure == "auto" else cfg.procedure
    if name not in allowed:
        raise ConfigError("procedure", cfg.procedure,
                          f"auto or one of {', '.join(allowed)} for the {cfg.scenario} world")
    return BY_NAME[name]


def check_methods(cfg: Config, methods) -> None:
    """ConfigError naming --methods when cfg's procedure does not train one of them."""
    proc = procedure_of(cfg)
    bad = [m for m in methods if m not in proc.methods]
    if bad:
        raise ConfigError("--methods", ",".join(methods),
                          f"a subset of {', '.join(proc.methods)} for the {proc.name} procedure")
