"""The AZL world's two charts from per-step rows (a report's history.<m>, or the comparison
stream's rows): test error per method with the kα² line, and c_F / c_G over steps."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from engine.frames.azl import COLORS, THRESHOLD_TEXT
from engine.procedures import RECORDS
from ui.figures import MARGIN

__all__ = ["COLORS", "THRESHOLD_TEXT", "error_figure",
           "projection_figure", "threshold_line"]
# the engine method names Compare may train the AZL world's methods under (the others are the
# AZL method's own name)
AZL_NAMES = RECORDS["resnet3"].aliases
LABELS = RECORDS["resnet3"].labels()  # the procedure's record (engine/procedures/resnet3)


def _xy(rows: list[dict], key: str) -> tuple[list, list]:
    """(steps, values) of one key, rows without a value left out."""
    pairs = [(r["step"], r[key]) for r in rows if r.get(key) is not None]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def threshold_line(fig: go.Figure, threshold: float, right: bool = False) -> go.Figure:
    """The dashed line kα² with its words just under it at the left (or right) end, on a log y
    axis (Plotly reads an annotation's y there in log10 units: add_hline's own label sat at
    10^kα², not at kα²)."""
    fig.add_hline(y=threshold, line={"dash": "dash", "color": "#444444"})
    fig.add_annotation(x=float(right), xref="paper", y=math.log10(threshold), yref="y",
                       xanchor="right" if right else "left", yanchor="top", showarrow=False,
                       text=f"kα² = {threshold:.2f}: {THRESHOLD_TEXT}")
    return fig


def error_figure(history: dict, threshold: float, height: int = 420) -> go.Figure:
    """Test error E‖out − y‖² per method (log scale) with the line kα² labelled."""
    fig = go.Figure()
    for method, rows in history.items():
        x, y = _xy(rows, "test_err")
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=LABELS.get(method, method),
                                 line={"color": COLORS.get(method, "#555555")}))
    threshold_line(fig, threshold)
    fig.update_layout(height=height, margin=MARGIN, xaxis_title="SGD step",
                      yaxis_title="test error E‖out − y‖²", yaxis_type="log",
                      title="Test error per method")
    return fig


def projection_figure(history: dict, methods=("resnet3", "two_layer"),
                      height: int = 380) -> go.Figure:
    """c_F (solid) and c_G (dashed) over steps: F arrives first, then G, only for the ResNet."""
    fig = go.Figure()
    for method in methods:
        rows = history.get(method)
        if not rows:
            continue
        for key, dash in (("c_F", "solid"), ("c_G", "dash")):
            x, y = _xy(rows, key)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines",
                                     name=f"{key} · {LABELS.get(method, method)}",
                                     line={"color": COLORS.get(method, "#555555"),
                                           "dash": dash}))
    fig.update_layout(height=height, margin=MARGIN, xaxis_title="SGD step",
                      yaxis_title="fraction learned", yaxis_range=[-0.1, 1.05],
                      title="c_F = share of F learned, c_G = share of αG learned")
    return fig
