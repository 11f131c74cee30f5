"""The AZL world through the one CLI (`python -m engine run --preset azl-resnet`, the resnet3
procedure): the report contract with the procedure's own method names, its table, one-line
errors for bad input, and no second entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIVE = ("resnet3", "fc3", "two_layer", "ntk", "last_layer")
SMALL = ["--preset", "azl-resnet", "--set", "T=6", "--set", "n=300", "--set", "m=32",
         "--set", "n_test=1100", "--set", "azl_drop_epoch=1", "--quiet"]


def test_report_carries_the_contract_for_all_five(tmp_path, capsys):
    """--methods with the five names: methods.<m>.test_err/c_F/c_G over 2 seeds, history.<m>[i]
    with step, test_err, c_F, c_G; the table has their labels and the kα² line."""
    out = tmp_path / "r.json"
    argv = ["run", *SMALL, "--seeds", "2", "--methods", ",".join(FIVE), "--out", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["preset"] == "azl-resnet" and report["seeds"] == 2
    assert report["procedure"] == "resnet3" and tuple(report["methods"]) == FIVE
    for name in FIVE:
        entry = report["methods"][name]
        assert all(isinstance(entry[k], float) for k in ("test_err", "c_F", "c_G"))
        assert len(entry["per_seed"]) == 2
        rows = report["history"][name]
        assert [r["step"] for r in rows] == list(range(7))
        assert all({"test_err", "c_F", "c_G"} <= set(r) for r in rows)
    text = capsys.readouterr().out
    assert "3-layer FC" in text and "last layer (CK)" in text and "Test err" in text
    assert "kα² = 0.72" in text and "Train %" not in text


def test_the_default_methods_are_the_procedures_five(tmp_path):
    """No --methods: the resnet3 procedure's defaults, all five, by their own names."""
    out = tmp_path / "r.json"
    assert main(["run", *SMALL, "--out", str(out)]) == 0
    assert tuple(json.loads(out.read_text())["methods"]) == FIVE


@pytest.mark.parametrize("argv, field", [
    (["--set", "m=0"], "m="),
    (["--set", "m=３００"], "m="),
    (["--set", "m=inf"], "m="),
    (["--set", "T=1e6"], "T="),
    (["--set", "azl_variant=k9"], "azl_variant="),
    (["--set", "azl_lr=0"], "azl_lr="),
    (["--methods", "resnet3,bogus"], "--methods="),
    (["--methods", "network"], "--methods="),
    (["--methods", "one_step"], "--methods="),
    (["--seeds", "0"], "--seeds="),
    (["--set", "lr"], "--set="),
    (["--set", "d=40"], "d="),
])
def test_bad_input_is_one_line_naming_the_field(argv, field, capsys):
    """Exit code 2 and one line on stderr naming the field; --methods lists the five."""
    assert main(["run", "--preset", "azl-resnet", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and field in err and "not allowed" in err
    if field == "--methods=":
        assert ", ".join(FIVE) in err


def test_the_step_sizes_are_the_procedures_and_read_only_there(capsys):
    """azl_lr is the resnet3 procedure's setting: refused in a world it does not train."""
    assert main(["run", "--preset", "paper-parity", "--set", "azl_lr=0.1"]) == 2
    err = capsys.readouterr().err
    assert "azl_lr=" in err and "procedure=resnet3" in err


def test_the_second_entry_point_is_gone():
    """python -m engine.azl no longer exists (one CLI)."""
    assert not (ROOT / "engine" / "azl" / "cli.py").exists()
    proc = subprocess.run([sys.executable, "-m", "engine.azl", "run"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "engine.azl" in proc.stderr
