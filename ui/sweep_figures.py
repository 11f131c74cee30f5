"""Plotly figures of a sweep: heat map over two settings, lines over one."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from engine.baselines import LABELS


def _labels(values) -> list[str]:
    return [f"{v:g}" if isinstance(v, float) else str(v) for v in values]


def heatmap(agg: pd.DataFrame, x: str, y: str, title: str, diverging: bool = False) -> go.Figure:
    """Mean over seeds per (x, y) as square markers (clickable), spread and count on hover."""
    xs, ys = sorted(agg[x].unique()), sorted(agg[y].unique())
    xl, yl = dict(zip(xs, _labels(xs), strict=True)), dict(zip(ys, _labels(ys), strict=True))
    size = max(18, min(90, int(560 / max(len(xs), len(ys), 1))))
    scale = "RdBu" if diverging else "Viridis"
    mid = 0.0 if diverging else None
    fig = go.Figure(go.Scatter(
        x=[xl[v] for v in agg[x]], y=[yl[v] for v in agg[y]], mode="markers+text",
        marker={"symbol": "square", "size": size, "color": agg["mean"], "colorscale": scale,
                "cmid": mid, "showscale": True, "colorbar": {"title": "mean"}},
        text=[f"{m:.2f}" for m in agg["mean"]],
        textfont={"color": "#111" if diverging else "white", "size": 11},
        customdata=agg[["std", "count"]].to_numpy(),
        hovertemplate=(f"{x}=%{{x}}<br>{y}=%{{y}}<br>mean %{{marker.color:.4f}}"
                       "<br>± %{customdata[0]:.4f} (std over %{customdata[1]} seeds)"
                       "<extra>click: open this setting</extra>")))
    fig.update_layout(title=title, height=520, margin={"l": 60, "r": 20, "t": 50, "b": 50},
                      xaxis={"title": x, "type": "category", "categoryarray": _labels(xs)},
                      yaxis={"title": y, "type": "category", "categoryarray": _labels(ys)},
                      clickmode="event+select", dragmode=False)
    return fig


def lines(agg: pd.DataFrame, x: str, title: str, ytitle: str) -> go.Figure:
    """One line per method over setting x: mean over seeds with ± std bars."""
    fig = go.Figure()
    for method, part in agg.groupby("method", sort=False):
        part = part.sort_values(x)
        fig.add_trace(go.Scatter(x=part[x], y=part["mean"], mode="lines+markers",
                                 name=LABELS.get(method, method),
                                 error_y={"type": "data", "array": part["std"]}))
    fig.update_layout(title=title, height=420, xaxis_title=x, yaxis_title=ytitle,
                      margin={"l": 60, "r": 20, "t": 50, "b": 50})
    return fig
