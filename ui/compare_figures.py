"""Plotly figure of the Compare page: per-step test accuracy of every method (Figs. 1/5/7)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.baselines import LABELS
from ui.figures import smooth

MAX_POINTS = 2000  # per curve, so a redraw stays light in the browser
# Okabe–Ito colours (readable with colour-vision deficiencies); a method and its
# "w/o structure" twin share the colour and differ in dash and marker.
COLORS = {"network": "#0072B2", "ntk": "#E69F00", "rf": "#009E73", "one_step": "#CC79A7",
          "two_step": "#D55E00"}
MARKERS = {"network": "circle", "ntk": "square", "rf": "diamond", "one_step": "triangle-up",
           "two_step": "x"}


def curve(history) -> tuple[np.ndarray, np.ndarray]:
    """(steps, test accuracy) of a run's history, thinned to at most MAX_POINTS."""
    steps = np.fromiter((s.step for s in history), float, len(history))
    acc = np.fromiter((s.test_acc for s in history), float, len(history))
    if len(steps) > MAX_POINTS:
        idx = np.unique(np.linspace(0, len(steps) - 1, MAX_POINTS).round().astype(int))
        steps, acc = steps[idx], acc[idx]
    return steps, acc


def _traces(method: str, history, smoothing: float) -> list[go.Scatter]:
    """The method's curve (smoothed if asked) over its raw curve, drawn faintly beneath."""
    base = method.removesuffix("_no_structure")
    without = base != method
    x, raw = curve(history)
    style = {"color": COLORS.get(base, "#555555"), "dash": "dot" if without else "solid"}
    faint = [go.Scatter(x=x, y=raw, mode="lines", line={**style, "width": 1}, opacity=0.3,
                        showlegend=False, hoverinfo="skip",
                        legendgroup="without" if without else "with")] if smoothing > 0 else []
    y = smooth(raw, smoothing)
    return faint + [go.Scatter(
        x=x, y=y, mode="lines+markers", name=LABELS.get(method, method),
        line={**style, "width": 2},
        marker={"symbol": MARKERS.get(base, "circle"), "size": 5,
                "maxdisplayed": 12},
        legendgroup="without" if without else "with",
        legendgrouptitle_text="without structure" if without else "with structure",
        hovertemplate="%{fullData.name}<br>step %{x:.0f}<br>test %{y:.1%}"
                      + (" (smoothed)" if smoothing > 0 else "") + "<extra></extra>")]


def accuracy_figure(runs: dict, T: int, height: int = 440, smoothing: float = 0.0) -> go.Figure:
    """Test accuracy per step for each method; steps 1–2 are shaded."""
    fig = go.Figure([t for m, r in runs.items() for t in _traces(m, r.history, smoothing)])
    # steps 1 and 2 are where the features emerge; shade them so they are visible at any T
    fig.add_vrect(x0=0, x1=2, fillcolor="#888888", opacity=0.15, line_width=0,
                  annotation_text="steps 1–2", annotation_position="top left")
    fig.update_layout(
        height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": "step", "range": [0, max(T, 2)]},
        yaxis={"title": "test accuracy", "tickformat": ".0%", "range": [0.3, 1.02]},
        legend={"groupclick": "toggleitem"}, uirevision="compare")
    return fig
