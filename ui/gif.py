"""The map of a run as an animated GIF for slides, drawn from the player's own payload (the run's
meta and its packed frames): neurons by |cos|, every star in its group's colour with its count,
the step number burnt in.

Frames are written one at a time (Pillow's save_all kept every frame, ~1.2 MB each, until the
end), at most engine.exports.GIF_MAX_FRAMES of them (a longer run shows every k-th step and
says so on each frame), and the whole file is sized by the guard before the first frame.
"""

from __future__ import annotations

import base64
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import GifImagePlugin, Image, ImageDraw, ImageFont

from engine import exports
from ui import fan, playback
from ui.state import AppState

SIZE = 480
FONT = Path(__file__).resolve().parents[1] / "assets" / "DejaVuSans.ttf"
MARK_R = {"star": 10, "diamond": 9, "dot": 5}  # marker radii in px (map.js MARK_R, scaled)
FAN_MAX = 40  # the widest fan of coinciding neurons, in px
MS, SLOW_MS, LAST_MS = 60, 900, 2000  # per frame; steps 0, 1 and 2 stay longer on screen
TOP, BOTTOM, PAD, ROW = 44, 40, 14, 18  # map area and label rows, px
INK, MUTED, EDGE = "#262730", "#6b6f7b", "#222222"
# the player's default marker colours (map.js drawMark) where a mark names none
STYLE_COLOUR = {"star": "#D55E00", "diamond": "#E69F00", "dot": "#009E73"}
POLYGON = {"star": 5, "diamond": 4, "dot": 0}


@dataclass
class Shot:
    """One frame of the payload, decoded: the step, every map point (the neurons, then each
    mark's rows), the neurons' cosines and each mark's count (None: no label)."""

    step: int
    xy: np.ndarray
    cos: np.ndarray
    counts: list


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans: it has every glyph the labels use (Σ, −, ±, subscripts)."""
    return ImageFont.truetype(str(FONT), size)


def decode(meta: dict, frames: dict) -> Shot:
    """The first (only) frame of a packed batch (ui/playback.pack)."""
    raw = np.frombuffer(base64.b64decode(frames["pos"]), "<i2").reshape(-1, 2)
    xy = raw.astype(np.float32) * np.float32(frames["scale"][0] / 32767)
    cos = np.frombuffer(base64.b64decode(frames["cos"]), np.int8).astype(np.float32) / 127
    per_dir = frames["counts"][0]
    counts = []
    for mk in meta["marks"]:
        if "slot" in mk:
            counts.append(None if per_dir is None else int(per_dir[mk["slot"]]))
        elif mk.get("count"):
            counts.append(frames["plus"][0] if mk["count"] > 0 else frames["minus"][0])
        else:
            counts.append(None)
    return Shot(int(frames["step"][0]), xy, cos, counts)


def _colour(cos: float) -> tuple[int, ...]:
    """|cos| 0 grey → 1 blue, as the player's colour key."""
    grey, blue = np.array([187, 187, 187]), np.array([0, 114, 178])
    return tuple(int(v) for v in grey + (blue - grey) * min(1.0, abs(float(cos))))


def _free_row(boxes: list, x0: float, x1: float, y: float) -> float:
    """The y nearest to `y` (in ROW px steps, inside the map) where a label box [x0, x1]
    covers no star and no label already placed; the box is then added to `boxes`."""
    lo, hi = TOP + ROW / 2, SIZE - BOTTOM - ROW / 2

    def hits(yy):
        return any(x0 < b[2] and b[0] < x1 and yy - ROW / 2 < b[3] and b[1] < yy + ROW / 2
                   for b in boxes)

    at = min(hi, max(lo, y))
    for k in range(1, 40):
        if not hits(at):
            break
        cand = y + (1 if k % 2 else -1) * ((k + 1) // 2) * ROW
        if lo <= cand <= hi:
            at = cand
    boxes.append((x0, at - ROW / 2, x1, at + ROW / 2))
    return at


def _label(d: ImageDraw.ImageDraw, boxes: list, x: float, y: float, text: str,
           chip: str | None) -> tuple[float, float, float, float]:
    """A count label near (x, y), off every star and label, led by its star's colour chip;
    its box."""
    small = font(13)
    pad = 14 if chip else 0
    tw = d.textlength(text, font=small) + pad
    x0 = max(4.0, min(SIZE - tw - 12, x - tw / 2 - 4))
    at = _free_row(boxes, x0, x0 + tw + 8, y)
    d.rectangle((x0, at - ROW / 2 + 1, x0 + tw + 8, at + ROW / 2 - 1), fill="white")
    if chip:
        d.rectangle((x0 + 4, at - 5, x0 + 14, at + 5), fill=chip, outline=EDGE)
    d.text((x0 + 4 + pad, at), text, fill=INK, font=small, anchor="lm")
    return boxes[-1]


def _mark(d: ImageDraw.ImageDraw, x: float, y: float, mk: dict) -> None:
    style = mk.get("style", "dot")
    colour = mk.get("colour") or STYLE_COLOUR.get(style, "#009E73")
    r = MARK_R.get(style, 5)
    if POLYGON.get(style):
        d.regular_polygon((x, y, r), POLYGON[style], fill=colour, outline=EDGE)
    else:
        d.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=EDGE)


