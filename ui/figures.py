"""Plotly figures of the Explore page: the MDS map, gradient components and accuracy."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
VERMILLION, ORANGE, BLUE = "#D55E00", "#E69F00", "#0072B2"
SKY, GREEN, PURPLE, GREY = "#56B4E9", "#009E73", "#CC79A7", "#999999"
COS_SCALE = [[0.0, "#BBBBBB"], [0.5, SKY], [1.0, BLUE]]  # |cos| 0 (grey) → 1 (blue)
MAX_POINTS = 2000  # per curve: enough for the eye, light for the browser
MAP_HEIGHT, CHART_HEIGHT = 470, 300


def sample_indices(n: int, upto: int | None = None) -> np.ndarray:
    """At most MAX_POINTS history indices in [0, upto], always with 0, 1, 2 and the last."""
    last = n - 1 if upto is None else min(upto, n - 1)
    if last + 1 <= MAX_POINTS:
        return np.arange(last + 1)
    idx = np.linspace(0, last, MAX_POINTS - 3).round().astype(int)
    return np.unique(np.concatenate([idx, [0, 1, 2, last]]))


def _layout(fig: go.Figure, height: int, title: str) -> go.Figure:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      title={"text": title, "x": 0.0, "font": {"size": 15}},
                      legend={"orientation": "h", "y": -0.12, "x": 0.0}, uirevision="keep")
    return fig


def map_figure(points: np.ndarray, cos: np.ndarray, a: np.ndarray, b: np.ndarray,
               colour_by: str, marks: dict | None, step: int) -> go.Figure:
    """Neurons (2-D MDS of directions) with marks: {'+Σ_A M': xy, '−Σ_A M': xy} or centres."""
    idx = np.arange(len(cos))
    custom = np.column_stack([idx, cos, a, b])
    hover = ("neuron %{customdata[0]:.0f}<br>cos %{customdata[1]:+.3f}"
             "<br>a_i %{customdata[2]:+.4f}<br>b_i %{customdata[3]:+.4f}<extra></extra>")
    fig = go.Figure()
    if colour_by == "cosine":
        fig.add_trace(go.Scattergl(
            x=points[:, 0], y=points[:, 1], mode="markers", name="neurons", customdata=custom,
            hovertemplate=hover, marker={"size": 7, "color": np.abs(cos), "cmin": 0, "cmax": 1,
                                         "colorscale": COS_SCALE, "opacity": 0.85,
                                         "colorbar": {"title": "|cos|", "thickness": 12}}))
    else:
        for sel, name, colour, symbol in ((a >= 0, "a_i > 0", BLUE, "circle"),
                                          (a < 0, "a_i < 0", PURPLE, "triangle-up")):
            fig.add_trace(go.Scattergl(
                x=points[sel, 0], y=points[sel, 1], mode="markers", name=name,
                customdata=custom[sel], hovertemplate=hover,
                marker={"size": 7, "color": colour, "symbol": symbol, "opacity": 0.85}))
    for trace in _mark_traces(marks or {}):
        fig.add_trace(trace)
    fig.update_xaxes(showticklabels=False, zeroline=False, title=None)
    fig.update_yaxes(showticklabels=False, zeroline=False, title=None, scaleanchor="x")
    return _layout(fig, MAP_HEIGHT, f"MDS map of the neuron weights (cosine) — step {step}")


def _mark_traces(marks: dict) -> list[go.Scatter]:
    """Stars ±Σ_A M (different colour and shape) or the data's centres."""
    styles = {"+Σ_A M": (VERMILLION, "star", 22), "−Σ_A M": (ORANGE, "diamond", 17)}
    out = []
    for name, xy in marks.items():
        xy = np.atleast_2d(xy)
        colour, symbol, size = styles.get(name, (GREEN, "x", 12))
        out.append(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name=name,
                              hovertemplate=f"{name}<extra></extra>",
                              marker={"size": size, "color": colour, "symbol": symbol,
                                      "line": {"width": 1.5, "color": "#222222"}}))
    return out


def _marks(fig: go.Figure, step: int, rows: list[int] | None = None) -> None:
    """Dotted lines at steps 1 and 2 and a solid one at the step being shown."""
    for row in rows or [None]:
        kw = {"row": row, "col": 1} if row else {}
        for x in (1, 2):
            fig.add_vline(x=x, line_dash="dot", line_color=GREY, **kw)
        fig.add_vline(x=step, line_width=1, line_color=GREEN, **kw)
    for x in (1, 2):
        fig.add_annotation(x=x, y=1.0, yref="paper", text=f"step {x}", showarrow=False,
                           yanchor="bottom", font={"size": 10, "color": GREY})


def gradient_figure(history: list, shown: int) -> go.Figure:
    """Relevant vs background gradient components per step, and their ratio (log scales)."""
    idx = [i for i in sample_indices(len(history)) if history[i].grad]
    steps = np.array([history[i].step for i in idx])
    rel = np.array([history[i].grad.get("grad_rel", np.nan) for i in idx], dtype=float)
    bg = np.array([history[i].grad.get("grad_bg", np.nan) for i in idx], dtype=float)
    ratio = np.array([history[i].grad.get("grad_ratio", np.nan) for i in idx], dtype=float)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.6, 0.4],
                        vertical_spacing=0.06)
    for y, name, colour, dash in ((rel, "relevant (patterns in A)", BLUE, "solid"),
                                  (bg, "background", ORANGE, "dash")):
        fig.add_trace(go.Scatter(x=steps, y=_positive(y), name=name, mode="lines+markers",
                                 line={"color": colour, "dash": dash}, marker={"size": 4}),
                      row=1, col=1)
    fig.add_trace(go.Scatter(x=steps, y=_positive(ratio), name="ratio relevant / background",
                             mode="lines+markers", line={"color": GREEN}, marker={"size": 4}),
                  row=2, col=1)
    fig.update_yaxes(type="log", title="‖component‖", row=1, col=1)
    fig.update_yaxes(type="log", title="ratio", row=2, col=1)
    fig.update_xaxes(title="step", row=2, col=1)
    _marks(fig, history[shown].step, rows=[1, 2])
    return _layout(fig, CHART_HEIGHT + 60, "Gradient components of ∂L/∂w_i")


def _positive(y: np.ndarray) -> np.ndarray:
    """Values for a log axis: non-positive or non-finite entries become gaps."""
    return np.where(np.isfinite(y) & (y > 0), y, np.nan)


def accuracy_figure(history: list, shown: int) -> go.Figure:
    """Train and test accuracy per step."""
    idx = sample_indices(len(history))
    steps = np.array([history[i].step for i in idx])
    fig = go.Figure()
    for field, name, colour, dash in (("train_acc", "train", BLUE, "solid"),
                                      ("test_acc", "test", VERMILLION, "dash")):
        y = np.array([getattr(history[i], field) for i in idx], dtype=float) * 100
        fig.add_trace(go.Scatter(x=steps, y=y, name=name, mode="lines",
                                 line={"color": colour, "dash": dash}))
    fig.update_yaxes(title="accuracy %", range=[0, 101])
    fig.update_xaxes(title="step")
    _marks(fig, history[shown].step)
    return _layout(fig, CHART_HEIGHT, "Accuracy per step")
