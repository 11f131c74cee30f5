"""Plotly figures of the Explore page: the MDS map, gradient components and accuracy.

Figures are plain dicts: building graph objects trace by trace (make_subplots, add_vline)
cost ~0.5 s per redraw on a busy 2-core server; Streamlit validates the dict once.
"""

from __future__ import annotations

import numpy as np

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


def smooth(y: np.ndarray, weight: float) -> np.ndarray:
    """Debiased exponential moving average (TensorBoard's smoothing); weight 0 returns y.

    Classifier-stage SGD with a constant step makes single-step dips in accuracy; the smoothed
    line shows the trend while the raw curve stays drawn faintly beside it.
    """
    y = np.asarray(y, dtype=float)
    if weight <= 0 or len(y) == 0:
        return y
    out, last, norm = np.empty_like(y), 0.0, 0.0
    for i, v in enumerate(y):
        last, norm = weight * last + (1 - weight) * v, weight * norm + (1 - weight)
        out[i] = last / norm
    return out


def _layout(height: int, title: str, **extra) -> dict:
    return {"height": height, "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "title": {"text": title, "x": 0.0, "font": {"size": 15}},
            "legend": {"orientation": "h", "y": -0.15, "x": 0.0}, **extra}


def map_figure(points: np.ndarray, cos: np.ndarray, a: np.ndarray, b: np.ndarray,
               colour_by: str, marks: dict | None, step: int) -> dict:
    """Neurons (2-D MDS of directions) with marks: {'+Σ_A M': xy, '−Σ_A M': xy} or centres."""
    custom = np.column_stack([np.arange(len(cos)), cos, a, b])
    hover = ("neuron %{customdata[0]:.0f}<br>cos %{customdata[1]:+.3f}"
             "<br>a_i %{customdata[2]:+.4f}<br>b_i %{customdata[3]:+.4f}<extra></extra>")
    if colour_by == "cosine":
        groups = [(np.ones(len(cos), bool), "neurons",
                   {"color": np.abs(cos), "cmin": 0, "cmax": 1, "colorscale": COS_SCALE,
                    "colorbar": {"title": {"text": "|cos|"}, "thickness": 12}})]
    else:
        groups = [(a >= 0, "a_i > 0", {"color": BLUE, "symbol": "circle"}),
                  (a < 0, "a_i < 0", {"color": PURPLE, "symbol": "triangle-up"})]
    data = _mark_traces(marks or {})  # drawn first, so neurons sitting on a star stay visible
    data += [{"type": "scatter", "x": points[sel, 0], "y": points[sel, 1], "mode": "markers",
             "name": name, "customdata": custom[sel], "hovertemplate": hover,
             "marker": {"size": 7, "opacity": 0.85, **marker}} for sel, name, marker in groups]
    axis = {"showticklabels": False, "zeroline": False}
    return {"data": data, "layout": _layout(
        MAP_HEIGHT, f"MDS map of the neuron weights (cosine) — step {step}",
        xaxis=axis, yaxis={**axis, "scaleanchor": "x"})}


def _mark_traces(marks: dict) -> list[dict]:
    """Stars ±Σ_A M (different colour and shape) or the data's centres."""
    styles = {"+Σ_A M": (VERMILLION, "star", 22), "−Σ_A M": (ORANGE, "diamond", 17)}
    out = []
    for name, xy in marks.items():
        xy = np.atleast_2d(xy)
        colour, symbol, size = styles.get(name, (GREEN, "x", 12))
        out.append({"type": "scatter", "x": xy[:, 0], "y": xy[:, 1], "mode": "markers",
                    "name": name, "hovertemplate": f"{name}<extra></extra>",
                    "marker": {"size": size, "color": colour, "symbol": symbol,
                               "line": {"width": 1.5, "color": "#222222"}}})
    return out


def _marks(step: int) -> dict:
    """Dotted lines at steps 1 and 2 (labelled) and a solid one at the step being shown."""
    line = {"type": "line", "yref": "paper", "y0": 0, "y1": 1}
    shapes = [{**line, "x0": x, "x1": x, "line": {"dash": "dot", "color": GREY, "width": 1}}
              for x in (1, 2)]
    shapes.append({**line, "x0": step, "x1": step, "line": {"color": GREEN, "width": 1}})
    notes = [{"x": 1.5, "y": 1.0, "yref": "paper", "text": "steps 1, 2", "showarrow": False,
              "yanchor": "bottom", "font": {"size": 10, "color": GREY}}]
    return {"shapes": shapes, "annotations": notes}


def _line(x, y, name: str, colour: str, dash: str = "solid", axis: str = "y",
          markers: bool = True) -> dict:
    markers = markers and len(x) <= 60  # each marker is an SVG node the browser redraws
    return {"type": "scatter", "x": x, "y": y, "name": name, "yaxis": axis,
            "mode": "lines+markers" if markers else "lines",
            "line": {"color": colour, "dash": dash}, "marker": {"size": 4}}


def gradient_figure(history: list, shown: int) -> dict:
    """Relevant vs background gradient components per step, and their ratio (log scales)."""
    idx = [i for i in sample_indices(len(history)) if history[i].grad]
    steps = np.array([history[i].step for i in idx])

    def col(key: str) -> np.ndarray:
        return _positive(np.array([history[i].grad.get(key, np.nan) for i in idx], dtype=float))

    data = [_line(steps, col("grad_rel"), "relevant (patterns in A)", BLUE),
            _line(steps, col("grad_bg"), "background", ORANGE, "dash"),
            _line(steps, col("grad_ratio"), "ratio relevant / background", GREEN, axis="y2")]
    layout = _layout(CHART_HEIGHT + 60, "Gradient components of ∂L/∂w_i", **_marks(
        history[shown].step))
    layout.update(xaxis={"title": {"text": "step"}, "anchor": "y2"},
                  yaxis={"type": "log", "title": {"text": "‖component‖"}, "domain": [0.42, 1]},
                  yaxis2={"type": "log", "title": {"text": "ratio"}, "domain": [0, 0.36],
                          "anchor": "x"})
    return {"data": data, "layout": layout}


def _positive(y: np.ndarray) -> np.ndarray:
    """Values for a log axis: non-positive or non-finite entries become gaps."""
    return np.where(np.isfinite(y) & (y > 0), y, np.nan)


def accuracy_figure(history: list, shown: int, smoothing: float = 0.0) -> dict:
    """Train and test accuracy per step (smoothed, with the raw curves faint, if asked)."""
    idx = sample_indices(len(history))
    steps = np.array([history[i].step for i in idx])

    def col(key: str) -> np.ndarray:
        return np.array([getattr(history[i], key) for i in idx], dtype=float) * 100

    data = []
    for key, name, colour, dash in (("train_acc", "train", BLUE, "solid"),
                                    ("test_acc", "test", VERMILLION, "dash")):
        raw = col(key)
        if smoothing > 0:
            data.append({**_line(steps, raw, f"{name} (raw)", colour, dash, markers=False),
                         "opacity": 0.25, "showlegend": False, "hoverinfo": "skip"})
        data.append(_line(steps, smooth(raw, smoothing), name, colour, dash, markers=False))
    layout = _layout(CHART_HEIGHT, "Accuracy per step", **_marks(history[shown].step))
    layout.update(xaxis={"title": {"text": "step"}},
                  yaxis={"title": {"text": "accuracy %"}, "range": [0, 101]})
    return {"data": data, "layout": layout}
