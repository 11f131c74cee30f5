"""Display-only fan-out of neurons that share a point on the map (the GIF's twin of fanOut in
ui/player/map.js): at step 2 every neuron sits on a star and would hide under its marker."""

from __future__ import annotations

import numpy as np

GAP = 5.6  # px between fanned-out neurons (map.js FAN_GAP)
GOLDEN = 2.39996323  # the golden angle: a sunflower spiral fills a disc evenly
CELL, CROWD = 2, 4  # CROWD or more neurons on one CELL px spot coincide on screen
NOTE = "neurons on one point are fanned out around it (display only)"


def fan_out(xy: np.ndarray, spots: list[tuple[float, float, float]],
            max_r: float) -> tuple[np.ndarray, list[float], int]:
    """(display positions, each spot's count label height, neurons moved) for pixels xy.

    Neurons under a spot's marker (x, y, radius), or CROWD or more on one CELL px spot, are laid
    out on a spiral around that point, the marker kept free; a large group packs closer so as
    to stay within max_r."""
    out = np.array(xy, dtype=np.float64)
    free = np.ones(len(out), bool)
    groups = []
    for sx, sy, r in spots:  # the first marker a neuron hides under takes it
        under = free & (np.hypot(out[:, 0] - sx, out[:, 1] - sy) <= r + 1)
        free &= ~under
        groups.append((sx, sy, r + 3, np.flatnonzero(under)))
    cells: dict[tuple[int, int], list[int]] = {}
    for j in np.flatnonzero(free):
        cell = (int(np.floor(out[j, 0] / CELL + 0.5)), int(np.floor(out[j, 1] / CELL + 0.5)))
        cells.setdefault(cell, []).append(int(j))
    for members in cells.values():
        if len(members) >= CROWD:
            cx, cy = out[members].mean(axis=0)
            groups.append((cx, cy, 0.0, np.array(members)))
    moved = 0
    for gx, gy, r0, members in groups:
        if not len(members):
            continue
        room = np.pi * (max_r ** 2 - r0 ** 2) / len(members)
        area = min(GAP ** 2, max(4.0, room))
        q = np.arange(len(members))
        radius, angle = np.sqrt(r0 ** 2 + (q + 0.5) * area / np.pi), q * GOLDEN
        out[members, 0], out[members, 1] = gx + radius * np.cos(angle), gy + radius * np.sin(angle)
        moved += len(members)
    return out, [_label_y(out, sx, sy, r, max_r) for sx, sy, r in spots], moved


def _label_y(xy: np.ndarray, x: float, y: float, r: float, max_r: float) -> float:
    """Where a marker's count label goes: above or below it, on the side with fewer neurons
    in the label's column, past the last neuron drawn there (map.js labelSide)."""
    dy = xy[:, 1] - y
    near = (np.abs(xy[:, 0] - x) <= 40) & (np.abs(dy) <= 1.5 * max_r)
    below, above = near & (dy >= 0), near & (dy < 0)
    side = 1 if below.sum() < above.sum() else -1
    rows = below if side == 1 else above
    reach = max(r, float(np.abs(dy[rows]).max()) + 3.5 if rows.any() else r)
    return y + side * (reach + 12)
