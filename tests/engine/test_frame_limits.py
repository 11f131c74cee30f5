"""Explore's converged limits come from the frame stream (engine/frames/limits.py): none while the
run trains, computed in a background thread once it is done (no step waits), equal to
engine.limits' own solve of the same side run; none where Explore draws no fixed-feature curve."""

from __future__ import annotations

import time

import pytest

from engine.frames import FrameStream
from engine.limits import limit_of
from tests.engine.frames_settings import SETTINGS


def _finish(stream, timeout=120.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        got = stream.limits()
        if not got["pending"] or time.monotonic() > deadline:
            return got
        stream.wait_limits(0.5)


def test_azl_explore_gets_each_fixed_feature_limit_after_the_run():
    stream = FrameStream(SETTINGS["azl"].replace(T=6), device="cpu")
    assert stream.meta()["limit_curves"] is True
    before = stream.limits()
    assert before == {"pending": True, "lines": []}  # nothing is solved while it trains
    stream.advance(until=3)
    assert stream.limits()["pending"] and stream._limits.thread is None
    stream.advance()
    assert stream.done
    got = _finish(stream)
    assert not got["pending"]
    lines = {ln["method"]: ln for ln in got["lines"]}
    assert set(lines) == {"ntk", "last_layer"}
    order = stream.run.methods
    for m, ln in lines.items():
        own = limit_of(stream.run.side[m])  # the same (cached) solve engine.limits makes
        assert ln["key"] == "test_err" and ln["value"] == pytest.approx(own["test_err"])
        assert ln["slot"] == order.index(m) and ln["colour"].startswith("#")
        assert ln["converged"] and ln["certificate"] <= 1e-4 and ln["ridge"] is None
    # the NTK's limit is below its last frame's T-step error or within 5 % of it
    errs = stream.frames(len(stream) - 1, len(stream))["errs"][-1]
    assert lines["ntk"]["value"] <= errs[lines["ntk"]["slot"]] * 1.05


def test_explore_without_fixed_feature_curves_has_no_limits():
    for name in ("paper", "gfl-xor", "fcb-xor"):
        stream = FrameStream(SETTINGS[name].replace(T=3), device="cpu")
        stream.advance()
        assert stream.limits() is None and stream.meta()["limit_curves"] is False
