"""`python -m engine ... --help` without importing torch (issue 37: under 1 s).

The CLI's parser lists the settings, methods and presets, which are read from the world and
procedure registries, and those import torch (~0.9 s, more under load). Its help text only
changes with the engine's code, so it is kept in a file named by a digest of the engine's
source, the arguments and the terminal width; a help request finds it there, and a missing or
stale one is made by the real parser (then saved). Nothing here imports the engine.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
HELP = ("-h", "--help")


def wants_help(argv: list[str]) -> bool:
    """A help request: -h or --help among the arguments, before any `--`."""
    args = argv[:argv.index("--")] if "--" in argv else argv
    return any(a in HELP for a in args)


def cache_file(argv: list[str]) -> Path:
    """Where this help text is kept: named by the engine's source, argv and the width."""
    h = hashlib.sha256()
    for path in sorted(ENGINE.rglob("*.py")):
        h.update(str(path.relative_to(ENGINE)).encode())
        h.update(path.read_bytes())
    h.update("\0".join(argv).encode())
    h.update(str(shutil.get_terminal_size().columns).encode())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "feature-emergence" / f"help-{h.hexdigest()[:24]}.txt"


def serve(argv: list[str], main) -> int:
    """Print the help for argv, from its file or made by main(argv) (then saved); exit code."""
    path = cache_file(argv)
    with contextlib.suppress(OSError):
        sys.stdout.write(path.read_text(encoding="utf-8"))
        return 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse ends a help request this way
            code = stop.code if isinstance(stop.code, int) else 0
    sys.stdout.write(out.getvalue())
    if code == 0 and out.getvalue():
        with contextlib.suppress(OSError):  # a read-only home: the next call makes it again
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(out.getvalue(), encoding="utf-8")
            tmp.replace(path)
    return code
