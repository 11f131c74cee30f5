"""The procedure recipe (docs/procedures.md, issues 28 and 35): on a copy of the app, the docs'
mean-field procedure (its own loss and update rule) added as one package and one registry line
is trained by the CLI with its own method names, plays in Explore and in Compare with its own
labels and credit, passes the conformance suite, and needs no other file; a procedure file that
imports a ui/ module (or Streamlit) is found."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import ConfigError, from_dict
from tests.engine.recipe_copy import add_to_registry, copy_app, registry_tests

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("ui", "pages", "streamlit")  # what a procedure's package may not import


def docs_recipe() -> tuple[str, str, str]:
    """docs/procedures.md's recipe: the package's name, its __init__ and the registry line."""
    text = (ROOT / "docs" / "procedures.md").read_text(encoding="utf-8")
    section = text[text.index("**A new procedure**"):]
    name = re.search(r"`engine/procedures/(\w+)/`", section).group(1)
    module = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    line = re.search(r"`(\s*\"\w+\",)` to `REGISTRY`", section).group(1)
    return name, module, line


def follow_recipe(dest: Path) -> str:
    """Copy the app to dest, then do exactly what the recipe says; returns the name."""
    copy_app(dest)
    name, module, line = docs_recipe()
    (dest / "engine" / "procedures" / name).mkdir()
    (dest / "engine" / "procedures" / name / "__init__.py").write_text(module, encoding="utf-8")
    add_to_registry(dest / "engine" / "procedures" / "__init__.py", line)
    return name


def ui_imports(root: Path) -> list[str]:
    """Every import of ui/, pages/ or Streamlit in root's engine/procedures/ package."""
    found = []
    for path in sorted((root / "engine" / "procedures").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            if any(n.split(".")[0] in FORBIDDEN for n in names):
                found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_procedure_imports_a_ui_module():
    assert ui_imports(ROOT) == []


TINY = ("n=400", "n_test=200", "m=10", "T=6", "batch=100", "d=20", "D=5", "k=3")
PAGES = """
import json, os
from streamlit.testing.v1 import AppTest
tiny = dict(p.split("=") for p in {tiny!r})
explore = AppTest.from_file(os.path.abspath("app.py"), default_timeout=120)
explore.query_params.update({{"procedure": "meanfield", **tiny}})
explore.run()
app = explore.session_state["app"]
frames = set()
for _ in range(30):
    app.explore.player["want"] = 4
    explore.run()
    for e in explore.get("bidi_component"):
        if e.proto.component_name.endswith("player"):
            frames |= set(json.loads(e.proto.json)["frames"]["step"])
    if len(frames) >= 4:
        break
frames = sorted(frames)
compare = AppTest.from_file(os.path.abspath("app.py"), default_timeout=120)
compare.query_params.update({{"procedure": "meanfield", **tiny}})
compare.switch_page("pages/compare.py").run()
options = list(compare.multiselect(key="compare_methods").options)
compare.button(key="compare_play").click().run()
for _ in range(300):
    cs = compare.session_state["app"].compare
    if cs.summary is not None or cs.error or compare.exception:
        break
    compare.run()
cs = compare.session_state["app"].compare
print(json.dumps({{
    "explore_credit": [c.value for c in explore.caption],
    "explore_frames": frames,
    "width": [w.label for w in explore.number_input if w.label.startswith("m")],
    "options": options,
    "trained": list(cs.summary["methods"]) if cs.summary else None,
    "columns": [c for df in compare.dataframe for c in df.value.columns],
    "compare_credit": [c.value for c in compare.caption],
    "headlines": [m.label for m in compare.metric],
    "errors": [e.value for e in (*explore.error, *explore.exception, *compare.error,
                                 *compare.exception)] + ([cs.error] if cs.error else [])}}))
"""


@pytest.mark.slow
def test_the_recipe_gives_a_procedure_the_cli_trains_and_the_pages_show(tmp_path):
    name = follow_recipe(tmp_path)
    with pytest.raises(ConfigError):  # the unmodified app does not know it
        from_dict({"procedure": name})
    # FEX_WORKERS=0: its AppTest computes Explore in the session, as tests/ui do (conftest.py)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "OMP_NUM_THREADS": "1", "FEX_WORKERS": "0"}
    args = [a for s in (*TINY, f"procedure={name}") for a in ("--set", s)]
    cli = [sys.executable, "-m", "engine", "run", *args, "--quiet"]
    res = subprocess.run([*cli, "--methods", "mf_net,mf_rf", "--out", "r.json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "Mean-field net" in res.stdout and "Mean-field random features" in res.stdout
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["procedure"] == name and list(report["methods"]) == ["mf_net", "mf_rf"]
    assert len(report["history"]["mf_net"]) == 7
    assert report["schedule"] is None  # it trains by its own SGD, not the paper's schedule
    bad = subprocess.run([*cli, "--methods", "network"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--methods=" in bad.stderr and "mf_net, mf_rf" in bad.stderr
    res = subprocess.run([sys.executable, "-c", PAGES.format(tiny=TINY)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    shown = json.loads(res.stdout.strip().splitlines()[-1])
    assert shown["errors"] == [], shown
    credit = "Mei, Montanari & Nguyen"
    assert any(credit in c for c in shown["explore_credit"]), shown
    assert len(shown["explore_frames"]) >= 3 and shown["width"] == ["m — 10 neurons"], shown
    assert shown["options"] == ["Mean-field net", "Mean-field random features"], shown
    assert shown["trained"] == ["mf_net", "mf_rf"], shown
    assert {"Mean-field net", "Mean-field random features"} <= set(shown["columns"]), shown
    assert any(credit in c for c in shown["compare_credit"]), shown
    assert shown["headlines"] == ["MF net − MF RF"], shown
    # the conformance suite, on the copy: the new procedure is among its cases by registering
    suite = ["tests/engine/test_conformance.py", "tests/ui/test_conformance_pages.py"]
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-k", name, *suite], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:]
    assert re.search(r"(\d+) passed", res.stdout) and " failed" not in res.stdout
    res = registry_tests(tmp_path, env)  # and every other test that reads the registries
    assert res.returncode == 0, res.stdout[-3000:]
    # the check that keeps the pages off a procedure's internals finds a ui/ import in it
    assert ui_imports(tmp_path) == []
    package = tmp_path / "engine" / "procedures" / name / "__init__.py"
    text = package.read_text(encoding="utf-8")
    package.write_text(text + "from ui import fan  # noqa\n", encoding="utf-8")
    line = len(text.splitlines()) + 1
    assert ui_imports(tmp_path) == [f"engine/procedures/{name}/__init__.py:{line} "
                                    "from ui import fan"]
