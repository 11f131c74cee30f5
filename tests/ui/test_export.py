"""Exports of an Explore run: the offline HTML player and the GIF of the map (real small runs)."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from engine.config import Config
from engine.run import Run
from engine.worlds import build_world
from ui import export
from ui.state import AppState

SMALL = Config(n=1000, n_test=500, T=12, m=20, batch=100)


@pytest.fixture(scope="module")
def state() -> AppState:
    st = AppState(cfg=SMALL)
    ex = st.explore
    ex.world, ex.run_cfg = build_world(SMALL), SMALL
    ex.run = Run(ex.world)
    for _ in range(SMALL.T):
        ex.run.step()
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
