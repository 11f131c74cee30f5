"""The world contract (engine.spec.WorldRecord, engine/scenarios/__init__.py): every world declares
itself in one record, the registry is the only list of worlds, and the recipe (docs) for a new
world, followed literally on a copy of the package, gives a world the CLI trains and Explore
shows."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from engine import guard, scenarios
from engine.config import SPECS, Config, ConfigError, from_dict
from engine.preset import Preset
from engine.spec import Spec, WorldRecord
from tests.engine.recipe_copy import add_to_registry, copy_app, registry_tests

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("engine", "ui", "pages", "app.py", "asgi.py")  # what the app and the CLI run


def test_every_world_declares_the_contract():
    assert SPECS["scenario"].choices == tuple(scenarios.WORLDS)  # the registry's names, in order
    assert Config().scenario == scenarios.REGISTRY[0]  # the first entry is the default world
    for name, record in scenarios.WORLDS.items():
        assert isinstance(record, WorldRecord) and record.name == name
        assert callable(record.make_dataset)
        assert all(isinstance(p, Preset) for p in record.presets), name
        assert record.procedures and all(isinstance(p, str) for p in record.procedures), name
        assert all(isinstance(s, Spec) for s in record.settings.values()), name
        for setting in record.uses:  # a Config field with the declared default
            assert getattr(Config(), setting) == SPECS[setting].default, (name, setting)
    # each world-only setting belongs to a world that reads it, and is declared once; the AZL
    # step sizes are the resnet3 procedure's own (engine/procedures/resnet3)
    azl = {"azl_variant", "azl_alpha", "azl_beta"}
    shipped = {"sigma_r", "flip", "vectors", "real", "pair", "alpha", "r", *azl}
    assert shipped <= scenarios.WORLD_SETTINGS  # a new world's own settings join them
    owners = [name for r in scenarios.WORLDS.values() for name in r.settings]
    assert sorted(owners) == sorted(set(owners)) == sorted(scenarios.WORLD_SETTINGS)
    assert scenarios.WORLDS["fcb"].procedures == ("fcb2022", "gfl")


def test_the_sidebar_shows_a_worlds_own_settings_only_in_that_world():
    mog, fcb = Config(scenario="mog", k=4), Config(scenario="fcb")
    assert scenarios.shows("sigma_r", mog) and scenarios.shows("sigma_r", fcb)
    assert not scenarios.shows("sigma_r", Config()) and not scenarios.shows("vectors", mog)
    assert scenarios.shows("flip", fcb) and not scenarios.shows("flip", mog)
    assert scenarios.shows("d", mog)  # common settings are always shown
    # a setting's own `shown` rule: p_A only for the labelings that read it
    assert not scenarios.shows("p_a", Config(), SPECS["p_a"])
    assert scenarios.shows("p_a", Config(labeling="threshold", k=9), SPECS["p_a"])


def named_worlds(paths, names, root: Path = ROOT) -> list[str]:
    """Every place in these Python files that names a world: a string literal equal to a world's
    name, or an import or attribute of a world's module. A procedure record's `worlds=(...)`
    is its declaration (docs/procedures.md), not a branch on a world: it is not a hit."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = {id(c) for k in ast.walk(tree) if isinstance(k, ast.keyword)
                    and k.arg == "worlds" for c in ast.walk(k.value)}
        for node in ast.walk(tree):
            hit = (isinstance(node, ast.Constant) and node.value in names
                   and id(node) not in declared
                   or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1]
                   in names or isinstance(node, ast.alias) and node.name.split(".")[-1] in names
                   or isinstance(node, ast.Attribute) and node.attr in names
                   and ast.unparse(node.value).endswith("scenarios"))
            if hit:
                found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return found


def product_files(root: Path) -> list[Path]:
    """The app's and the engine's Python files outside engine/scenarios/."""
    out = []
    for part in PRODUCT:
        top = root / part
        files = [top] if top.is_file() else sorted(top.rglob("*.py"))
        out += [f for f in files if "scenarios" not in f.relative_to(root).parts]
    return out


def test_no_file_outside_the_registry_names_a_world():
    names = set(scenarios.WORLDS) | set(scenarios.REGISTRY)
    assert named_worlds(product_files(ROOT), names) == []


