"""Every Plotly figure of the pages, in one style (Explore's own charts are drawn by the browser
player, ui/player/, with the same colours): Compare's accuracy curves and the Sweep page's
heat map and lines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.methods import BY_NAME, LABELS
from engine.procedures import RECORDS
from engine.procedures.told import shown_groups
from engine.procedures.words import MSE_KEY

MAX_POINTS = 2000  # per curve, so a redraw stays light in the browser
# Okabe–Ito colours (readable with colour-vision deficiencies), as in ui/player/player.js; a
# method and its "w/o structure" twin share the colour and differ in dash and marker.
# every procedure's methods (engine/procedures); a name two procedures share has one colour
_ALL = [m for r in RECORDS.values() for m in r.methods if m.structure]
COLORS = {m.name: m.color for m in reversed(_ALL)}  # one per base method, the first's wins
MARKERS = {m.name: m.marker for m in reversed(_ALL)}
MARGIN = {"l": 60, "r": 20, "t": 50, "b": 50}


def method_style(method: str) -> tuple[dict, str, bool]:
    """(line style, marker symbol, without structure) of a method."""
    info = BY_NAME.get(method)
    base, without = (info.base, not info.structure) if info else (method, False)
    line = {"color": COLORS.get(base, "#555555"), "dash": "dot" if without else "solid"}
    return line, MARKERS.get(base, "circle"), without


def smooth(y: np.ndarray, weight: float) -> np.ndarray:
    """Debiased exponential moving average (TensorBoard's smoothing); weight 0 returns y.

    Classifier-stage SGD with a constant step makes single-step dips in accuracy; the smoothed
    line shows the trend while the raw curve stays drawn faintly beside it. player.js's
    smooth() is the same formula for Explore's accuracy chart.
    """
    y = np.asarray(y, dtype=float)
    if weight <= 0 or len(y) == 0:
        return y
    out, last, norm = np.empty_like(y), 0.0, 0.0
    for i, v in enumerate(y):
        last, norm = weight * last + (1 - weight) * v, weight * norm + (1 - weight)
        out[i] = last / norm
    return out


def is_regression(rows: dict) -> bool:
    """Whether the rows (method → per-step rows, CompareStream.rows) report test MSE / Var(y)
    instead of an accuracy."""
    first = next(iter(rows.values()), None)
    return bool(first) and MSE_KEY in first[0]


def _value(row: dict, regression: bool) -> float:
    """A row's test number: MSE / Var(y) (regression) or accuracy (None: not a number)."""
    value = row.get(MSE_KEY) if regression else row.get("test_acc")
    return math.nan if value is None else float(value)


def curve(rows: list[dict], regression: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(steps, test accuracy or MSE / Var(y)) of a method's rows, thinned to MAX_POINTS."""
    steps = np.fromiter((r["step"] for r in rows), float, len(rows))
    acc = np.fromiter((_value(r, regression) for r in rows), float, len(rows))
    if len(steps) > MAX_POINTS:
        idx = np.unique(np.linspace(0, len(steps) - 1, MAX_POINTS).round().astype(int))
        steps, acc = steps[idx], acc[idx]
    return steps, acc


def _group_of(method: str, proc, methods=()) -> str | None:
    """The legend group title the procedure's table gives the method (None: no groups, or
    fewer than two groups among the methods drawn)."""
    groups = shown_groups(proc.table.groups, [proc.aliases.get(m, m) for m in methods]) \
        if proc is not None else ()
    name = proc.aliases.get(method, method) if proc is not None else method
    return next((title for title, names in groups if name in names), None)


def _traces(method: str, rows: list[dict], smoothing: float,
            regression: bool = False, proc=None, methods=()) -> list[go.Scatter]:
    """The method's curve (smoothed if asked) over its raw curve, drawn faintly beneath; named
    and grouped as its procedure's record says."""
    style, symbol, _ = method_style(method)
    x, raw = curve(rows, regression)
    hover = "test MSE/Var %{y:.3f}" if regression else "test %{y:.1%}"
    title = _group_of(method, proc, methods or (method,))
    group = title or "methods"
    label = (proc.labels() if proc is not None else LABELS).get(method, method)
    faint = [go.Scatter(x=x, y=raw, mode="lines", line={**style, "width": 1}, opacity=0.3,
                        showlegend=False, hoverinfo="skip", legendgroup=group)
             ] if smoothing > 0 else []
    return faint + [go.Scatter(
        x=x, y=smooth(raw, smoothing), mode="lines+markers", name=label,
        line={**style, "width": 2}, marker={"symbol": symbol, "size": 5, "maxdisplayed": 12},
        legendgroup=group, legendgrouptitle_text=title,
        hovertemplate="%{fullData.name}<br>step %{x:.0f}<br>" + hover
                      + (" (smoothed)" if smoothing > 0 else "") + "<extra></extra>")]


def _floor(rows: dict, usual: float) -> float:
    """The accuracy axis's lower end: `usual`, or lower (in steps of 0.1) so that no step of any
    method falls below it (unbalanced classes without weights test at 20 %)."""
    values = [_value(r, False) for part in rows.values() for r in part]
    lowest = min((v for v in values if math.isfinite(v)), default=usual)
    return min(usual, math.floor((lowest - 0.02) * 10) / 10)


def accuracy_figure(rows: dict, T: int, height: int = 440, smoothing: float = 0.0,
                    proc=None) -> go.Figure:
    """Test accuracy per step for each method, or test MSE / Var(y) for a regression world,
    from method → per-step rows (CompareStream.rows); labels, legend groups and shaded bands
    are those the procedure's record declares (none without a record)."""
    regression = is_regression(rows)
    fig = go.Figure([t for m, part in rows.items()
                     for t in _traces(m, part, smoothing, regression, proc, tuple(rows))])
    for x0, x1, words in (proc.table.bands if proc is not None else ()):
        fig.add_vrect(x0=x0, x1=x1, fillcolor="#888888", opacity=0.15, line_width=0,
                      annotation_text=words, annotation_position="top left")
    fig.update_layout(
        height=height, margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": "step", "range": [0, max(T, 2)]},
        yaxis=({"title": "test MSE / Var(y) (lower is better)", "rangemode": "tozero"}
               if regression else
               {"title": "test accuracy", "tickformat": ".0%",
                "range": [_floor(rows, 0.3), 1.02]}),
        legend={"groupclick": "toggleitem"}, uirevision="compare")
    return fig


def _labels(values) -> list[str]:
    return [f"{v:g}" if isinstance(v, float) else str(v) for v in values]


def heatmap(agg: pd.DataFrame, x: str, y: str, title: str, diverging: bool = False) -> go.Figure:
    """Mean over seeds per (x, y) as square markers (clickable), spread and count on hover."""
    xs, ys = sorted(agg[x].unique()), sorted(agg[y].unique())
    xl, yl = dict(zip(xs, _labels(xs), strict=True)), dict(zip(ys, _labels(ys), strict=True))
    size = max(18, min(90, int(560 / max(len(xs), len(ys), 1))))
    fig = go.Figure(go.Scatter(
        x=[xl[v] for v in agg[x]], y=[yl[v] for v in agg[y]], mode="markers+text",
        marker={"symbol": "square", "size": size, "color": agg["mean"],
                "colorscale": "RdBu" if diverging else "Viridis",
                "cmid": 0.0 if diverging else None, "showscale": True,
                "colorbar": {"title": "mean"}},
        text=[f"{m:.2f}" for m in agg["mean"]],
        textfont={"color": "#111" if diverging else "white", "size": 11},
        customdata=agg[["std", "count"]].to_numpy(),
        hovertemplate=(f"{x}=%{{x}}<br>{y}=%{{y}}<br>mean %{{marker.color:.4f}}"
                       "<br>± %{customdata[0]:.4f} (std over %{customdata[1]} seeds)"
                       "<extra>click: open this setting</extra>")))
    fig.update_layout(title=title, height=520, margin=MARGIN,
                      xaxis={"title": x, "type": "category", "categoryarray": _labels(xs)},
                      yaxis={"title": y, "type": "category", "categoryarray": _labels(ys)},
                      clickmode="event+select", dragmode=False)
    return fig


def lines(agg: pd.DataFrame, x: str, title: str, ytitle: str,
          labels: dict[str, str] | None = None) -> go.Figure:
    """One line per method over setting x: mean over seeds with ± std bars (Compare's colours);
    each named by `labels` (its world's label) or the engine's label; points are clickable."""
    fig = go.Figure()
    for method, part in agg.groupby("method", sort=False):
        part = part.sort_values(x)
        style, symbol, _ = method_style(method)
        name = (labels or {}).get(method) or LABELS.get(method, method)
        fig.add_trace(go.Scatter(x=part[x], y=part["mean"], mode="lines+markers",
                                 name=name, line=style, marker={"symbol": symbol},
                                 error_y={"type": "data", "array": part["std"]}))
    fig.update_layout(title=title, height=420, xaxis_title=x, yaxis_title=ytitle, margin=MARGIN,
                      clickmode="event+select")
    values = sorted(agg[x].unique().tolist())
    if 1 < len(values) <= 12 and pd.api.types.is_numeric_dtype(agg[x]):
        # ticks at the swept values only (k = 1, 3, 5, … not 2, 4, …)
        fig.update_xaxes(tickvals=values, ticktext=_labels(values))
    return fig


def level_line(fig: go.Figure, level: float, words: str) -> go.Figure:
    """A dashed reference level across the plot with its words just under it at the right (on
    a linear or a log y axis: Plotly reads an annotation's y in log10 units on a log axis)."""
    log = fig.layout.yaxis.type == "log"
    fig.add_hline(y=level, line={"dash": "dash", "color": "#444444"})
    fig.add_annotation(x=1.0, xref="paper", y=math.log10(level) if log else level, yref="y",
                       xanchor="right", yanchor="top", showarrow=False, text=words)
    return fig
