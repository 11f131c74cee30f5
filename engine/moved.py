"""Old module names kept importable for one release after a move (issue 35's shims)."""

from __future__ import annotations

import sys
from importlib import import_module


def alias_modules(package: str, moved: dict[str, str]) -> None:
    """Make `package.old` the module now at `moved[old]`, for every old name."""
    for old, new in moved.items():
        module = import_module(new)
        sys.modules[f"{package}.{old}"] = module
        setattr(sys.modules[package], old, module)  # `import package.old` then `package.old.x`
