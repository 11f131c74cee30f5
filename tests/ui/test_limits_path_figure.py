"""The ridge path plot (ui/limits_view.path_figure: test value against λ, the chosen limit
marked) and the limit labels of the curve charts, which sit right of the plot area, never on a
curve (issue 36)."""

from __future__ import annotations

import plotly.graph_objects as go

from ui.limits_view import add_lines, path_figure

PATH = [{"ridge": lam, "test_acc": acc, "certificate": 1e-5, "converged": True}
        for lam, acc in ((1e-2, 0.70), (1e-4, 0.816), (1e-6, 0.874), (1e-8, 0.874))]
NTK = {"test_acc": 0.874, "limit_kind": "λ → 0: max-margin", "path": PATH, "ridge": 1e-6}


def test_path_figure_draws_the_path_and_marks_the_limit():
    fig = path_figure({"ntk": NTK, "rf": {"test_acc": 0.65}})  # RF: no path, not drawn
    assert fig.layout.xaxis.type == "log"
    line, star = fig.data
    assert list(line.x) == [1e-2, 1e-4, 1e-6, 1e-8]
    assert list(line.y) == [70.0, 81.6, 87.4, 87.4]
    assert star.marker.symbol == "star" and list(star.y) == [87.4]
    assert "max-margin" in star.name
    assert path_figure({"rf": {"test_acc": 0.65}}) is None


def test_limit_labels_sit_outside_the_plot_area():
    fig = add_lines(go.Figure(go.Scatter(x=[0, 10], y=[0.5, 0.9])), {"ntk": NTK}, 10)
    dashed = [t for t in fig.data if t.meta == "converged limit"]
    assert dashed and all(t.text is None for t in dashed)  # no label on the line itself
    (label,) = fig.layout.annotations
    assert label.xref == "paper" and label.x >= 1.0 and label.xanchor == "left"
    assert label.y == 0.874 and "limit" in label.text
