"""Feature-emergence engine: the paper's data, network, training, probes and baselines.

The names below are imported on first use (PEP 562): `python -m engine run --help` and the
settings modules load no torch (issue 37: the CLI's parser path under 1 s)."""

import importlib

_WHERE = {"Config": "config", "ConfigError": "config", "from_dict": "config",
          "validate": "config", "Snapshot": "evaluate", "DivergenceError": "run", "Run": "run",
          "World": "run", "build_world": "worlds"}

__all__ = ["Config", "ConfigError", "DivergenceError", "Run", "Snapshot", "World", "build_world",
           "from_dict", "validate"]


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value
