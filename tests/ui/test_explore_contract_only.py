"""Explore on a stream that offers the frame contract and nothing else (what the web process has
when the run lives in a worker): the page, the player's batches, the step-size table, the CSV,
the JSON report, the offline HTML and the GIF all come from meta() and frames()."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from engine.config import Config
from engine.frames import FrameStream
from tests.ui.test_explore_app import open_app, player, state, want
from ui import explore_view, export, live
from ui.state import AppState


class ContractOnly:
    """A FrameStream seen through the frame contract only (no run, no world)."""

    __slots__ = ("_stream", "__weakref__")  # no other attribute: nothing else to reach

    def __init__(self, cfg: Config, device: str = "cpu"):
        self._stream = FrameStream(cfg, device)

    T = property(lambda self: self._stream.T)
    identity = property(lambda self: self._stream.identity)  # what caches name the run by
    done = property(lambda self: self._stream.done)
    error = property(lambda self: self._stream.error)

    def __len__(self) -> int:
        return len(self._stream)

    def advance(self, budget_s=None, until=None) -> int:
        return self._stream.advance(budget_s, until)

    def meta(self) -> dict:
        return json.loads(json.dumps(self._stream.meta()))  # as it would cross a process

    def frames(self, start: int, stop: int) -> dict:
        return json.loads(json.dumps(self._stream.frames(start, stop)))

    def limits(self) -> dict | None:
        return json.loads(json.dumps(self._stream.limits()))


@pytest.mark.parametrize("preset", ["quick-parity", "gfl-xor", "azl-resnet"])
def test_the_page_plays_from_the_contract_alone(monkeypatch, preset: str) -> None:
    monkeypatch.setattr(live, "FrameStream", ContractOnly)
    sizes = {"T": "6", "azl_drop_epoch": "0"} if preset == "azl-resnet" else {"T": "6"}
    at = want(open_app(preset=preset, **sizes), 4)
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert isinstance(state(at).explore.stream, ContractOnly)
    sent = player(at)
    assert len(state(at).explore.stream) >= 4 and sent["frames"]["step"][-1] >= 3
    assert "rows" not in sent["frames"] and "report" not in sent["meta"]  # page-only keys
    labels = [e.label for e in at.expander]
    assert "What is measured" in labels and "Step sizes of this run" in labels


def test_the_downloads_and_exports_come_from_meta_and_frames() -> None:
    cfg = Config(n=1000, n_test=500, T=8, m=20, batch=100)
    st = AppState(cfg=cfg)
    st.explore.stream, st.explore.run_cfg = ContractOnly(cfg), cfg
    st.explore.stream.advance()
    rows = explore_view._frames(st)["rows"]
    assert [r["step"] for r in rows] == list(range(cfg.T + 1))
    report = json.loads(explore_view._report(st))
    assert report["config"]["T"] == cfg.T and len(report["history"]["network"]) == cfg.T + 1
    assert report["methods"]["network"]["test_acc"] == rows[-1]["test_acc"]
    page = export.export_html(st, "contract only")
    data = json.loads(re.search(r"id='fe-data'>(.*?)</script>", page, re.S).group(1))
    assert data["frames"]["step"] == list(range(cfg.T + 1))
    assert "Shi, Wei &amp; Liang, ICLR 2022" in page  # the credit line from meta()
    gif = Image.open(io.BytesIO(export.export_gif(st)))
    assert gif.n_frames == cfg.T + 1
