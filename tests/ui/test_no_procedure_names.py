"""The pages name no procedure, world or method (issue 35): every name the registries hold
(procedures, worlds, every procedure's methods and aliases) is collected, and a string literal
equal to one, or a module named after one, in ui/ or pages/ is a hit; the browser player
branches on no meta.<procedure>. What a procedure's pages tell beyond its runs (its Guide
sections, its Reproduce cards and figures) is data its package gives its record, and a sweep's
README picture is its SweepPreset's; ui/ draws whatever they declare."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from engine.config import SPECS
from engine.procedures import RECORDS
from engine.scenarios import WORLDS

ROOT = Path(__file__).resolve().parents[2]


def registry_names() -> set[str]:
    """Every procedure, world, method and alias name (a settings group's name, e.g. network,
    is a word of the sidebar, not a hit)."""
    names = set(RECORDS) | set(WORLDS)
    for record in RECORDS.values():
        names |= set(record.names) | set(record.aliases)
    return names - {spec.group for spec in SPECS.values()}


def hits(root: Path, names: set[str]) -> Counter:
    """file → how many string literals equal a name (plus one for a file named after one)."""
    out: Counter = Counter()
    for path in sorted([*(root / "ui").glob("*.py"), *(root / "pages").glob("*.py")]):
        rel = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                out[rel] += 1
        if set(path.stem.split("_")) & names:
            out[rel] += 1
    return out


def js_branches(root: Path, names: set[str]) -> list[str]:
    """`meta.<name>` in the player's scripts, for a procedure name (or its frame maker's)."""
    makers = names | {r.frame for r in RECORDS.values()} | {"azl"}
    return [f"{p.name}: {m}" for p in sorted((root / "ui" / "player").glob("*.js"))
            for m in re.findall(r"\bmeta\.(\w+)", p.read_text(encoding="utf-8")) if m in makers]


def test_the_check_finds_a_name(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "ui" / "ok.py").write_text("def f(record):\n    return record.lead\n")
    (tmp_path / "pages" / "bad.py").write_text('if proc.name == "shi2022":\n    pass\n')
    (tmp_path / "ui" / "gfl_view.py").write_text("X = 1\n")
    assert hits(tmp_path, registry_names()) == Counter({"pages/bad.py": 1, "ui/gfl_view.py": 1})


def test_no_python_file_names_one():
    assert hits(ROOT, registry_names()) == Counter()


def test_the_player_branches_on_no_procedure():
    assert js_branches(ROOT, registry_names()) == []
