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
