"""One name per concept in engine/ (issue 35): REGISTRY is always a registry of modules (a tuple
of names imported by name), METHODS always a tuple of method names, build_world defined once,
and one rule parses a list of methods wherever one is given (CLI, sweeps, URL)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine import methods
from engine.errors import ConfigError
from engine.sweep import spec as sweep_spec

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _assignments(engine: Path, name: str) -> list[tuple[str, ast.expr]]:
    """(file, value) of every module-level `name = value` in engine/."""
    out = []
    for path in sorted(engine.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(
                    getattr(t, "id", "") == name for t in node.targets):
                out.append((str(path.relative_to(engine.parent)), node.value))
    return out


def _names_tuple(value: ast.expr) -> bool:
    """A literal tuple of strings."""
    return isinstance(value, ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)


def clashes(engine: Path = ENGINE) -> list[str]:
    """Every place where a shared name means something else."""
    found = [f"{f}: REGISTRY is not a tuple of module names"
             for f, v in _assignments(engine, "REGISTRY")
             if not _names_tuple(v) and not (isinstance(v, ast.Name) and f == "engine/methods.py")]
    found += [f"{f}: METHODS is not a tuple of method names"
              for f, v in _assignments(engine, "METHODS")
              if not (_names_tuple(v) or isinstance(v, ast.Call)
                      and ast.unparse(v.func) == "tuple" and ".name for" in ast.unparse(v))]
    defs = [str(p.relative_to(engine.parent)) for p in sorted(engine.rglob("*.py"))
            for n in ast.parse(p.read_text(encoding="utf-8")).body
            if isinstance(n, ast.FunctionDef) and n.name == "build_world"]
    if len(defs) > 1:
        found.append("build_world defined in " + ", ".join(defs))
    return found


def test_each_shared_name_means_one_thing():
    assert clashes() == []


def test_the_check_finds_a_clash(tmp_path):
    """The oracle: a records tuple named REGISTRY, records named METHODS, a second build_world."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "a.py").write_text(
        'REGISTRY = _BASES + tuple(rows)\nMETHODS = (Method("x"),)\n'
        "def build_world(cfg):\n    pass\n", encoding="utf-8")
    (tmp_path / "engine" / "b.py").write_text(
        'REGISTRY = ("x", "y")\nMETHODS = ("x",)\ndef build_world(cfg):\n    pass\n',
        encoding="utf-8")
    assert len(clashes(tmp_path / "engine")) == 3


def test_one_rule_parses_a_list_of_methods():
    assert sweep_spec.parse_methods is methods.parse_methods
    assert methods.parse_methods(" network, rf ") == ("network", "rf")
    for text, words in (("rf,rf", "each method once (rf twice)"), ("", "subset of"),
                        ("network,bogus", "subset of")):
        with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
            methods.parse_methods(text)
    with pytest.raises(ConfigError, match="the toy procedure's methods"):
        methods.parse_methods("rf", ("toy_net",), "the toy procedure's methods")
