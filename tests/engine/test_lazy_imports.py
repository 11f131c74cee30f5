"""Fast start (issue 37): the CLI and a hub worker import scikit-learn, scipy and Ray only
where a run uses them (scikit-learn's cluster module alone was ~0.9 s of every CLI call and
every worker's start). Import time itself is measured by bench/startup.py, not asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sklearn", "scipy", "ray", "pandas", "streamlit")


@pytest.mark.parametrize("module", ["engine.cli", "engine.hub", "engine.frames"])
def test_importing_does_not_load_the_optional_heavy_packages(module):
    code = (f"import sys, {module}; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, check=True).stdout.strip()
    assert out == "[]", f"import {module} loaded {out}"


def test_the_cli_parses_without_torch():
    """The parser needs no registry: `import engine.cli`, parsing a run's arguments and a usage
    error load no torch (the commands, engine/cli_run.py, import it once they run)."""
    code = ("import sys, contextlib, io, engine.cli as cli\n"
            "cli.build_parser(cli.Names()).parse_args(['run', '--set', 'k=7', '--seeds', '2'])\n"
            "with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    cli.main(['run', '--bogus'])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'numpy'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, check=True).stdout.strip()
    assert out == "[]", f"the CLI's parser loaded {out}"
