"""The AZL world's Explore run (engine/azl/explore.py): the snapshot fields the map, the charts
and the narration draw, checked against direct computations on the weights and on runs alone."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.methods import MethodRun
from engine.procedures.resnet3.explore import ExploreRun, pair_names, side_key
from engine.procedures.resnet3.run import AZLRun, azl_world
from engine.scenarios.azl.config import METHODS, AZLConfig

# small enough for a second; the ResNet has neurons on every kind of pair star by step 100
SMALL = AZLConfig(n=1000, n_test=500, m=60, epochs=10, drop_epoch=0, seed=1)


@pytest.fixture(scope="module")
def played():
    """An ExploreRun of SMALL taken to the end."""
    run = ExploreRun(azl_world(SMALL))
    for _ in run:
        pass
    return run


def direct_counts_and_purity(w: np.ndarray, k: int) -> tuple[list[int], float]:
    """Per pair r the neurons with cos > 0.9 to one of ±(e_{2r−1} ± e_{2r})/√2, and the mean
    over neurons of max_r (w²_{2r−1} + w²_{2r}) / ‖w‖², written out neuron by neuron."""
    counts, purity = [0] * k, []
    for row in np.asarray(w, dtype=np.float64):
        norm = np.sqrt((row ** 2).sum())
        for r in range(k):
            a, b = row[2 * r], row[2 * r + 1]
            best = max((s1 * a + s2 * b) / np.sqrt(2) / norm
                       for s1 in (1, -1) for s2 in (1, -1))
            counts[r] += int(best > 0.9)
        purity.append(max(row[2 * r] ** 2 + row[2 * r + 1] ** 2 for r in range(k)) / norm ** 2)
    return counts, float(np.mean(purity))


def test_pair_counts_and_purity_equal_a_direct_computation_on_w(played):
    """Every snapshot that keeps W: its pair counts and purity are the direct ones on that W."""
    kept = [s for s in played.history if s.weights is not None]
    assert len(kept) >= 10
    for snap in kept:
        counts, purity = direct_counts_and_purity(snap.weights, SMALL.k)
        assert snap.extra["pair_counts"] == counts, snap.step
        assert snap.extra["pair_purity"] == pytest.approx(purity, rel=1e-9)
        assert snap.frac_aligned == pytest.approx(sum(counts) / SMALL.m)
    last = played.history[-1].extra["pair_counts"]
    assert sum(last) >= 10 and sum(c > 0 for c in last) >= 6  # stars of most pairs taken


def test_the_other_methods_numbers_are_their_own_runs(played):
    """The lead snapshot carries each other method's numbers of the same step, equal to that
    method's run alone on the same data and batches."""
    world = azl_world(SMALL)
    for method in METHODS[1:]:
        alone = AZLRun(world, method)
        for _ in alone:
            pass
        for snap, own in zip(played.history, alone.history, strict=True):
            for key in ("test_err", "c_F", "c_G"):
                assert snap.extra[side_key(key, method)] == own.extra[key], (method, key)
    assert played.test_errors(played.history[-1])[0] == played.history[-1].extra["test_err"]


def test_protocol_marks_and_narration(played):
    """A MethodRun with the 32 pair stars as 8 marks of 4 rows, and a narration quoting the
    snapshot's c_F, c_G and test errors."""
    assert isinstance(played, MethodRun) and played.done and played.t == SMALL.T
    marks = played.pair_marks()
    assert [name for name, _ in marks] == pair_names(8) and pair_names(8)[7] == "x₁₅x₁₆"
    stars = np.vstack([rows for _, rows in marks])
    assert stars.shape == (32, 30)
    assert np.allclose(np.abs(stars).sum(axis=1), np.sqrt(2))  # two entries ±1/√2 each
    snap = played.history[-1]
    text = played.narration(snap)
    assert f"c_F {snap.extra['c_F']:.2f}" in text and f"c_G {snap.extra['c_G']:.2f}" in text
    assert f"kα² = {SMALL.threshold:.2f}" in text and f"seed {SMALL.seed}" in text
    quoted = [float(v) for v in re.findall(r"(?:FC|2-layer|\(2-layer\)|\(CK\)) (\d+\.\d\d)", text)]
    assert quoted == pytest.approx([round(e, 2) for e in played.test_errors(snap)[1:]], abs=0.006)


def test_a_diverging_side_method_stops_alone():
    """last_layer at a huge step size diverges; the ResNet goes on, last_layer's numbers NaN."""
    run = ExploreRun(azl_world(SMALL.replace(lr_last=10.0, epochs=2)))
    for _ in run:
        pass
    assert run.done and "last_layer" in run.stopped
    assert np.isnan(run.history[-1].extra[side_key("test_err", "last_layer")])
    assert np.isfinite(run.history[-1].extra["test_err"])
