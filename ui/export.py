"""Standalone exports of a run for slides: one offline HTML player, and an animated GIF map."""

from __future__ import annotations

import html
import io
import json

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.evaluate import star_counts
from ui import playback
from ui.state import AppState

GIF_SIZE = 480
GIF_MS, GIF_SLOW_MS = 60, 900  # per frame; steps 0, 1 and 2 stay longer on screen

BOOT_JS = """
const data = JSON.parse(document.getElementById("fe-data").textContent);
const store = new FE.Store(data.meta);
store.append(data.frames, 0);
store.done = true;
const player = new FEPlayer(document.getElementById("fe-root"), {});
player.setStore(store, 0);
player.setOptions({theme: document.body.dataset.theme});
"""


def export_html(state: AppState, title: str) -> str:
    """One self-contained file: every frame of the run, the player's code and style inline."""
    n = len(state.explore.run.history)
    data = {"meta": playback.meta(state, "export"), "frames": playback.pack(state, 0, n)}
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>body{{margin:16px;font-family:sans-serif}}"
        f"{playback.player_css()}</style></head><body data-theme='light'>"
        f"<h2 style='margin:0 0 4px'>{html.escape(title)}</h2>"
        "<p style='margin:0 0 8px;color:#666'>Offline copy of a run of the feature-emergence "
        "explorer (Shi, Wei &amp; Liang, ICLR 2022). Keys: space = play/pause, → = step, "
        "← = back, R = reset.</p><div id='fe-root'></div>"
        f"<script type='application/json' id='fe-data'>{payload}</script>"
        f"<script>{playback.player_js()}\n{BOOT_JS}</script></body></html>")


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def _frame(points: np.ndarray, cos: np.ndarray, marks: dict, step: int, T: int,
           extent: float) -> Image.Image:
    """The map at one step: neurons coloured by |cos|, the stars, counts and the step number."""
    img = Image.new("RGB", (GIF_SIZE, GIF_SIZE), "white")
    d = ImageDraw.Draw(img)
    top, pad = 44, 14
    k = (GIF_SIZE - top - 2 * pad) / (2 * extent)
    cx, cy = GIF_SIZE / 2, top + (GIF_SIZE - top) / 2

    def xy(p):
        return cx + p[0] * k, cy - p[1] * k

    grey, blue = np.array([187, 187, 187]), np.array([0, 114, 178])
    for p, c in zip(points, np.abs(cos), strict=True):
        col = tuple(int(v) for v in grey + (blue - grey) * min(1.0, float(c)))
        x, y = xy(p)
        d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=col)
    font, small = _font(22), _font(14)
    for name, pos in marks.items():
        x, y = (float(v) for v in xy(np.atleast_2d(pos)[0]))
        colour = "#D55E00" if name.startswith("+") else "#E69F00" if name.startswith("−") else \
            "#009E73"
        d.regular_polygon((x, y, 10), 5 if name.startswith("+") else 4, fill=colour,
                          outline="#222222")
        if name in ("+Σ_A M", "−Σ_A M"):
            on = star_counts(cos)[0 if name.startswith("+") else 1]
            d.text((x, y - 16), f"{on} on {name}", fill="#262730", font=small, anchor="ms")
    d.text((pad, 10), f"step {step} / {T}", fill="#262730", font=font)
    d.text((GIF_SIZE - pad, 16), "neuron weights, MDS map", fill="#6b6f7b", font=small,
           anchor="ra")
    return img


def export_gif(state: AppState) -> bytes:
    """An animated GIF of the map, one frame per recorded step, the step number burnt in."""
    from ui import live

    hist = state.explore.run.history
    maps = [live.map_data(state, i) for i in range(len(hist))]
    extent = 1.08 * max(float(np.abs(np.vstack([p, *[np.atleast_2d(v) for v in m.values()]]))
                              .max()) for p, _, m in maps) or 1.0
    frames = [_frame(p, c, m, hist[i].step, state.explore.run.T, extent)
              for i, (p, c, m) in enumerate(maps)]
    durations = [GIF_SLOW_MS if s.step <= 2 else GIF_MS for s in hist]
    durations[-1] = 2000
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:],
                   duration=durations, loop=0, optimize=False, disposal=1)
    return out.getvalue()
