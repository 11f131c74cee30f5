"""Deprecated for one release: engine.azl's modules moved to their halves (issue 35). The world
(settings, data, its engine terms, presets) is engine/scenarios/azl/; the resnet3 procedure's
networks, runs, probes, narration and Explore run are engine/procedures/resnet3/. Each old
module name below stays importable as an alias of the module that replaced it."""

from __future__ import annotations

from ..moved import alias_modules

MOVED = {
    "config": "engine.scenarios.azl.config",
    "data": "engine.scenarios.azl.data",
    "world": "engine.scenarios.azl.convert",
    "presets": "engine.scenarios.azl.presets",
    "nets": "engine.procedures.resnet3.nets",
    "run": "engine.procedures.resnet3.run",
    "probes": "engine.procedures.resnet3.probes",
    "narrate": "engine.procedures.resnet3.narrate",
    "explore": "engine.procedures.resnet3.explore",
}
alias_modules(__name__, MOVED)
