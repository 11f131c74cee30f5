"""Standalone exports of a run for slides: one offline HTML player, and an animated GIF map."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.evaluate import star_counts
from ui import fan, playback
from ui.state import AppState

GIF_SIZE = 480
FONT = Path(__file__).resolve().parents[1] / "assets" / "DejaVuSans.ttf"
MARK_R, FAN_MAX = 10, 40  # marker radius and the widest fan of coinciding neurons, in px
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
    n = len(state.explore.stream)
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


def _font(size: int) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans: it has every glyph the labels use (Σ, −, ±, subscripts)."""
    return ImageFont.truetype(str(FONT), size)


def _colour(cos: float) -> tuple[int, ...]:
    """|cos| 0 grey → 1 blue, as the player's colour key."""
    grey, blue = np.array([187, 187, 187]), np.array([0, 114, 178])
    return tuple(int(v) for v in grey + (blue - grey) * min(1.0, abs(float(cos))))


def _frame(points: np.ndarray, cos: np.ndarray, marks: dict, step: int, T: int,
           extent: float, counts: tuple[int, int] | None = None) -> Image.Image:
    """The map at one step: neurons coloured by |cos|, the stars, counts (on +Σ_A M, on −Σ_A M;
    None: counted from cos) and the step number."""
    img = Image.new("RGB", (GIF_SIZE, GIF_SIZE), "white")
    d = ImageDraw.Draw(img)
    top, pad, bottom = 44, 14, 24
    span = GIF_SIZE - top - bottom
    k = (span - 2 * FAN_MAX - 2 * pad) / (2 * extent)
    cx, cy = GIF_SIZE / 2, top + span / 2

    def px(p):
        return float(cx + p[0] * k), float(cy - p[1] * k)

    pixels = np.array([px(p) for p in points]).reshape(-1, 2)
    centres = {name: px(np.atleast_2d(p)[0]) for name, p in marks.items()}
    shown, label_y, moved = fan.fan_out(pixels, [(x, y, MARK_R) for x, y in centres.values()],
                                      FAN_MAX)
    for (x, y), c in zip(shown, cos, strict=True):
        d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=_colour(c))
    small = _font(14)
    for (name, (x, y)), at in zip(centres.items(), label_y, strict=True):
        colour = "#D55E00" if name.startswith("+") else "#E69F00" if name.startswith("−") else \
            "#009E73"
        d.regular_polygon((x, y, MARK_R), 5 if name.startswith("+") else 4, fill=colour,
                          outline="#222222")
        if name in ("+Σ_A M", "−Σ_A M"):
            on = (counts or star_counts(cos))[0 if name.startswith("+") else 1]
            at = min(GIF_SIZE - bottom, max(top + 14, at))
            d.text((x, at), f"{on} on {name}", fill="#262730", font=small, anchor="mm")
    d.text((pad, 10), f"step {step} / {T}", fill="#262730", font=_font(22))
    d.text((GIF_SIZE - pad, 16), "neuron weights, MDS map", fill="#6b6f7b", font=small,
           anchor="ra")
    if moved:
        d.text((pad, GIF_SIZE - 8), fan.NOTE, fill="#6b6f7b", font=_font(12), anchor="ls")
    return img


def _maps(state: AppState) -> list[tuple]:
    """(points, cos, marks, step, (plus, minus)) of every frame, decoded from the player's
    payload (the stream's meta and frames)."""
    run_meta, n = playback.meta(state), len(state.explore.stream)
    fr = playback.pack(state, 0, n)
    pos = np.frombuffer(base64.b64decode(fr["pos"]), "<i2").reshape(n, run_meta["points"], 2)
    cos = np.frombuffer(base64.b64decode(fr["cos"]), np.int8).reshape(n, -1) / 127
    out, width = [], run_meta["neurons"]
    for i in range(n):
        xy = pos[i] * (fr["scale"][i] / 32767)
        marks, at = {}, width
        for mk in run_meta["marks"]:
            marks[mk["name"]], at = xy[at:at + mk["rows"]], at + mk["rows"]
        out.append((xy[:width], cos[i], marks, fr["step"][i], (fr["plus"][i], fr["minus"][i])))
    return out


def export_gif(state: AppState) -> bytes:
    """An animated GIF of the map, one frame per recorded step, the step number burnt in."""
    maps, T = _maps(state), state.explore.stream.T
    extent = 1.08 * max(float(np.abs(np.vstack([p, *[np.atleast_2d(v) for v in m.values()]]))
                              .max()) for p, _, m, _, _ in maps) or 1.0
    frames = [_frame(p, c, m, step, T, extent, on) for p, c, m, step, on in maps]
    durations = [GIF_SLOW_MS if step <= 2 else GIF_MS for *_, step, _ in maps]
    durations[-1] = 2000
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:],
                   duration=durations, loop=0, optimize=False, disposal=1)
    return out.getvalue()
