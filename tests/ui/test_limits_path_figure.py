"""The ridge path plot (ui/limits_view.path_figure: test value against λ, the chosen limit
marked) and the limit labels of the curve charts, which sit right of the plot area, never on a
curve (issue 36)."""

from __future__ import annotations

import plotly.graph_objects as go

from engine.methods import LABELS
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


def test_equal_limits_get_stars_apart_on_the_path_plot():
    # gfl-uniform-parity: the NTK's and One Step's λ → 0 limits are both 100 %
    fig = path_figure({"ntk": NTK, "one_step": {**NTK, "limit_kind": "λ → 0: max-margin"}})
    stars = [t for t in fig.data if t.marker.symbol == "star"]
    assert len(stars) == 2 and stars[0].y[0] == stars[1].y[0]
    assert stars[0].x[0] / stars[1].x[0] >= 1.5  # apart on the log axis, both right of 1e-8
    assert max(t.x[0] for t in stars) < 1e-8


def test_limit_labels_sit_outside_the_plot_area():
    fig = add_lines(go.Figure(go.Scatter(x=[0, 10], y=[0.5, 0.9])), {"ntk": NTK}, 10)
    dashed = [t for t in fig.data if t.meta == "converged limit"]
    assert dashed and all(t.text is None for t in dashed)  # no label on the line itself
    (label,) = fig.layout.annotations
    assert label.xref == "paper" and label.x >= 1.0 and label.xanchor == "left"
    assert label.y == 0.874 and "limit" in label.text


def test_close_limit_labels_are_moved_apart_and_far_ones_stay():
    base = go.Figure(go.Scatter(x=[0, 10], y=[0.5, 0.9]))
    base.update_layout(height=440, margin={"t": 30, "b": 10}, yaxis={"range": [0.3, 1.02]})
    lims = {"rf": {"test_acc": 0.562}, "ntk": {"test_acc": 0.558}, "one_step": {"test_acc": 0.98}}
    fig = add_lines(base, lims, 10)
    by = {a.text: a for a in fig.layout.annotations}
    per_unit = (440 - 30 - 10 - 50) / (1.02 - 0.3)
    rf, ntk = (by[f"{LABELS[m]} limit"] for m in ("rf", "ntk"))
    # at their values the two labels would overlap (0.004 apart ≈ 2 px); moved, they are ≥ 15 px
    gap = (rf.y - ntk.y) * per_unit + (rf.yshift - ntk.yshift)
    assert gap >= 15 - 1e-9 and ntk.yshift == 0
    assert by[f"{LABELS['one_step']} limit"].yshift == 0  # far from the others: not moved


def test_a_limit_far_off_the_curves_is_labelled_at_the_edge_with_its_value():
    # gfl-multi-index's NTK at λ → 0: MSE/Var 8.37 beside curves between 0.1 and 0.9
    base = go.Figure(go.Scatter(x=[0, 10], y=[0.9, 0.12]))
    base.update_layout(yaxis={"rangemode": "tozero"})
    fig = add_lines(base, {"ntk": {"test_mse_ratio": 8.371}, "rf": {"test_mse_ratio": 0.85}}, 10)
    lines = {t.name for t in fig.data if t.meta == "converged limit"}
    assert lines == {f"{LABELS['rf']}: converged limit"}  # no dashed line 9× above the curves
    lo, hi = fig.layout.yaxis.range
    assert lo < 0.01 and 0.9 <= hi < 1.0  # the axis keeps the curves' scale
    by = {a.text.split(" limit")[0]: a for a in fig.layout.annotations}
    edge = by[LABELS["ntk"]]
    assert edge.text == f"{LABELS['ntk']} limit 8.37 ↑" and edge.y == 0.9
    assert by[LABELS["rf"]].text == f"{LABELS['rf']} limit"
    # on a fixed accuracy axis a limit below its floor is labelled at the bottom, in %
    acc = go.Figure(go.Scatter(x=[0, 10], y=[0.6, 0.99]))
    acc.update_layout(yaxis={"range": [0.55, 1.02]})
    fig = add_lines(acc, {"one_step": {"test_acc": 0.495}}, 10)
    (label,) = fig.layout.annotations
    assert label.text == f"{LABELS['one_step']} limit 49.5 % ↓" and label.y == 0.55


def test_compare_legend_sits_below_the_plot_away_from_the_limit_labels():
    base = go.Figure(go.Scatter(x=[0, 10], y=[0.5, 0.9]))
    fig = add_lines(base, {"one_step": {"test_acc": 0.9}}, 10)
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # labels: x ≥ 1


def test_a_path_spanning_orders_of_magnitude_is_drawn_on_a_log_axis():
    far = [{"ridge": lam, "test_mse_ratio": v, "certificate": 1e-9, "converged": True}
           for lam, v in ((1e-2, 0.9), (1e-4, 1.1), (1e-6, 40.0), (1e-8, 900.0))]
    lim = {"test_mse_ratio": 1810.0, "path": far, "limit_kind": "λ → 0: minimum-norm least squares"}
    assert path_figure({"rf": lim}).layout.yaxis.type == "log"
    assert path_figure({"ntk": NTK}).layout.yaxis.type == "linear"
