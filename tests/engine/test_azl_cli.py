"""`python -m engine.azl`: the report contract and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest

from engine.azl.cli import main

SMALL = ["--set", "n=400", "--set", "n_test=1200", "--set", "m=32", "--set", "epochs=2",
         "--set", "drop_epoch=1", "--quiet"]


def test_report_carries_the_contract(tmp_path, capsys):
    """methods.<m>.test_err/c_F/c_G over 2 seeds; history.<m>[i] with step, test_err, c_F, c_G."""
    out = tmp_path / "azl.json"
    assert main(["run", "--seeds", "2", "--out", str(out), *SMALL]) == 0
    report = json.loads(out.read_text())
    assert report["preset"] == "azl-resnet" and report["seeds"] == 2
    assert report["config"]["threshold"] == pytest.approx(0.72)
    for name in ("resnet3", "fc3", "two_layer", "ntk", "last_layer"):
        entry = report["methods"][name]
        assert all(isinstance(entry[k], float) for k in ("test_err", "c_F", "c_G"))
        assert len(entry["per_seed"]) == 2
        rows = report["history"][name]
        assert [r["step"] for r in rows] == list(range(len(rows)))
        assert all({"test_err", "c_F", "c_G"} <= set(r) for r in rows)
    text = capsys.readouterr().out
    assert "test error" in text and "kα² = 0.72" in text


@pytest.mark.parametrize("argv, field", [
    (["run", "--set", "m=0"], "m="),
    (["run", "--set", "variant=k9"], "variant="),
    (["run", "--preset", "nope"], "preset="),
    (["run", "--methods", "resnet3,bogus"], "methods="),
    (["run", "--seeds", "0"], "--seeds="),
    (["run", "--set", "lr"], "--set="),
])
def test_bad_input_is_one_line_naming_the_field(argv, field, capsys):
    """Exit code 2 and one line on stderr that names the field and the allowed values."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and field in err and "not allowed" in err


def test_sweep_n_keeps_the_step_budget(tmp_path, capsys):
    """sweep-n: one row per (N, method), every N trained for about the same number of steps."""
    out = tmp_path / "sweep.json"
    argv = ["sweep-n", "--ns", "200,400", "--seeds", "1", "--out", str(out),
            "--set", "n=400", "--set", "n_test=1200", "--set", "m=32", "--set", "epochs=4",
            "--set", "drop_epoch=2"]
    assert main(argv) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["N"], r["method"]) for r in rows] == [(200, "resnet3"), (200, "two_layer"),
                                                     (400, "resnet3"), (400, "two_layer")]
    assert {r["steps"] for r in rows} == {16}
    assert main(["sweep-n", "--ns", "10"]) == 2
    assert "N=" in capsys.readouterr().err