def frame(shot: Shot, meta: dict, extent: float, every: int = 1) -> Image.Image:
    """The map at one step: neurons by |cos| (fanned out where they coincide), each mark and
    its count label, the step number and what the counts count. img.info["labels"] holds
    (text, box) of each count label drawn, img.info["stars"] each star's box, img.info["credit"]
    the credit line drawn."""
    img = Image.new("RGB", (SIZE, SIZE), "white")
    d = ImageDraw.Draw(img)
    span = SIZE - TOP - BOTTOM
    k = (span - 2 * FAN_MAX - 2 * PAD) / (2 * extent)
    cx, cy = SIZE / 2, TOP + span / 2
    px = np.column_stack([cx + shot.xy[:, 0] * k, cy - shot.xy[:, 1] * k]).astype(np.float64)
    nn, marks = meta["neurons"], meta["marks"]
    spots, at = [], nn
    for mk in marks:  # every star of every mark keeps its neurons fanned out around it
        r = MARK_R.get(mk.get("style", "dot"), 5)
        spots += [(float(x), float(y), float(r)) for x, y in px[at:at + mk["rows"]]]
        at += mk["rows"]
    shown, label_y, moved = fan.fan_out(px[:nn], spots if len(spots) <= 64 else [], FAN_MAX)
    for (x, y), c in zip(shown, shot.cos, strict=True):
        d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=_colour(c))
    boxes = [(x - r - 2, y - r - 2, x + r + 2, y + r + 2) for x, y, r in spots]
    img.info["stars"], img.info["labels"] = list(boxes), []
    at = nn
    for mk, count in zip(marks, shot.counts, strict=True):
        for x, y in px[at:at + mk["rows"]]:
            _mark(d, x, y, mk)
        at += mk["rows"]
        if count is not None:  # the label of the mark's last star, as the player places it
            x, y = px[at - 1]
            want = label_y[at - 1 - nn] if len(spots) <= 64 else y - 20
            text = f"{count} on {mk['name']}"
            img.info["labels"].append((text, _label(d, boxes, x, want, text, mk.get("colour"))))
    _furniture(d, shot.step, meta, every, moved)
    img.info["credit"] = meta.get("credit")
    return img


def _furniture(d: ImageDraw.ImageDraw, step: int, meta: dict, every: int, moved: int) -> None:
    """The step number, the credit, the map's name, and the notes under the map."""
    d.text((PAD, 10), f"step {step} / {meta['T']}", fill=INK, font=font(22))
    if meta.get("credit"):  # whose run it is (the record's source, with the world's)
        d.text((PAD, 38), meta["credit"], fill=MUTED, font=font(12))
    name = "neuron directions, relevant plane" if (meta.get("map") or {}).get("axes") else \
        "neuron weights, MDS map"
    d.text((SIZE - PAD, 8), name, fill=MUTED, font=font(14), anchor="ra")
    if every > 1:
        d.text((SIZE - PAD, 26), f"one frame per {every} steps", fill=MUTED, font=font(12),
               anchor="ra")
    notes = [n for n in (meta.get("count_note"), fan.NOTE if moved else None) if n]
    for row, text in enumerate(notes):
        d.text((PAD, SIZE - 8 - 16 * (len(notes) - 1 - row)), text, fill=MUTED, font=font(12),
               anchor="ls")


def shots(state: AppState, meta: dict, picked: list[int]) -> list[Shot]:
    """The chosen frames of the run, from the player's packed payload, decoded (a few bytes a
    point: the drawn images are made one at a time later)."""
    return [decode(meta, playback.pack(state, i, i + 1)) for i in picked]


