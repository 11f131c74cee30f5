"""Building a world: build_world draws the data of cfg's world and its initial network on a
device. The worlds themselves are the registry engine/scenarios/ (WORLDS; `scenario` is the
setting that names one); this module only builds the one a Config picks."""

from __future__ import annotations

from . import scenarios
from .config import Config, validate
from .data import Dataset
from .evaluate import Evaluator
from .population import population_stats
from .run import World, pick_device
from .schedule import build_schedule
from .trainer import DeviceData, init_params


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The Dataset of cfg's world; space 'pattern', 'input' or 'auto' (pattern coordinates where
    the world allows them)."""
    return scenarios.make_dataset(cfg, space)


def build_world(cfg: Config, device: str = "auto", space: str = "auto",
                feature_cache: bool = True) -> World:
    """Draw the data and the initial network for cfg on the chosen device; feature_cache False
    recomputes frozen layers' activations every step (engine.guard decides on a server)."""
    cfg = validate(cfg)
    dev = pick_device(device)
    ds = make_dataset(cfg, space)
    data = DeviceData.from_dataset(ds, dev)
    if not feature_cache:
        data.feature_budget = 0
    # Without input structure γ can be 0, which leaves σ_a and η⁽¹⁾ undefined: the network
    # then keeps the initialisation and step sizes of the structured setting (same procedure).
    ref = ds.stats if cfg.structure else population_stats(cfg.replace(structure=True))
    schedule = build_schedule(cfg, ref)
    evaluator = Evaluator(ds, data, cfg.seed, schedule.truncated)
    return World(cfg, ds, data, schedule, evaluator, init_params(cfg, ref, ds, schedule, dev), dev)
