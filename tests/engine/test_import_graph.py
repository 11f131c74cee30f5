"""engine/ is a directed graph: no import cycle between its modules, annotation-only imports
(under TYPE_CHECKING) counted as edges too, no import hidden in a function body to dodge one
(optional dependencies excepted). The graph is read from the source (import statements, and the
registries' modules, which they import by name); the checks are shown to fail on a copy of
engine/ with a cycle, an annotation-only cycle or a hidden import put in."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
# optional dependencies, imported where they are used so the engine runs without them; and the
# costly ones, imported where used so the CLI and a hub worker start fast (issue 37:
# tests/engine/test_lazy_imports.py)
OPTIONAL = {"torchvision", "ray", "sklearn", "scipy"}


def _module(path: Path, engine: Path = ENGINE) -> str:
    rel = path.relative_to(engine.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> list[str]:
    """Absolute engine module names an ImportFrom refers to (submodules included)."""
    if node.level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    names = [f"{target}.{a.name}" for a in node.names]
    # `from . import x` needs engine.x; the enclosing package is imported first anyway
    return names if mod.startswith(target + ".") else [target, *names]


def _registry_edges(tree: ast.Module, mod: str) -> set[str]:
    """The modules a registry imports by name: `REGISTRY = ("name", ...)` beside import_module,
    and a moved package's shim, `MOVED = {"old": "engine.new.module", ...}`."""
    for node in tree.body:
        names = node.value.elts if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "REGISTRY" for t in node.targets) and isinstance(
            node.value, ast.Tuple) else []
        if names and all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
            return {f"{mod}.{n.value}" for n in names}
        moved = node.value.values if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "MOVED" for t in node.targets) and isinstance(
            node.value, ast.Dict) else []
        if moved:
            return {n.value for n in moved if isinstance(n, ast.Constant)}
    return set()


def _named_edges(tree: ast.Module) -> set[str]:
    """Modules imported by name, `importlib.import_module("engine.x")` (engine/cli.py reads its
    commands so, on first use): edges all the same."""
    return {n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "attr", getattr(n.func, "id", "")) == "import_module" and n.args
            and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)}


def _maker_edges(modules) -> set[str]:
    """engine.frames.MAKERS reads each procedure package's frames module by name."""
    return {m for m in modules if m.startswith("engine.procedures.") and m.endswith(".frames")}


def _graph(engine: Path = ENGINE):
    modules = {_module(p, engine): p for p in engine.rglob("*.py")}
    edges, inner = {m: set() for m in modules}, []
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        edges[mod] |= _registry_edges(tree, mod) & modules.keys()
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        nested = {id(n) for f in funcs for n in ast.walk(f) if n is not f}
        edges[mod] |= _named_edges(tree) & modules.keys()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(mod, is_pkg, node)
            else:
                continue
            # engine.__main__ (nothing imports it, so it closes no cycle) defers the CLI so that a
            # help text kept on disk is printed without torch (engine/cli_help.py); its edge counts
            if id(node) in nested and mod != "engine.__main__":
                if not any(t.split(".")[0] in OPTIONAL for t in targets):
                    inner.append(f"{mod}:{node.lineno} {ast.unparse(node)}")
                continue
            edges[mod] |= {t for t in targets if t in modules and t != mod}
    if "engine.frames.stream" in edges:
        edges["engine.frames.stream"] |= _maker_edges(modules)
    return edges, inner


def _cycle(edges):
    """One cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_engine_imports_form_no_cycle():
    edges, _ = _graph()
    cycle = _cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_import_inside_a_function_except_optional_dependencies():
    _, inner = _graph()
    assert inner == [], "imports inside functions:\n" + "\n".join(inner)


def test_the_checks_fail_on_an_engine_with_a_cycle_or_a_hidden_import(tmp_path):
    """The oracle: the same checks on a copy of engine/ with each fault put in."""
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert _cycle(_graph(copy)[0]) is None and _graph(copy)[1] == []
    # a world module that imports the settings at the top: a cycle through the registry
    world = copy / "scenarios" / "mog.py"
    world.write_text("from ..config import SPECS\n" + world.read_text(encoding="utf-8"))
    cycle = _cycle(_graph(copy)[0])
    assert cycle is not None and "engine.scenarios.mog" in cycle and "engine.config" in cycle
    world.write_text(world.read_text(encoding="utf-8").split("\n", 1)[1])
    # an annotation-only import of the settings below them: a cycle all the same (issue 35)
    data = copy / "data.py"
    text = data.read_text(encoding="utf-8")
    data.write_text(text + "\nif TYPE_CHECKING:\n    from .config import Config as _C\n")
    cycle = _cycle(_graph(copy)[0])
    assert cycle is not None and "engine.data" in cycle and "engine.config" in cycle
    data.write_text(text)
    # an import moved into a function body to dodge the cycle
    echo = copy / "echo.py"
    echo.write_text(echo.read_text(encoding="utf-8") + "\n\ndef late():\n    from . import cli\n")
    assert _cycle(_graph(copy)[0]) is None
    assert [h.split()[0] for h in _graph(copy)[1]] == [f"engine.echo:{_lines(echo)}"]


def _lines(path: Path) -> int:
    """The number of the file's last line (where the hidden import was put)."""
    return len(path.read_text(encoding="utf-8").splitlines())
