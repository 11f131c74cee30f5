"""engine/ is a directed graph: no import cycle between its modules, no import hidden in a
function body to dodge one (optional dependencies excepted)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
# optional dependencies, imported where they are used so the engine runs without them
OPTIONAL = {"torchvision", "ray"}


def _module(path: Path) -> str:
    rel = path.relative_to(ENGINE.parent).with_suffix("")
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


def _graph():
    modules = {_module(p): p for p in ENGINE.rglob("*.py")}
    edges, inner = {m: set() for m in modules}, []
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        nested = {id(n) for f in funcs for n in ast.walk(f) if n is not f}
        typing_only = {id(n) for i in ast.walk(tree) if isinstance(i, ast.If)
                       and ast.unparse(i.test).endswith("TYPE_CHECKING") for n in ast.walk(i)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(mod, is_pkg, node)
            else:
                continue
            if id(node) in typing_only:  # annotations only: no import at run time
                continue
            if id(node) in nested:
                if not any(t.split(".")[0] in OPTIONAL for t in targets):
                    inner.append(f"{mod}:{node.lineno} {ast.unparse(node)}")
                continue
            edges[mod] |= {t for t in targets if t in modules and t != mod}
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


def test_the_checker_sees_a_cycle_and_a_hidden_import():
    """The oracle itself: a two-module cycle and a function-level import are reported."""
    assert _cycle({"a": {"b"}, "b": {"a"}}) in (["a", "b", "a"], ["b", "a", "b"])
    assert _cycle({"a": {"b"}, "b": set()}) is None
    tree = ast.parse("def f():\n    from . import run\n")
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert any(isinstance(n, ast.ImportFrom) for f in funcs for n in ast.walk(f))
