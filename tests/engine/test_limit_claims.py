"""The claims docs/limits.md makes from measured limits hold on this engine: dm-sparse-parity's
row (issue 31 item 5), re-solved at the preset's size (a ~15 s run and its limits)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.compare import Comparison
from engine.limits import limit_of
from engine.presets import preset_config

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _row(preset: str) -> str:
    text = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith(f"| {preset} |"))


def test_dm_sparse_parity_row_matches_its_limits():
    comp = Comparison(preset_config("dm-sparse-parity"), device="cpu")
    comp.run_all()
    summary, row = comp.summary(), _row("dm-sparse-parity")
    assert f"| {100 * summary['network']['test_acc']:.1f} % |" in row
    assert "NTK" in row and "**refused**" in row and "n·p = 4.1e8" in row
    assert limit_of(comp.runs["ntk"])["refused"].startswith("n = 20000 samples × p = 20400")
    for label, method in (("RF", "rf"), ("One Step", "one_step"), ("Two Step", "two_step")):
        lim = limit_of(comp.runs[method])
        at_t = 100 * summary[method]["test_acc"]
        got = re.search(rf"{label} (\d+\.\d) → (\d+\.\d) %", row)
        assert got, (label, row)
        assert float(got.group(1)) == pytest.approx(at_t, abs=0.051), label
        assert float(got.group(2)) == pytest.approx(100 * lim["test_acc"], abs=0.051), label
        assert lim["converged"] and lim["certificate"] <= 1e-4
