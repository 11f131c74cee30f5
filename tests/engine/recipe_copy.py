"""What the recipe tests share (test_procedure_recipe.py, test_world_contract.py): a copy of the
app to follow a docs recipe on, and the one registry line a recipe adds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the app, the engine, and the tests (the conformance suite runs on the copy)
PARTS = ("engine", "ui", "pages", "app.py", "asgi.py", ".streamlit", "tests", "pyproject.toml")


def copy_app(dest: Path) -> None:
    """Copy the app's parts to dest (no caches)."""
    for part in PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dest / part)


def add_to_registry(registry: Path, line: str) -> None:
    """Append one line to the `REGISTRY = (...)` tuple of a registry module."""
    head, sep, tail = registry.read_text(encoding="utf-8").partition("REGISTRY = (\n")
    body, close, rest = tail.partition("\n)\n")
    registry.write_text(head + sep + body + "\n" + line + close + rest, encoding="utf-8")


# the tests besides the conformance suite that read the registries (names in the pages and the
# player, the Guide's glossary, shared names, world settings, import circles): a recipe's new
# procedure or world must pass them too, as it must the whole suite
REGISTRY_TESTS = ("tests/ui/test_player_names.py", "tests/ui/test_no_procedure_names.py",
                  "tests/ui/test_guide_glossary.py", "tests/engine/test_one_name.py",
                  "tests/engine/test_world_contract.py", "tests/engine/test_procedures.py",
                  "tests/engine/test_import_graph.py")


def registry_tests(dest: Path, env: dict) -> subprocess.CompletedProcess:
    """REGISTRY_TESTS run on the copy (not the slow recipe tests themselves)."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m",
                           "not slow", *REGISTRY_TESTS], cwd=dest, env=env,
                          capture_output=True, text=True, timeout=600)
