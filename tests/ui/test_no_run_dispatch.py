"""ui/ and pages/ read the frame stream's meta() and frames() (Explore) and the comparison
stream's meta(), rows() and report() (Compare); none asks a run what it is (issue 28: the old UI
guessed the run type at 15 hasattr/getattr sites and 2 isinstance checks) or reads a run's
history (the old Compare read `.runs`, `.history`, `history_rows`, `.scalars()`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine.procedures import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
# what a dispatch on a run looks at: the run, its snapshots or history, the stream, the world
RUNLIKE = ("run", "r", "snap", "history", "stream", "world", "learner", "prep")
# engine modules that hold a run type's internals: the frame makers (engine/frames) read them
# and each procedure's own package (its record is read through engine.procedures)
# what reading a run looks like: its runs, its history, a snapshot's scalars, the run helpers
RUN_READS = ("runs", "history")
RUN_HELPERS = ("history_rows", "history_csv", "build_report")
INTERNALS = ("engine.mds", "engine.gfl", "engine.azl", "engine.scenarios._common",
             *(f"engine.procedures.{name}" for name in REGISTRY))


def dispatches(source: str, name: str = "<src>") -> list[str]:
    """Every hasattr/getattr on something run-like, isinstance(…, …Run) and import of a run
    type's internals in one module's source, as 'name:line text'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            words = set(re.findall(r"\w+", ast.unparse(node.args[0]).lower()))
            if node.func.id in ("hasattr", "getattr") and words & set(RUNLIKE):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
            if node.func.id == "isinstance" and len(node.args) > 1 and \
                    "Run" in ast.unparse(node.args[1]):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
        if reads_a_run(node):
            found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
        if isinstance(node, ast.Compare) and any(  # a branch on a procedure's name
                isinstance(c, ast.Constant) and c.value in REGISTRY
                for c in (node.left, *node.comparators)):
            found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(n.startswith(INTERNALS) for n in names):
                found.append(f"{name}:{node.lineno} from {node.module} import …")
    return found


def reads_a_run(node: ast.AST) -> bool:
    """`x.runs`, `x.history`, `snap.scalars()`, or engine.report's run helpers (history_rows,
    history_csv, build_report) called on runs; engine.frames.report's namesakes take rows."""
    if isinstance(node, ast.Attribute) and node.attr in RUN_READS:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "scalars":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in RUN_HELPERS:
        words = set(re.findall(r"\w+", " ".join(ast.unparse(a) for a in node.args)))
        return node.func.id == "history_rows" or bool(words & {"runs", "run", "r", "first"})
    return isinstance(node, ast.ImportFrom) and node.module == "engine.report" and \
        any(a.name in RUN_HELPERS for a in node.names)


def test_no_ui_file_asks_a_run_what_it_is() -> None:
    files = sorted([*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py")])
    assert len(files) > 20
    found = [hit for f in files
             for hit in dispatches(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)))]
    assert found == [], "\n".join(found)


def test_the_check_finds_each_kind_of_dispatch() -> None:
    """The old UI's forms (ui/live.py, ui/playback.py, ui/explore_text.py before issue 28)."""
    old = ('if hasattr(run, "first_layer"):\n    pass\n'
           'prep = getattr(state.explore.run, "prep", None)\n'
           'azl = isinstance(run, ExploreRun)\n'
           'extra = getattr(snap, "extra", None) or {}\n'
           'from engine.gfl.probes import layer_probes\n'
           'from engine import mds\n'
           'from engine.azl.narrate import narrate\n'
           'from engine.procedures.resnet3 import threshold\n'
           'if "resnet3" in world(cfg).procedures:\n    pass\n'
           'kind = {getattr(r, "kind", m) for m, r in runs.items()}\n')
    assert len(dispatches(old)) == 10
    compare = ('runs = list(state.compare.series.first.runs.values())\n'  # the old Compare's
               'rows = sum(len(r.history) for r in runs)\n'
               'cols = r.history[-1].scalars()\n'
               'csv = history_csv(first.runs)\n'
               'from engine.report import build_report, cell, history_csv\n'
               'history = {m: history_rows(r) for m, r in runs.items()}\n')
    lines = {int(hit.split(":")[1].split()[0]) for hit in dispatches(compare)}
    assert lines == {1, 2, 3, 4, 5, 6}, dispatches(compare)
    fine = ('x = getattr(state.cfg, name)\ny = getattr(running, name)\nok = isinstance(v, float)\n'
            'from engine.procedures import RECORDS, procedure_of\n'
            'from engine.report import cell, rows_for\n'
            'text = history_csv(_frames(state)["rows"])\n'
            'rows = stream.rows()\nreport = stream.report(preset)\n')
    assert dispatches(fine) == []
