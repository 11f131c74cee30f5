"""Curve helpers shared by the pages' charts.

The Explore page's own charts (map, accuracy, alignment, gradient share) are drawn by the
browser player (ui/player/); Compare's Plotly figures are in ui/compare_figures.py.
"""

from __future__ import annotations

import numpy as np


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
