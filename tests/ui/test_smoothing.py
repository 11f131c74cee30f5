"""Curve smoothing (TensorBoard's debiased EMA) and the figures that draw raw + smoothed."""

from __future__ import annotations

import numpy as np
import pytest

from ui.figures import accuracy_figure as compare_figure
from ui.figures import smooth


def test_smooth_is_a_debiased_moving_average():
    assert smooth([0.0, 1.0], 0.5).tolist() == pytest.approx([0.0, 2 / 3])
    assert smooth(np.full(50, 0.9), 0.8) == pytest.approx(np.full(50, 0.9))  # no start-up bias
    y = np.random.default_rng(0).random(30)
    assert smooth(y, 0.0).tolist() == y.tolist()
    dips = np.array([1.0] * 10 + [0.5] + [1.0] * 10)  # a one-step dip is damped, not removed
    s = smooth(dips, 0.6)
    assert s.min() == s[10] == pytest.approx(0.8, abs=1e-3)


def history(acc: list[float]) -> list[dict]:
    return [{"step": i, "train_acc": a, "test_acc": a} for i, a in enumerate(acc)]


def test_compare_figure_smooths_each_method():
    runs = {"network": history([0.5, 1.0, 0.6, 1.0]), "ntk": history([0.5, 0.7, 0.8, 0.8])}
    fig = compare_figure(runs, 3, smoothing=0.6)
    named = [t for t in fig.data if t.showlegend is not False]
    assert [t.name for t in named] == ["Network", "NTK"] and len(fig.data) == 4
    assert list(named[0].y) == pytest.approx(smooth([0.5, 1.0, 0.6, 1.0], 0.6))
    assert len(compare_figure(runs, 3).data) == 2
