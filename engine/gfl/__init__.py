"""Deprecated for one release: engine.gfl's modules moved to their halves (issue 35). The GFL
worlds' shared code (datasets, common settings and preset record, the options a world gives
Algorithm 1) is engine/scenarios/gfl/; the procedure's learners, network, preparation, runs and
probes are engine/procedures/gfl/. Each old module name below stays importable as an alias of
the module that replaced it."""

from __future__ import annotations

from ..moved import alias_modules

MOVED = {
    "datasets": "engine.scenarios.gfl.datasets",
    "worlds": "engine.scenarios.gfl.common",
    "options": "engine.scenarios.gfl.options",
    "learners": "engine.procedures.gfl.learners",
    "net": "engine.procedures.gfl.net",
    "run": "engine.procedures.gfl.run",
    "probes": "engine.procedures.gfl.probes",
    "prepare": "engine.procedures.gfl.prepare",
}
alias_modules(__name__, MOVED)
