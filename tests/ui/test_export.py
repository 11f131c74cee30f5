"""Exports of an Explore run: the offline HTML player and the GIF of the map (real small runs)."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from engine import exports
from engine.config import Config, ConfigError
from engine.frames import FrameStream
from engine.presets import preset_config
from ui import export, fan, gif, playback
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


PAPER_MARKS = [{"name": "+Σ_A M", "rows": 1, "style": "star", "count": 1},
               {"name": "−Σ_A M", "rows": 1, "style": "diamond", "count": -1}]


def test_gif_fans_out_the_neurons_that_sit_on_a_star() -> None:
    """Every neuron on a star: the old GIF drew them all under the marker (an empty map)."""
    meta = {"neurons": 40, "marks": PAPER_MARKS, "T": 10, "points": 42}
    star, other = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    points = np.repeat(star, 40, axis=0)  # 40 neurons exactly on +Σ_A M
    shot = gif.Shot(2, np.vstack([points, star, other]), np.ones(40), [40, 0])
    rgb = np.asarray(gif.frame(shot, meta, 1.2)).astype(int)
    blue = (np.abs(rgb - [0, 114, 178]).sum(axis=2) < 30)  # |cos| = 1 neurons
    ys, xs = np.nonzero(blue)
    assert len(xs) > 40 * 12, len(xs)  # forty dots of radius 3, not one hidden under the star
    bare = gif.Shot(2, np.vstack([star, other]), np.ones(0), [None, None])
    under = np.asarray(gif.frame(bare, {**meta, "neurons": 0}, 1.2)).astype(int)[ys, xs]
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
        font = gif.font(size)
        notdef = _glyph(font, "\ue000")  # a private-use code point: no font has it
        missing = [ch for ch in chars if _glyph(font, ch) == notdef]
        assert missing == [], (size, missing)


def _gif_frames(data: bytes) -> list[np.ndarray]:
    img = Image.open(io.BytesIO(data))
    out = []
    for i in range(img.n_frames):
        img.seek(i)
        out.append(np.asarray(img.convert("RGB")).astype(int))
    return out


def _hex(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


@pytest.fixture(scope="module")
def gfl_state() -> AppState:
    """A tiny gfl-xor run after 4 steps: four direction stars ±D_j, each its own colour."""
    cfg = replace(preset_config("gfl-xor"), n=600, n_test=500, m=16, T=6, batch=100)
    st = AppState(cfg=cfg)
    st.explore.stream, st.explore.run_cfg = FrameStream(cfg), cfg
    st.explore.stream.advance(until=5)
    return st


def test_gif_draws_each_star_group_in_its_colour_with_its_count(gfl_state: AppState) -> None:
    """Issue 28: the GIF drew every GFL/AZL star as the same unlabelled green square."""
    meta = playback.meta(gfl_state, "t")
    groups = [mk for mk in meta["marks"] if "slot" in mk]
    assert len(groups) >= 2 and len({mk["colour"] for mk in groups}) == len(groups)
    last = _gif_frames(export.export_gif(gfl_state))[-1]
    for mk in groups:  # the star (two of them for ±D_j) and its label's chip
        hits = (np.abs(last - _hex(mk["colour"])).sum(axis=2) < 6).sum()
        assert hits > 150 * mk["rows"], (mk["name"], hits)
    packed = playback.pack(gfl_state, 4, 5)
    shot = gif.decode(meta, packed)
    img = gif.frame(shot, meta, 1.08 * float(np.abs(shot.xy).max()))
    labels = [text for text, _ in img.info["labels"]]
    assert labels == [f"{c} on {mk['name']}" for c, mk in zip(packed["counts"][0], groups,
                                                               strict=True)]
    boxes = [b for _, b in img.info["labels"]]
    for x0, y0, x1, y1 in boxes:  # no label covers a star or another label
        for sx0, sy0, sx1, sy1 in img.info["stars"] + [b for b in boxes if b != (x0, y0, x1, y1)]:
            assert not (x0 < sx1 and sx0 < x1 and y0 < sy1 and sy0 < y1)


def test_a_long_run_keeps_a_frame_budget_with_steps_0_1_2_and_the_last(
        state: AppState, monkeypatch) -> None:
    monkeypatch.setattr(exports, "GIF_MAX_FRAMES", 6)
    picked = exports.gif_frames(SMALL.T + 1, 6)
    assert picked[:3] == [0, 1, 2] and picked[-1] == SMALL.T and len(picked) == 6
    frames = _gif_frames(export.export_gif(state))
    assert len(frames) == 6
    assert exports.every(picked) > 1 and exports.gif_frames(601, 601) == list(range(601))
    assert len(exports.gif_frames(5001)) == exports.GIF_MAX_FRAMES == 6


@pytest.mark.parametrize("build", [export.export_gif,
                                   lambda st: export.export_html(st, "t")])
def test_an_export_over_the_memory_limit_is_refused_in_one_line(state: AppState, build,
                                                                monkeypatch) -> None:
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "3")
    with pytest.raises(ConfigError) as err:
        build(state)
    msg = str(err.value)
    assert "\n" not in msg and "FEX_MAX_MEMORY_MB" in msg and "3 MB" in msg, msg
    assert set(export.refusals(state)) == {"csv", "json", "html", "gif"}
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "1024")
    assert export.refusals(state) == {}


def test_a_complete_runs_gif_is_made_once(state: AppState) -> None:
    """Issue 38 Low 14: the GIF of a complete run is kept (56 s of CPU a click at m = 2 000,
    T = 600); a second click, or another session on the run, gets the same bytes at once."""
    first = export.export_gif(state)
    assert export.export_gif(state) is first
    other = AppState(cfg=SMALL)
    other.explore.stream, other.explore.run_cfg = FrameStream(SMALL), SMALL
    other.explore.stream.advance()  # another run (its own id): its own GIF
    assert export.export_gif(other) is not first


def test_a_departed_pages_downloads_stop_at_the_next_file() -> None:
    # a page's four downloads were built on after its browser left (the GIF of an m = 2 000,
    # T = 600 run: ~56 s of CPU), holding the hub's lease for them (issue 38 High 2)
    here, made = [True], []

    def first() -> str:
        here[0] = False  # the browser leaves while the first file is made
        return "csv"

    done: list[int] = []
    prepared = export.Prepared({"csv": first, "json": lambda: made.append(1) or "{}"},
                               done.append, lambda: here[0])
    prepared.thread.join(30)
    assert prepared.cancelled and prepared.files == {"csv": b"csv"} and not made
    assert done == [3]  # the lease ends with the bytes the page keeps


def test_a_departed_pages_gif_stops_at_the_next_frame() -> None:
    cfg = replace(SMALL, seed=31)  # a run whose GIF no other test put in the cache
    st = AppState(cfg=cfg)
    st.explore.stream, st.explore.run_cfg = FrameStream(cfg), cfg
    st.explore.stream.advance()
    asked = []

    def alive() -> bool:
        asked.append(1)
        return len(asked) <= 3  # gone after three frames

    with pytest.raises(gif.Cancelled):
        export.export_gif(st, alive)
    assert len(asked) == 4  # asked before each frame: the fourth was not drawn
    whole = Image.open(io.BytesIO(export.export_gif(st)))  # the stopped one was not cached
    assert whole.n_frames == cfg.T + 1
