"""Depth (Allen-Zhu & Li 2019; new-worlds-spec §3.1): x uniform on {±1}³⁰, y = F + 0.3·G(F) ∈ ℝ⁸
with F_r = x_{2r−1}x_{2r} and G_r = (−1)^r F₁F₂F₃F₄; a 3-layer ResNet learns F, then G(F).

The world, its networks and its trainer live in engine/azl/ (docs/azl.md); this module is its
record. Until the procedure registry gives the world its own method names, the engine's names
map onto the AZL methods that are the same thing: network → the 3-layer ResNet (the world's
network), ntk → the NTK of the 2-layer net, rf → the last layer on fixed random features (the
conjugate kernel); two_layer (a method of this world alone) → the 2-layer net, for the sweep
azl-error-vs-n. The 3-layer FC net runs with `python -m engine.azl`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..azl.config import RANGES, VARIANTS, AZLConfig
from ..azl.data import TEST_PROBE
from ..azl.explore import ExploreRun
from ..azl.presets import PRESETS as AZL_PRESETS
from ..azl.run import AZLRun, AZLWorld, build_world
from ..azl.world import engine_dataset, engine_settings, from_engine
from ..data import Dataset
from ..errors import ConfigError
from ..preset import Preset
from ..spec import Spec, WorldRecord

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..config import Config

SCENARIO = "azl_hier"
ENGINE_METHODS = {"network": "resnet3", "ntk": "ntk", "rf": "last_layer",
                  "two_layer": "two_layer"}
OFFERED = ("network", "ntk", "rf")  # what Compare, the CLI and the Reproduce card train


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The seed's data: x in its own coordinates, y n×k, the pair stars as centres."""
    return engine_dataset(from_engine(cfg))


def check(cfg: Config) -> None:
    """d = D = 30 and k = the variant's number of outputs; the AZL settings in range."""
    if cfg.d != 30:
        raise ConfigError("d", cfg.d, "30 in the AZL world (x ∈ {±1}³⁰)")
    k = VARIANTS.get(cfg.azl_variant)
    if k is not None and cfg.k != k:
        raise ConfigError("k", cfg.k, f"{k} for azl_variant={cfg.azl_variant} (the outputs)")
    from_engine(cfg)  # the AZL world's own rules (drop epoch within the epochs, …)


@lru_cache(maxsize=2)
def _shared(acfg: AZLConfig) -> AZLWorld:
    """One data set and initialisation per setting, shared by the methods trained side by side."""
    return build_world(acfg)


def make_run(method: str, world, embed: bool = True, freeze_after: int | None = None) -> AZLRun:
    """The AZL run of the engine method that is the same thing (ConfigError for the others)."""
    if method not in ENGINE_METHODS:
        raise ConfigError("methods", method, "network (3-layer ResNet), ntk (NTK of the 2-layer "
                          "net), rf (last layer) or two_layer in the AZL world; python -m "
                          "engine.azl runs all five of its methods")
    run = AZLRun(_shared(from_engine(world.cfg)), ENGINE_METHODS[method])
    run.method = method
    return run


def explore_run(world) -> ExploreRun:
    """Explore's run: the ResNet (network) with the 3-layer FC, 2-layer, NTK and last-layer
    methods beside it, so its chart has every method's test error against kα²."""
    return ExploreRun(_shared(from_engine(world.cfg)))


def run_bytes(cfg: Config, r: int, params: float) -> tuple[float, float]:
    """(kept, peak) bytes of one run: per step a few hundred floats and every 10th first layer;
    the peak is the whole-set evaluation through the 300×300 layer."""
    kept = params + (cfg.T + 1) * (cfg.m * 2 + cfg.m * cfg.d / 10) * 4
    return kept, 8 * max(cfg.n, cfg.n_test, TEST_PROBE) * cfg.m * 4


def _spec(name: str, label: str, default) -> Spec:
    kind, lo, hi, text = RANGES[name]
    return Spec(kind, lo, hi, label=label, default=default, help=f"AZL world: {text}")


SETTINGS = {
    "azl_variant": Spec(str, choices=tuple(VARIANTS), label="reading of G", default="v1v2",
                        help="AZL world: v1v2 = G_r = (−1)^r y₁y₂y₃y₄ (default); literal = "
                             "the source's two parities alternated; k15 = the later version"),
    "azl_drop_epoch": _spec("drop_epoch", "step-size drop epoch", 15),
    "azl_lr": _spec("lr", "step size (ResNet, FC, 2-layer)", 0.2),
    "azl_lr_ntk": _spec("lr_ntk", "step size (NTK)", 0.1),
    "azl_lr_last": _spec("lr_last", "step size (last layer)", 0.02),
    "azl_wd": _spec("wd", "weight decay", 1e-3),
    "azl_momentum": _spec("momentum", "SGD momentum", 0.9),
    "azl_alpha": _spec("alpha", "α (weight of G)", 0.3),
    "azl_beta": _spec("beta", "β (weight of F)", 1.0),
}
PRESETS = tuple(Preset(p.name, p.title, p.description, p.source,
                       engine_settings(p.config(), SCENARIO)) for p in AZL_PRESETS.values())
RECORD = WorldRecord(
    SCENARIO, "depth: a 3-layer ResNet learns F, then G(F) (Allen-Zhu & Li)", make_dataset,
    settings=SETTINGS, check=check, presets=PRESETS, procedures=("resnet3",),
    dictionary=False, run_bytes=run_bytes, make_run=make_run, methods=OFFERED,
    explore_run=explore_run,
    # engine.azl.world.ENGINE_NAMES, and d, D, k that its check pins to the variant
    common=("d", "D", "k", "n", "n_test", "seed", "m", "T", "batch"))
