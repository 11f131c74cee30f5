"""The report contract of the GFL presets (issue 21, item 5): `python -m engine run --preset NAME
--out r.json` writes methods.<m>.test_acc (binary) or methods.<m>.test_mse_ratio (regression) and
per-step history rows with step, coverage, frac_aligned, relevant_share."""

from __future__ import annotations

import json

import pytest

from engine.cli import main

SMALL = ["--set", "n=400", "--set", "n_test=300", "--set", "m=10", "--set", "T=3",
         "--set", "batch=100"]


@pytest.mark.parametrize("preset,key", [("gfl-multi-index", "test_mse_ratio"),
                                        ("gfl-xor", "test_acc")])
def test_the_cli_report_carries_the_gfl_numbers(tmp_path, preset, key):
    out = tmp_path / "r.json"
    assert main(["run", "--preset", preset, *SMALL, "--quiet", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["methods"]) == {"network", "ntk", "rf", "one_step"}  # the procedure's
    for m, entry in report["methods"].items():
        assert isinstance(entry[key], float), m
        rows = report["history"][m]
        assert [r["step"] for r in rows] == [0, 1, 2, 3]
        for row in rows:
            assert {"coverage", "frac_aligned", "relevant_share"} <= set(row)
            assert 0.0 <= row["coverage"] <= 1.0 and 0.0 <= row["relevant_share"] <= 1.0


def test_the_progress_lines_of_a_regression_world_give_mse_over_var(capsys):
    """A regression world's accuracy is nan: its progress lines print test MSE / Var(y)."""
    assert main(["run", "--preset", "gfl-multi-index", *SMALL]) == 0
    printed = capsys.readouterr()
    assert "\nTest MSE/Var  ours " in printed.out  # the table's row titles keep their column
    lines = [ln for ln in printed.err.splitlines() if " test: " in ln]
    assert lines and all("nan" not in ln for ln in lines), lines
    last = dict(kv.split("=") for kv in lines[-1].split(" test: ")[1].split())
    assert set(last) == {"network", "ntk", "rf", "one_step"}
    assert all(0.0 < float(v) < 10.0 for v in last.values())


def test_several_seeds_of_a_regression_world_give_the_mean_mse_over_var(tmp_path):
    """Its accuracy is nan on every seed: the report averages MSE / Var(y) and skips the nan."""
    out = tmp_path / "r.json"
    assert main(["run", "--preset", "gfl-multi-index", *SMALL, "--seeds", "2", "--quiet",
                 "--out", str(out)]) == 0
    for m, entry in json.loads(out.read_text())["methods"].items():
        ratios = [s["test_mse_ratio"] for s in entry["per_seed"]]
        assert entry["test_mse_ratio"] == pytest.approx(sum(ratios) / 2), m
        assert entry["test_acc"] is None, m


def test_a_method_the_procedure_does_not_run_is_refused_in_one_line(capsys):
    assert main(["run", "--preset", "gfl-xor", *SMALL, "--methods", "two_step"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--methods" in err and "gfl" in err


def test_a_procedure_the_world_does_not_run_is_refused(capsys):
    assert main(["run", "--preset", "gfl-xor", *SMALL, "--set", "procedure=shi2022"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "procedure" in err and "gfl" in err


@pytest.mark.parametrize("settings", [
    dict(scenario="fcb", d=50, D=2, k=2, sigma_r=1.0, flip=0.0, n=600, n_test=300, m=20, T=3,
         batch=100),
    dict(scenario="sparse_coding", labeling="threshold", p_a=0.5, d=40, D=20, k=3, n=600,
         n_test=300, m=20, T=3, batch=100)])
def test_the_gfl_procedure_also_runs_on_existing_worlds(settings):
    """One procedure, many distributions: fcb's XOR and the threshold labeling train by gfl."""
    from engine.config import Config
    from engine.methods import make_run
    from engine.procedures.gfl.run import GFLRun
    from engine.worlds import build_world

    world = build_world(Config(procedure="gfl", **settings), "cpu")
    run = make_run("one_step", world, embed=False)
    assert isinstance(run, GFLRun)
    run.step()
    assert run.history[1].extra["coverage"] > run.history[0].extra["coverage"] + 0.3
