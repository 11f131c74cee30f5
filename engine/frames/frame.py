"""The Frame record: what Explore shows at one step, and its packing for the browser player.

Positions are int16 with one scale per frame, cosines int8 (×127), the sign of a_i int8, all
base64; scalars are plain lists. A 600-step run of 602 map points is ~3 MB in all.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field

import numpy as np

# the browser's per-frame columns besides the map (ui/player/player.js Store.s, and text)
CURVES = ("train", "test", "cosmax", "frac", "share", "zero", "plus", "minus", "cover", "rel",
          "errs", "cf", "cg", "purity", "vsup", "own")
COLUMNS = ("step", "stage", *CURVES[:8], "text", "counts", *CURVES[8:])


@dataclass
class Frame:
    """One step of an Explore run, as the views show it."""

    step: int
    stage: str
    points: np.ndarray  # N×2 map positions of the neurons
    cos: np.ndarray  # N colour cosines in [−1, 1]
    sign: np.ndarray  # N signs of the output weight a_i (int8, +1 where a neuron has none)
    marks: dict[str, np.ndarray]  # star group name → its stars' map positions (rows×2)
    counts: list[int] | None  # neurons on each star group (meta's count rule), None without
    curves: dict = field(default_factory=dict)  # CURVES name → value (None where not measured)
    text: str = ""  # the narration, markdown with **bold**
    row: dict = field(default_factory=dict)  # the step's scalars (CSV / report history row)
    summary: dict = field(default_factory=dict)  # the run's summary after this step (report)


def rounded(value) -> float | None:
    """A chart value for the browser (None where not finite, e.g. no score at this step)."""
    if value is None:
        return None
    return round(float(value), 5) if math.isfinite(float(value)) else None


def narration_html(text: str) -> str:
    """Markdown narration as HTML for the player (**bold** → <b>, everything else escaped)."""
    parts = html.escape(text).split("**")
    return "".join(f"<b>{p}</b>" if k % 2 else p for k, p in enumerate(parts))


def _b64(arr: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")


def map_xy(frame: Frame) -> np.ndarray:
    """The neurons' points followed by every mark's rows (the player's point order)."""
    marks = [np.atleast_2d(v) for v in frame.marks.values()]
    return np.vstack([frame.points, *marks]).astype(np.float64)


def pack(frames: list[Frame]) -> dict:
    """The browser's packed batch of these frames (ui/player/player.js Store.append), plus
    `rows` and `summary` per frame for the downloads (the player ignores them)."""
    cols: dict[str, list] = {k: [] for k in COLUMNS}
    pos, scale, cos, sign = [], [], [], []
    for f in frames:
        xy = map_xy(f)
        s = float(np.abs(xy).max()) or 1.0
        pos.append(np.round(xy / s * 32767).astype("<i2"))
        scale.append(s)
        cos.append(np.round(np.clip(f.cos, -1, 1) * 127).astype(np.int8))
        sign.append(np.asarray(f.sign, dtype=np.int8))
        cols["step"].append(f.step)
        cols["stage"].append(f.stage)
        cols["text"].append(narration_html(f.text))
        cols["counts"].append(f.counts)
        for key in CURVES:
            cols[key].append(f.curves.get(key))
    return {**cols, "pos": _b64(np.concatenate(pos)) if pos else "", "scale": scale,
            "cos": _b64(np.concatenate(cos)) if cos else "",
            "sign": _b64(np.concatenate(sign)) if sign else "",
            "rows": [f.row for f in frames], "summary": [f.summary for f in frames]}
