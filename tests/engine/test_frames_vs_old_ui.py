"""FrameStream's frames against the old UI code that assembled them (ui/playback.meta/pack on an
AppState), step by step on tiny settings of each run type. Written before the old code went;
tests/engine/test_frames.py keeps the numbers this agreed on."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from engine import scenarios
from engine.frames import FrameStream
from engine.methods import make_run
from engine.worlds import build_world
from tests.engine.frames_settings import SETTINGS

playback = pytest.importorskip("ui.playback")
AppState = pytest.importorskip("ui.state").AppState


def old_frames(cfg, steps: int) -> tuple[dict, list[dict]]:
    """The old UI's meta and one packed batch per step (each packed when it was the newest)."""
    state = AppState(cfg=cfg)
    ex = state.explore
    ex.world, ex.run_cfg = build_world(cfg, "cpu"), cfg
    ex.run = scenarios.explore_run(ex.world) or make_run("network", ex.world)
    meta = playback.meta(state, "x")
    batches = [playback.pack(state, 0, 1)]
    for i in range(1, steps + 1):
        ex.run.step()
        batches.append(playback.pack(state, i, i + 1))
    return meta, batches


def ints(b64: str, dtype) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype=dtype).astype(int)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_frames_agree_with_the_old_ui_code(name: str) -> None:
    cfg = SETTINGS[name]
    meta, batches = old_frames(cfg, cfg.T)
    stream = FrameStream(cfg)
    stream.advance()
    new_meta = stream.meta()
    assert {k: v for k, v in new_meta.items() if k in meta and k != "run"} == \
        {k: v for k, v in meta.items() if k != "run"}
    for i, old in enumerate(batches):
        new = stream.frames(i, i + 1)
        for key, value in old.items():
            if key == "pos":  # int16 of a float map: the last bit may round the other way
                assert np.abs(ints(value, "<i2") - ints(new[key], "<i2")).max() <= 1, (name, i)
            elif key in ("cos", "sign"):
                assert np.abs(ints(value, "i1") - ints(new[key], "i1")).max() <= 1, (name, i)
            elif key == "scale":
                assert new[key] == pytest.approx(value, rel=1e-9), (name, i)
            else:
                assert new[key] == value, (name, key, i)
