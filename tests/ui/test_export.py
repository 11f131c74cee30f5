"""Exports of an Explore run: the offline HTML player and the GIF of the map (real small runs)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from engine.config import Config
from engine.frames import FrameStream
from ui import export, fan, playback
from ui.state import AppState

SMALL = Config(n=1000, n_test=500, T=12, m=20, batch=100)


@pytest.fixture(scope="module")
def state() -> AppState:
    st = AppState(cfg=SMALL)
    st.explore.stream, st.explore.run_cfg = FrameStream(SMALL), SMALL
    st.explore.stream.advance()
    return st


def test_html_holds_every_frame_and_its_code_inline(state: AppState) -> None:
    page = export.export_html(state, "small run")
    data = json.loads(re.search(r"id='fe-data'>(.*?)</script>", page, re.S).group(1))
    assert data["frames"]["step"] == list(range(SMALL.T + 1))
    assert data["meta"]["neurons"] == 2 * SMALL.m and data["meta"]["T"] == SMALL.T
    assert "class FEPlayer" in page and "const FE =" in page
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://", page)  # nothing fetched


def test_gif_has_one_frame_per_step(state: AppState) -> None:
    gif = Image.open(io.BytesIO(export.export_gif(state)))
    assert gif.format == "GIF" and gif.n_frames == SMALL.T + 1
    gif.seek(0)
    first = gif.convert("RGB").copy()
    gif.seek(SMALL.T)
    assert first.tobytes() != gif.convert("RGB").tobytes()  # at least the step number moved


def test_gif_fans_out_the_neurons_that_sit_on_a_star() -> None:
    """Every neuron on a star: the old GIF drew them all under the marker (an empty map)."""
    star, other = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    points = np.repeat(star, 40, axis=0)  # 40 neurons exactly on +Σ_A M
    img = export._frame(points, np.ones(40), {"+Σ_A M": star, "−Σ_A M": other}, 2, 10, 1.2)
    rgb = np.asarray(img).astype(int)
    blue = (np.abs(rgb - [0, 114, 178]).sum(axis=2) < 30)  # |cos| = 1 neurons
    ys, xs = np.nonzero(blue)
    assert len(xs) > 40 * 12, len(xs)  # forty dots of radius 3, not one hidden under the star
    mark = export._frame(points[:0], np.ones(0), {"+Σ_A M": star, "−Σ_A M": other}, 2, 10, 1.2)
    under = np.asarray(mark).astype(int)[ys, xs]
    assert (np.abs(under - 255).sum(axis=1) < 10).mean() > 0.8  # drawn beside the marker


def test_fan_out_moves_only_coinciding_neurons() -> None:
    xy = np.array([[100.0, 100.0]] * 5 + [[10.0, 10.0], [300.0, 40.0]])
    shown, label_y, moved = fan.fan_out(xy, [(100.0, 100.0, 12.0)], 40.0)
    assert moved == 5 and np.array_equal(shown[5:], xy[5:])
    gaps = np.hypot(*(shown[:5, None] - shown[None, :5]).transpose(2, 0, 1))
    assert gaps[np.triu_indices(5, 1)].min() > 4  # distinct dots
    assert (np.hypot(*(shown[:5] - 100).T) > 12).all()
    assert abs(label_y[0] - 100) >= np.abs(shown[:5, 1] - 100).max() + 12  # past the fan


def _glyph(font, ch: str) -> bytes:
    mask = font.getmask(ch)
    return bytes(mask) + bytes(str(mask.size), "ascii")


def test_the_bundled_font_has_every_glyph_the_gif_writes() -> None:
    """The old default font drew "▯▯_A M": it has no Σ or −."""
    texts = [*playback.MARK_STYLES, fan.NOTE, "step 0123456789 / ", "neuron weights, MDS map",
             "± ₀₁₂ ⁽¹⁾ η λ σ_ξ ‖ → ≤ ≥ ×", "centres, label +1", "centres, label −1"]
    chars = sorted({ch for t in texts for ch in t if not ch.isspace()})
    for size in (12, 14, 22):
        font = export._font(size)
        notdef = _glyph(font, "\ue000")  # a private-use code point: no font has it
        missing = [ch for ch in chars if _glyph(font, ch) == notdef]
        assert missing == [], (size, missing)
