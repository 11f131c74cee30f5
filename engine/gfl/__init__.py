"""Deprecated for one release: engine.gfl's modules moved to their halves (issue 35). The GFL
worlds' shared code (datasets, common settings and preset record, the options a world gives
Algorithm 1) is engine/scenarios/gfl/; the procedure's learners, network, preparation, runs and
probes are engine/procedures/gfl/. Each old module name below stays importable as an alias of
the module that replaced it."""

from __future__ import annotations

import sys
from importlib import import_module

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
for _old, _new in MOVED.items():
    sys.modules[f"{__name__}.{_old}"] = import_module(_new)