def gif_meta(state: AppState) -> dict:
    """The player's meta with the run's credit (its source's citation) for the GIF's corner."""
    return {**playback.meta(state, "gif"), "credit": state.explore.stream.meta()["source"]}


class Cancelled(Exception):
    """The page that asked for the GIF has gone (its `alive` said no): the build stopped."""


def export_gif(state: AppState, alive=None) -> bytes:
    """An animated GIF of the map, one frame per shown step (every step up to
    GIF_MAX_FRAMES), written frame by frame; ResourceError (one line) over the guard's limit.
    A complete run's GIF is kept (a click cost 56 s of CPU at m = 2 000, T = 600, each time
    and for every session on the link) by the run's identity, within GIF_CACHE_BYTES."""
    picked = exports.gif_frames(len(state.explore.stream))
    meta = gif_meta(state)
    exports.check("map GIF", "m", state.explore.run_cfg.m,
                  exports.gif_mb(len(picked), meta["points"]))
    key = _gif_key(state, picked)
    with _GIF_LOCK:
        if key in _GIFS:
            _GIFS.move_to_end(key)
            return _GIFS[key]
    data = _build_gif(state, meta, picked, alive)
    if key is not None:
        with _GIF_LOCK:
            _GIFS[key] = data
            while sum(map(len, _GIFS.values())) > GIF_CACHE_BYTES and len(_GIFS) > 1:
                _GIFS.popitem(last=False)
    return data


GIF_CACHE_BYTES = 32 << 20  # a T = 600 run's GIF is ~4 MB: the last few runs' GIFs
_GIFS: OrderedDict[tuple, bytes] = OrderedDict()
_GIF_LOCK = threading.Lock()


def _gif_key(state: AppState, picked: list[int]) -> tuple | None:
    """The run's identity (the hub's run key, shared by every session on the link, else the
    stream's own id) and the frames shown; None while it is not complete."""
    stream = state.explore.stream
    if stream is None or not stream.done or stream.error:
        return None
    return (stream.identity, len(stream), tuple(picked))


def _build_gif(state: AppState, meta: dict, picked: list[int], alive=None) -> bytes:
    """The GIF's bytes of the frames `picked` (export_gif, checked, without the cache);
    Cancelled once `alive()` says the page has gone."""
    taken = shots(state, meta, picked)
    extent = 1.08 * max((float(np.abs(s.xy).max()) for s in taken if s.xy.size), default=1.0)
    every = exports.every(picked)
    out = io.BytesIO()
    for j, shot in enumerate(taken):
        if alive is not None and not alive():
            raise Cancelled
        ms = LAST_MS if j == len(taken) - 1 else SLOW_MS if shot.step <= 2 else MS
        _write(out, frame(shot, meta, extent or 1.0, every), first=j == 0, ms=ms)
    out.write(b";")  # the GIF trailer
    return out.getvalue()


_PALETTE: Image.Image | None = None


def palette() -> Image.Image:
    """One fixed 256-colour palette for every frame: the grey-to-blue cosine scale, greys for
    the text's edges, the Okabe-Ito marker colours and a colour cube for the rest."""
    global _PALETTE
    if _PALETTE is None:
        cols = [_colour(c / 63) for c in range(64)] + [(g, g, g) for g in range(0, 256, 8)]
        cols += [tuple(int(h[i:i + 2], 16) for i in (1, 3, 5)) for h in
                 (*playback.DIRECTION_COLOURS, *STYLE_COLOUR.values(), INK, MUTED, EDGE)]
        levels = (0, 64, 128, 191, 255)
        cube = [(r, g, b) for r in levels for g in levels for b in levels]
        cols = (cols + cube)[:256]
        img = Image.new("P", (1, 1))
        img.putpalette([v for c in cols for v in c] + [0] * 3 * (256 - len(cols)))
        _PALETTE = img
    return _PALETTE


def _write(out: io.BytesIO, img: Image.Image, first: bool, ms: int) -> None:
    """Append one frame (and, first, the header with the loop) to the GIF in `out`."""
    p = img.quantize(palette=palette(), dither=Image.Dither.NONE)
    if first:
        head, _ = GifImagePlugin.getheader(p, info={"loop": 0, "optimize": False})
        out.write(b"".join(head))
    for chunk in GifImagePlugin.getdata(p, duration=ms, disposal=1):
        out.write(chunk)
