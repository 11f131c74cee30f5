"""AppTest of Explore on the GFL worlds (issue 21 item 4): the player plays Algorithm 1's own run,
charts test MSE / Var(y) for the regression world, and the narration quotes the probes."""

from __future__ import annotations

import math
import re

import pytest

from engine.gfl.run import GFLRun
from tests.ui.test_explore_app import open_app, plain, player, state, want

TINY = {"n": "600", "n_test": "500", "m": "16", "T": "6", "batch": "100"}


def frames_after(preset: str, count: int = 3):
    """The app on a tiny GFL preset after `count` frames: (AppTest, the frames the player got)."""
    at = want(open_app(preset=preset, **TINY), count)
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    return at, player(at)


def test_the_regression_world_charts_test_mse_over_var():
    at, data = frames_after("gfl-multi-index")
    run = state(at).explore.run
    assert isinstance(run, GFLRun)  # the world's procedure, not the paper's three-stage schedule
    assert data["meta"]["score"] == "mse"
    history = run.history
    sent = data["frames"]
    for j, step in enumerate(sent["step"]):
        snap = history[step]
        assert sent["test"][j] == pytest.approx(snap.extra["test_mse_ratio"], abs=1e-5)
        assert sent["train"][j] == pytest.approx(snap.extra["train_mse_ratio"], abs=1e-5)
        assert not math.isnan(sent["test"][j])
        assert sent["zero"][j] is False  # no hinge-gradient note on Algorithm 1's frames
    text = plain(sent["text"][-1])
    assert "test MSE / Var(y)" in text and "accuracy" not in text


def test_the_narration_quotes_the_snapshot_probes():
    at, data = frames_after("gfl-xor")
    assert data["meta"]["score"] == "acc"
    sent, history = data["frames"], state(at).explore.run.history
    j = sent["step"].index(1)
    text = plain(sent["text"][j])
    snap = history[1]
    assert "After step 1" in text, text
    quoted = float(re.search(r"coverage (\d\.\d\d)", text).group(1))
    assert quoted == pytest.approx(snap.extra["coverage"], abs=0.005)
    share = float(re.search(r"relevant share (\d\.\d\d)", text).group(1))
    assert share == pytest.approx(snap.extra["relevant_share"], abs=0.005)
    assert sent["test"][j] == pytest.approx(snap.test_acc, abs=1e-5)
