"""Frames of a run packed for the browser player (ui/player/): only new frames, compactly.

Positions are int16 with one scale per frame, cosines int8 (×127), the sign of a_i int8, all
base64; scalars are plain lists. A 600-step run of 602 map points is ~3 MB in all.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path

import numpy as np

from engine.azl.explore import ExploreRun
from engine.evaluate import star_counts
from ui import explore_text, live
from ui.azl_figures import COLORS as AZL_COLORS
from ui.azl_figures import THRESHOLD_TEXT
from ui.state import AppState

HERE = Path(__file__).resolve().parent / "player"
MARK_STYLES = {"+Σ_A M": ("star", 1), "−Σ_A M": ("diamond", -1)}
# Okabe–Ito, one per direction group (the neurons' own cosine scale stays blue-to-grey)
DIRECTION_COLOURS = ("#D55E00", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442",
                     "#0072B2", "#000000")


def player_js() -> str:
    """The drawing and playback code shared by the component and the export."""
    names = ("player.js", "charts.js", "playback.js")
    return "\n".join((HERE / name).read_text() for name in names)


def player_css() -> str:
    return (HERE / "player.css").read_text()


def _b64(arr: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")


def grad_share(grad: dict) -> float | None:
    """‖relevant‖ / (‖relevant‖ + ‖background‖) of the step's gradient, or None without one."""
    rel, bg = grad.get("grad_rel"), grad.get("grad_bg")
    if rel is None or bg is None or not math.isfinite(rel + bg) or rel + bg <= 0:
        return None
    return float(rel / (rel + bg))


def meta(state: AppState, run_id: str) -> dict:
    """What stays fixed over a run: sizes, the marks drawn after the neurons, T."""
    _, cos, marks = live.map_data(state, 0)
    rows = [{"name": name, "rows": len(np.atleast_2d(xy)),
             "style": MARK_STYLES.get(name, ("dot", 0))[0],
             "count": MARK_STYLES.get(name, ("dot", 0))[1]} for name, xy in marks.items()]
    groups = live.star_groups(state)
    if groups is not None:  # a star per direction or pair, in its group's colour, with its count
        rows = [{**r, "style": "star", "slot": j, "colour": DIRECTION_COLOURS[g % 8]}
                for j, (r, (_, _, g)) in enumerate(zip(rows, groups, strict=True))]
    azl = azl_meta(state.explore.run)
    score = "azl" if azl else "mse" if explore_text.regression(state.explore.run.history[0]) \
        else "acc"
    return {"run": run_id, "T": state.explore.run.T, "neurons": len(cos),
            "points": len(cos) + sum(r["rows"] for r in rows), "marks": rows,
            "truth": live.has_truth(state), "gfl": live.directions(state) is not None,
            "plane": live.plane_axes(state), "score": score, "azl": azl}


def azl_meta(run) -> dict | None:
    """The AZL world's chart settings: kα² and its words, each method's name and colour (the
    order of the frames' `errs`), the map's count note; None for another run."""
    if not isinstance(run, ExploreRun):
        return None
    return {"threshold": run.world.cfg.threshold, "threshold_text": THRESHOLD_TEXT,
            "methods": [{"name": name, "colour": AZL_COLORS[m]}
                        for m, name in run.labels.items()],
            "count_note": "counts: neurons with cos(w_i, a star of the pair) > 0.9"}


def pack(state: AppState, start: int, stop: int) -> dict:
    """Frames start..stop-1 of the run's history (map, colours, scalars, narration)."""
    hist = state.explore.run.history
    pos, scale, cos, sign = [], [], [], []
    cols: dict[str, list] = {k: [] for k in ("step", "stage", "train", "test", "cosmax", "frac",
                                             "share", "zero", "plus", "minus", "text", "counts",
                                             "cover", "rel", "errs", "cf", "cg", "purity",
                                             "vsup")}
    truth = live.has_truth(state)
    for i in range(start, stop):
        snap = hist[i]
        points, c, marks = live.map_data(state, i)
        xy = np.vstack([points, *[np.atleast_2d(v) for v in marks.values()]]).astype(np.float64)
        s = float(np.abs(xy).max()) or 1.0
        pos.append(np.round(xy / s * 32767).astype("<i2"))
        scale.append(s)
        cos.append(np.round(np.clip(c, -1, 1) * 127).astype(np.int8))
        sign.append(_signs(snap, len(c)))
        cols["step"].append(snap.step)
        cols["stage"].append(snap.stage)
        train, test = explore_text.scores(snap)
        cols["train"].append(_rounded(train))
        cols["test"].append(_rounded(test))
        cols["cosmax"].append(round(float(snap.cos_max), 5))
        frac = float(snap.frac_aligned)
        cols["frac"].append(round(frac, 5) if math.isfinite(frac) else None)
        cols["share"].append(grad_share(snap.grad) if truth else None)
        # the map's "N on ±Σ_A M" labels: counted here from exact cosines, since the int8
        # colours round e.g. -0.901 to -114/127 > -0.9 and would disagree with the narration
        plus, minus = star_counts(snap.cos) if truth else (0, 0)
        cols["plus"].append(plus)
        cols["minus"].append(minus)
        cols["zero"].append(explore_text.zero_gradient(snap))
        _gfl_columns(cols, state, i)
        _azl_columns(cols, state.explore.run, snap)
        cols["text"].append(explore_text.narrate_html(hist, i, truth, state.explore.run))
    return {**cols, "pos": _b64(np.concatenate(pos)) if pos else "", "scale": scale,
            "cos": _b64(np.concatenate(cos)) if cos else "",
            "sign": _b64(np.concatenate(sign)) if sign else ""}


def _signs(snap, n: int) -> np.ndarray:
    """The sign of each neuron's output weight a_i as int8; all + in the AZL world, whose
    neurons have no single output weight (A is k×m)."""
    a = np.ones(n) if snap.a is None else np.asarray(snap.a)
    return np.where(a >= 0, 1, -1).astype(np.int8)


def _gfl_columns(cols: dict, state: AppState, i: int) -> None:
    """Algorithm 1's probes of frame i: per-direction counts, coverage, relevant share (None
    for the engine's own run)."""
    extra = getattr(state.explore.run.history[i], "extra", None) or {}
    cols["counts"].append(live.direction_counts(state, i))
    cols["cover"].append(extra.get("coverage"))
    cols["rel"].append(extra.get("relevant_share"))


def _azl_columns(cols: dict, run, snap) -> None:
    """The AZL world's numbers of one frame: every method's test error (the ResNet first), the
    ResNet's c_F, c_G, pair purity and V's share on out₁…out₄ (None for another run)."""
    extra = getattr(snap, "extra", None) or {}
    azl = isinstance(run, ExploreRun)
    cols["errs"].append([_rounded(e) for e in run.test_errors(snap)] if azl else None)
    for col, key in (("cf", "c_F"), ("cg", "c_G"), ("purity", "pair_purity"),
                     ("vsup", "v_support")):
        cols[col].append(_rounded(extra[key]) if azl else None)


def _rounded(value: float) -> float | None:
    """A chart value for the browser (None where not finite, e.g. no score at this step)."""
    return round(float(value), 5) if math.isfinite(value) else None


def batch(state: AppState, run_meta: dict, start: int, limit: int = 200) -> dict:
    """The component's data: the run's meta and the frames from `start` (at most `limit`)."""
    n = len(state.explore.run.history)
    start = min(start, n)
    stop = min(n, start + limit)
    return {"meta": run_meta, "start": start, "frames": pack(state, start, stop),
            "done": state.explore.run.done and stop == n, "error": state.explore.error or ""}
