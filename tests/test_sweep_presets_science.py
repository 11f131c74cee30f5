"""The science sweep presets (gfl-parity-threshold, gfl-xor-gap, azl-error-vs-n): each validates,
a tiny version of each runs, and its rows carry the summaries the preset is about (the GFL probe
after step 1, the AZL world's test error) as read from the runs themselves."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from pathlib import Path

import pytest

from engine.compare import Comparison
from engine.config import ConfigError
from engine.sweep import SweepSpec, load, run_sweep
from engine.sweep.presets import SWEEP_PRESETS, majority_coefficient, parity_threshold
from engine.sweep.rows import EXTRA_FIELDS
from engine.sweep.spec import check
from engine.sweep.store import Store

ROOT = Path(__file__).resolve().parents[1]
NEW = ("gfl-parity-threshold", "gfl-xor-gap", "azl-error-vs-n")


def tiny(name: str, **changes) -> SweepSpec:
    """The preset's sweep with tiny cells, one seed."""
    return dataclasses.replace(SWEEP_PRESETS[name].spec, seeds=1, **changes)


def rows_by_method(path) -> dict[str, dict]:
    _, _, rows = load(path)
    return {r["method"]: r for r in rows}


@pytest.mark.parametrize("name", NEW)
def test_each_preset_validates_within_this_hosts_limits(name):
    spec = SWEEP_PRESETS[name].spec
    assert len(check(spec)) == spec.count() and spec.seeds == 3


def test_parity_cells_span_both_thresholds_at_two_d():
    """n log-spaced from below (2/ξ₃)² at d = 11 (≈ 5 400) to above it at d = 15 (≈ 15 400)."""
    cells = [dict(c) for c in SWEEP_PRESETS["gfl-parity-threshold"].spec.cells]
    assert {c["d"] for c in cells} == {11, 15} and all(c["D"] == c["d"] for c in cells)
    ns = sorted({c["n"] for c in cells})
    assert ns[0] < 5400 / 4 and ns[-1] > 15400 * 3
    assert all(1.5 < b / a < 3 for a, b in zip(ns, ns[1:], strict=False))  # log-spaced


def test_azl_cells_keep_the_step_budget_and_drop_at_half():
    for cell in SWEEP_PRESETS["azl-error-vs-n"].spec.cells:
        cfg = SWEEP_PRESETS["azl-error-vs-n"].spec.config(dict(cell), 0)
        epochs = -(-cfg.T // -(-cfg.n // cfg.batch))
        assert cfg.T == 900 and cfg.azl_drop_epoch == epochs // 2


def test_parity_rows_store_the_relevant_share_after_step_1(tmp_path):
    """share_1 is the run's own probe at step 1: One Step's moved, RF's is its step-0 share."""
    spec = tiny("gfl-parity-threshold", fixed={"m": 16, "T": 3, "n_test": 400},
                cells=((("n", 600), ("d", 11), ("D", 11)),))
    run_sweep(spec, str(tmp_path / "p"))
    rows = rows_by_method(tmp_path / "p")
    comp = Comparison(spec.config({"n": 600, "d": 11, "D": 11}, 0), ("one_step", "rf"), "cpu")
    comp.run_all()
    for m in ("one_step", "rf"):
        hist = comp.runs[m].history
        assert rows[m]["share_1"] == pytest.approx(hist[1].extra["relevant_share"], abs=1e-6)
        assert rows[m]["coverage_1"] == pytest.approx(hist[1].extra["coverage"], abs=1e-6)
        assert rows[m]["relevant_share"] == pytest.approx(hist[-1].extra["relevant_share"],
                                                          abs=1e-6)
    assert rows["rf"]["share_1"] == pytest.approx(comp.runs["rf"].history[0].extra[
        "relevant_share"], abs=1e-6)
    assert rows["one_step"]["share_1"] != pytest.approx(rows["rf"]["share_1"], abs=1e-3)


def test_xor_rows_have_test_accuracy_and_coverage(tmp_path):
    spec = tiny("gfl-xor-gap", fixed={"n": 400, "n_test": 400, "m": 8, "T": 3},
                axes=(("d", (25,)),))
    run_sweep(spec, str(tmp_path / "x"))
    rows = rows_by_method(tmp_path / "x")
    assert set(rows) == {"network", "one_step", "rf"}
    assert all(0 <= r["test_acc"] <= 1 and 0 < r["coverage_1"] <= 1 for r in rows.values())


def test_azl_rows_store_test_error_and_c_g_of_resnet_and_two_layer(tmp_path):
    spec = tiny("azl-error-vs-n", fixed={"n_test": 200, "m": 16, "T": 6, "batch": 50},
                cells=((("n", 200), ("azl_drop_epoch", 1)),))
    run_sweep(spec, str(tmp_path / "a"))
    rows = rows_by_method(tmp_path / "a")
    comp = Comparison(spec.config({"n": 200, "azl_drop_epoch": 1}, 0),
                      ("resnet3", "two_layer"), "cpu")
    comp.run_all()
    for m in ("resnet3", "two_layer"):
        summary = comp.runs[m].summary()
        assert rows[m]["test_err"] == pytest.approx(summary["test_err"], rel=1e-6)
        assert rows[m]["c_G"] == pytest.approx(summary["c_G"], abs=1e-6)
        assert rows[m]["test_acc"] is None
    assert comp.runs["two_layer"].method == "two_layer"
    assert rows["resnet3"]["test_err"] != pytest.approx(rows["two_layer"]["test_err"])


def test_a_method_the_world_does_not_train_is_one_line_before_work(tmp_path):
    spec = tiny("azl-error-vs-n", methods=("one_step",))
    with pytest.raises(ConfigError, match="--methods.*resnet3"):
        run_sweep(spec, str(tmp_path / "bad"))
    assert not (tmp_path / "bad.sqlite").exists()


def test_a_store_from_before_the_new_fields_gains_their_columns(tmp_path):
    """The bundled separation-vs-k store predates them: it opens, gains NULL columns on write."""
    path = tmp_path / "old.sqlite"
    shutil.copy(ROOT / "docs/results/sweep-separation-vs-k.sqlite", path)
    before = {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(results)")}
    assert "share_1" not in before and len(load(path)[2]) == 45
    Store(path).close()
    have = {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(results)")}
    assert set(EXTRA_FIELDS) <= have
    assert all(r["share_1"] is None for r in load(path)[2])


def test_parity_threshold_is_the_spec_s_majority_coefficient():
    """ξ_ℓ = |Maj^(S)|, |S| = ℓ, counted exactly: spec §3.5's ξ₁ = 0.246, ξ₃ = 0.0273 (d = 11),
    ξ₃ = 0.0161 (d = 15), ξ₅ = 0.0016 (d = 21); (2/ξ₃)² ≈ 5 400 and 15 400."""
    assert majority_coefficient(11, 1) == pytest.approx(0.246, abs=5e-4)
    assert majority_coefficient(11, 3) == pytest.approx(0.0273, abs=5e-5)
    assert majority_coefficient(15, 3) == pytest.approx(0.0161, abs=5e-5)
    assert majority_coefficient(21, 5) == pytest.approx(0.0016, abs=5e-5)
    assert majority_coefficient(11, 2) == 0  # even sets: Maj is odd
    assert parity_threshold(11, 4) == pytest.approx(5400, rel=0.01)
    assert parity_threshold(15, 4) == pytest.approx(15400, rel=0.01)
