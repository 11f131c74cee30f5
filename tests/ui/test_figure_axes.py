"""Compare's accuracy chart shows every value (issue 28 item 3: axes never hide a value): its
axis starts at 30 % unless a step of a run is lower, then below that step."""

from __future__ import annotations

from ui.figures import accuracy_figure


def runs(*curves: list[float]) -> dict:
    """Per-method rows (CompareStream.rows) with the given test accuracies, step by step."""
    names = ("network", "ntk", "rf")
    return {names[q]: [{"step": i, "train_acc": a, "test_acc": a} for i, a in enumerate(c)]
            for q, c in enumerate(curves)}


def test_the_usual_axis_starts_at_30_percent():
    fig = accuracy_figure(runs([0.5, 0.9, 1.0], [0.5, 0.7, 0.75]), 2)
    assert tuple(fig.layout.yaxis.range) == (0.3, 1.02)


def test_an_accuracy_below_30_percent_stays_on_the_chart():
    """balance=off on the 80 %-negative preset tests at 20 %: the old fixed [0.3, 1.02] hid it."""
    fig = accuracy_figure(runs([0.5, 0.2, 0.21], [0.5, 0.8, 0.8]), 2)
    lo, hi = fig.layout.yaxis.range
    assert lo <= 0.2 - 0.02 and hi == 1.02
    assert all(lo <= y <= hi for t in fig.data for y in t.y)
