"""The README's recipe for a new method, followed literally: one Method line in
engine/method_table.py, on a copy of the engine, and the CLI trains and reports it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TWO_STEP = '    Method("two_step", "Two Step", "Two Step", "#D55E00", "x", 2),\n'
THREE_STEP = '    Method("three_step", "Three Step", "Three Step", "#56B4E9", "star", 3),\n'
TINY = ("d=40", "D=20", "n=400", "n_test=200", "m=10", "T=6", "batch=100")


def test_a_frozen_layer_method_is_one_registry_line(tmp_path):
    shutil.copytree(ROOT / "engine", tmp_path / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    table = tmp_path / "engine" / "method_table.py"
    text = table.read_text(encoding="utf-8")
    assert TWO_STEP in text  # the line the recipe adds next to
    table.write_text(text.replace(TWO_STEP, TWO_STEP + THREE_STEP), encoding="utf-8")
    args = [a for s in TINY for a in ("--set", s)]
    res = subprocess.run([sys.executable, "-m", "engine", "run", "--methods",
                          "network,three_step", *args, "--quiet", "--out", "out.json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Three Step" in res.stdout.splitlines()[1]  # the table's column header
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    cos = [s["cos_max"] for s in report["history"]["three_step"]]
    net = [s["cos_max"] for s in report["history"]["network"]]
    assert len(cos) == 7 and cos[:4] == net[:4]  # the network's first three steps
    assert cos[4:] == [cos[3]] * 3  # then its first layer is frozen
    # the unmodified engine does not know the name: the registry line is what added it
    res = subprocess.run([sys.executable, "-m", "engine", "run", "--methods", "three_step",
                          *args, "--quiet"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2 and "three_step" in res.stderr
