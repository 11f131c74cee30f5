"""The world contract (engine/scenarios/__init__.py): every world declares itself, and a new world
is one module plus its registry line — the controls, the guard and build_world follow it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import types

import pytest

from engine import data, guard, scenarios
from engine.config import SCENARIOS, SPECS, Config, ConfigError, from_dict, validate
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
    toy.check = _toy_check
    return toy


def _toy_check(cfg: Config) -> None:
    """The toy world's own rule between settings."""
    if 2 * cfg.D > cfg.d:
        raise ConfigError("D", cfg.D, f"at most d/2 = {cfg.d // 2} in the toy world")


def test_a_new_world_is_one_module_and_one_registry_line(monkeypatch):
    toy = _toy_world()
    monkeypatch.setitem(scenarios.WORLDS, "toy", toy)  # the registry line
    monkeypatch.setattr(scenarios, "WORLD_SETTINGS", scenarios.WORLD_SETTINGS | {"sigma_r"})
    spec = SPECS["scenario"]  # the name in config's choices (the settings sit below the worlds)
    monkeypatch.setitem(SPECS, "scenario",
                        dataclasses.replace(spec, choices=(*spec.choices, "toy")))
    cfg = validate(Config(scenario="toy", **TINY))
    with pytest.raises(ConfigError, match="toy world") as err:  # its own rule, by the registry
        from_dict({"D": 21}, cfg)
    assert err.value.name == "D"
    assert from_dict({"D": 21, "d": 42}, cfg).D == 21
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


WORLD_RULES = [({"k": 6}, "k", "odd"), ({"scenario": "dm_parity", "d": 100, "D": 50}, "D", "D = d"),
               ({"scenario": "real", "pair": "3,3"}, "pair", "distinct"),
               ({"labeling": "threshold", "k": 9, "p_a": 0.01}, "p_a", "each class")]


@pytest.mark.parametrize(("values", "name", "words"), WORLD_RULES)
def test_each_worlds_own_rules_are_validated(values, name, words):
    with pytest.raises(ConfigError, match=words) as err:
        from_dict(values)
    assert err.value.name == name
    assert from_dict({"scenario": "mog", "labeling": "parity", "k": 4}).k == 4  # not mog's rule


def test_the_settings_alone_already_see_the_worlds_rules():
    # importing engine.config runs engine/__init__, which imports the registry that installs them
    code = ("from engine.config import ConfigError, from_dict\n"
            "try:\n    from_dict({'scenario': 'dm_parity', 'd': 100, 'D': 50})\n"
            "except ConfigError as err:\n    print(err.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "D"


def test_an_unknown_world_is_refused_by_name():
    bad = types.SimpleNamespace(scenario="nowhere")
    with pytest.raises(Exception, match="scenario"):
        scenarios.world(bad)
