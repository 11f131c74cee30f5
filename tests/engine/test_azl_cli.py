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
    (["run", "--set", "fc_bias=learned"], "fc_bias="),
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


def test_the_registered_world_trains_from_the_engine_cli(tmp_path, capsys):
    """python -m engine run --preset azl-resnet: the world's methods by default (network =
    resnet3, ntk, rf = last layer), test error / c_F / c_G in the table and the report; another
    method is one line naming it."""
    from engine.cli import main as engine_main

    out = tmp_path / "r.json"
    argv = ["run", "--preset", "azl-resnet", "--set", "T=6", "--set", "n=300", "--set", "m=32",
            "--set", "n_test=1100", "--set", "azl_drop_epoch=1", "--quiet", "--out", str(out)]
    assert engine_main(argv) == 0
    text = capsys.readouterr().out
    assert "Test err" in text and "c_G" in text
    report = json.loads(out.read_text())
    assert set(report["methods"]) == {"network", "ntk", "rf"}
    assert report["history"]["network"][-1]["step"] == 6
    assert isinstance(report["methods"]["rf"]["test_err"], float)
    assert engine_main([*argv[:-2], "--methods", "one_step"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "methods='one_step'" in err
    assert engine_main(["run", "--preset", "azl-resnet", "--set", "d=40"]) == 2
    assert "d=40" in capsys.readouterr().err
