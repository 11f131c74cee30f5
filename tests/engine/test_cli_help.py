"""`python -m engine ... --help` (issue 37: under 1 s): the second call prints the same text as
the parser without importing torch; a change of width or arguments is another text."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def engine(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def test_help_is_the_parsers_and_the_second_call_imports_no_torch(tmp_path):
    first = engine(["run", "--help"], tmp_path)
    second = engine(["run", "--help"], tmp_path)
    assert first.returncode == second.returncode == 0, first.stderr[-500:]
    assert first.stdout == second.stdout and "--preset PRESET" in first.stdout
    assert re.search(r"\|\s+torch$", first.stderr, re.M)  # made by the real parser once
    assert "torch" not in second.stderr  # then read: nothing heavy imported
    top = engine(["--help"], tmp_path)
    assert top.returncode == 0 and "{presets,settings,run,sweep,warm}" in top.stdout
    assert engine(["run", "--bogus"], tmp_path).returncode == 2  # not a help request: the CLI
