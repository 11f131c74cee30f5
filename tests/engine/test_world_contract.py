"""The world contract (engine/scenarios/__init__.py): every world declares itself, and a new world
is one module plus its registry line — the controls, the guard and build_world follow it."""

from __future__ import annotations

import dataclasses
import types

import pytest

from engine import data, guard, scenarios
from engine.config import SCENARIOS, SPECS, Config
from engine.run import Run
from engine.worlds import build_world

TINY = dict(d=40, D=20, k=3, n=400, n_test=200, m=10, T=4, batch=100)


def test_every_world_declares_the_contract():
    assert set(scenarios.WORLDS) == set(SCENARIOS)  # config lists the names the registry holds
    for name, module in scenarios.WORLDS.items():
        assert module.SCENARIO == name
        assert callable(module.make_dataset) and isinstance(module.PRESETS, list)
        assert set(module.SETTINGS) <= set(SPECS), name
        assert isinstance(module.PATTERN_SPACE, bool) and isinstance(module.DICTIONARY, bool)
    # each world-only setting belongs to a world that reads it
    assert scenarios.WORLD_SETTINGS == {"sigma_r", "flip", "vectors", "real", "pair", "alpha"}


def test_the_sidebar_shows_a_worlds_own_settings_only_in_that_world():
    mog, fcb = Config(scenario="mog", k=4), Config(scenario="fcb")
    assert scenarios.shows("sigma_r", mog) and scenarios.shows("sigma_r", fcb)
    assert not scenarios.shows("sigma_r", Config()) and not scenarios.shows("vectors", mog)
    assert scenarios.shows("flip", fcb) and not scenarios.shows("flip", mog)
    assert scenarios.shows("d", mog)  # common settings are always shown


def _toy_world() -> types.ModuleType:
    """A new world written only against the contract: the sparse-coding data kept in input
    coordinates, with a world-only setting of its own."""
    toy = types.ModuleType("toy")
    toy.SCENARIO, toy.SETTINGS, toy.PRESETS = "toy", ("sigma_r",), []
    toy.PATTERN_SPACE, toy.DICTIONARY = False, True
    toy.make_dataset = lambda cfg, space: data.make_dataset(cfg.replace(scenario="sparse_coding"),
                                                            "input")
    return toy


def test_a_new_world_is_one_module_and_one_registry_line(monkeypatch):
    toy = _toy_world()
    monkeypatch.setitem(scenarios.WORLDS, "toy", toy)  # the registry line
    monkeypatch.setattr(scenarios, "WORLD_SETTINGS", scenarios.WORLD_SETTINGS | {"sigma_r"})
    spec = SPECS["scenario"]  # the name in config's choices (the settings sit below the worlds)
    monkeypatch.setitem(SPECS, "scenario",
                        dataclasses.replace(spec, choices=(*spec.choices, "toy")))
    cfg = Config(scenario="toy", **TINY)
    assert scenarios.shows("sigma_r", cfg) and not scenarios.shows("vectors", cfg)
    # the guard sizes it from its declarations: input coordinates, a dictionary
    assert guard.coord_dim(cfg) == (40, 40, False)
    assert guard.coord_dim(Config(**TINY)) == (20, 40, True)
    assert guard.estimate(cfg).memory_mb > guard.estimate(Config(**TINY)).memory_mb
    world = build_world(cfg, "cpu")
    assert world.data.z_train.shape == (400, 40)
    run = Run(world, "network", embed=False)
    while not run.done:
        run.step()
    assert len(run.history) == 5 and 0.0 <= run.history[-1].test_acc <= 1.0


def test_an_unknown_world_is_refused_by_name():
    bad = types.SimpleNamespace(scenario="nowhere")
    with pytest.raises(Exception, match="scenario"):
        scenarios.world(bad)