def test_the_check_finds_a_world_named_in_code(tmp_path):
    """The oracle: the same check on a file that compares cfg.scenario with a world's name."""
    (tmp_path / "engine").mkdir()
    bad = tmp_path / "engine" / "batched.py"
    bad.write_text('def supported(cfg):\n    return cfg.scenario == "sparse_coding"\n')
    good = tmp_path / "engine" / "fine.py"
    good.write_text("def supported(record):\n    return record.batched_sweeps\n")
    record = tmp_path / "engine" / "record.py"  # a procedure's declaration is not a hit
    record.write_text('RECORD = ProcedureRecord("x", worlds=("sparse_coding",))\n')
    assert named_worlds([bad, good, record], {"sparse_coding"}, tmp_path) == [
        "engine/batched.py:2 'sparse_coding'"]


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
    # validation reads the records: importing engine.config alone is enough
    code = ("from engine.config import ConfigError, from_dict\n"
            "try:\n    from_dict({'scenario': 'dm_parity', 'd': 100, 'D': 50})\n"
            "except ConfigError as err:\n    print(err.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "D"


def test_an_unknown_world_is_refused_by_name():
    with pytest.raises(ConfigError, match="one of sparse_coding, dm_parity") as err:
        scenarios.world(types.SimpleNamespace(scenario="nowhere"))  # not validated first
    assert err.value.name == "scenario"
    with pytest.raises(ConfigError) as err:
        from_dict({"scenario": "nowhere"})
    assert err.value.name == "scenario" and "nowhere" in str(err.value)


def readme_recipe() -> tuple[str, str, str]:
    """The docs' world recipe: the module's name, its text and the registry line to add."""
    text = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    section = text[text.index("**A new world**"):]
    path = re.search(r"`engine/scenarios/(\w+)\.py`", section).group(1)
    module = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    line = re.search(r"`(\s*\"\w+\",)` to `REGISTRY`", section).group(1)
    return path, module, line


def follow_recipe(dest: Path) -> str:
    """Copy the app and the engine to dest, then do what docs/extending.md says; the name."""
    copy_app(dest)
    name, module, line = readme_recipe()
    (dest / "engine" / "scenarios" / f"{name}.py").write_text(module, encoding="utf-8")
    add_to_registry(dest / "engine" / "scenarios" / "__init__.py", line.strip("`"))
    return name


EXPLORE = """
import json, os
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(os.path.abspath("app.py"), default_timeout=120)
at.query_params["preset"] = "{preset}"
at.run()
app = at.session_state["app"]
app.explore.player["want"] = 4
for _ in range(20):
    at.run()
    if len(app.explore.stream) >= 4:
        break
at.run()
sent = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("player")]
print(json.dumps({{"world": app.explore.run_cfg.scenario, "steps": len(app.explore.stream),
    "frames": json.loads(sent[-1].proto.json)["frames"]["step"],
    "own_setting": at.number_input(key="w_{setting}").value,
    "worlds": list(at.selectbox(key="w_scenario").options),
    "errors": [e.value for e in at.error] + [e.value for e in at.exception]}}))
"""


@pytest.mark.slow
def test_the_readme_world_recipe_gives_a_world_the_cli_trains_and_explore_shows(tmp_path):
    name = follow_recipe(tmp_path)
    with pytest.raises(ConfigError):  # the unmodified package does not know it
        from_dict({"scenario": name})
    # FEX_WORKERS=0: its AppTest computes Explore in the session, as tests/ui do (conftest.py)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "OMP_NUM_THREADS": "1", "FEX_WORKERS": "0"}
    tiny = ("n=400", "n_test=200", "m=10", "T=60", "batch=100", "d=20", "schedule=standard",
            f"scenario={name}")
    args = [a for s in tiny for a in ("--set", s)]
    res = subprocess.run([sys.executable, "-m", "engine", "run", *args, "--quiet", "--out",
                          "r.json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=240)
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["config"]["scenario"] == name
    assert len(report["history"]["network"]) == 61
    # the example world really learns: the network beats chance clearly (fixed features do not)
    assert report["methods"]["network"]["test_acc"] > 0.8, report["methods"]["network"]
    # it reads no `structure`: its defaults train no w/o-structure twin, and a user's is refused
    assert not [m for m in report["methods"] if m.endswith("_no_structure")], report["methods"]
    bad = subprocess.run([sys.executable, "-m", "engine", "run", *args, "--set",
                          "structure=false"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "structure" in bad.stderr.splitlines()[0], bad.stderr
    record_preset = re.search(r'Preset\("([\w-]+)"', readme_recipe()[1]).group(1)
    setting = re.search(r'settings=\{"(\w+)"', readme_recipe()[1]).group(1)
    res = subprocess.run([sys.executable, "-c", EXPLORE.format(preset=record_preset,
                                                               setting=setting)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    shown = json.loads(res.stdout.strip().splitlines()[-1])
    assert shown["world"] == name and shown["steps"] >= 4 and shown["frames"], shown
    assert shown["errors"] == [] and name in shown["worlds"], shown
    assert shown["own_setting"] is not None
    # the conformance suite on the copy: the new world is among its cases by registering
    suite = ["tests/engine/test_conformance.py", "tests/ui/test_conformance_pages.py"]
    res = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                          "-k", name, *suite], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:]
    assert re.search(r"\d+ passed", res.stdout) and " failed" not in res.stdout
    # its own words, checked by the suite's generic checks on the copy (named here so that a
    # renamed check cannot silently drop them)
    for check in ("sigma_am", "compare_offers"):
        assert re.search(rf"{check}\w*\[[\w-]*{name}\] PASSED", res.stdout), check
    res = registry_tests(tmp_path, env)  # and every other test that reads the registries
    assert res.returncode == 0, res.stdout[-3000:]


def test_the_guard_sizes_a_world_from_its_record():
    mog = from_dict({"scenario": "mog", "k": 4, "D": 4})
    assert guard.coord_dim(Config()) == (100, 500, True)  # pattern coordinates (D wide)
    assert guard.coord_dim(mog) == (500, 500, False)  # input coordinates
    assert guard.estimate(mog).memory_mb > guard.estimate(Config(D=4, k=3)).memory_mb
