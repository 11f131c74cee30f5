"""A complete run reaches the browser whole: a warmed link (or a run another session finished)
goes out in a few large messages with the fragment's timer on until every frame is sent (the
scrubber stopped at step 199 of 900 until the page was clicked five times)."""

from __future__ import annotations

import pytest

from engine.config import Config
from engine.frames import FrameStream
from ui import playback, player_view
from ui.state import AppState

DONE = Config(n=1000, n_test=500, T=450, m=20, batch=100)


@pytest.fixture(scope="module")
def state() -> AppState:
    st = AppState(cfg=DONE)
    st.explore.stream, st.explore.run_cfg = FrameStream(DONE), DONE
    st.explore.stream.advance()
    st.explore.stream.wait_limits(60.0)
    return st


def test_a_complete_run_goes_out_in_one_message(state: AppState) -> None:
    p = player_view.session(state)
    assert player_view.ticking(state)  # nothing sent yet: the timer is on
    data = playback.batch(state, p["meta"], 0)
    assert data["frames"]["step"] == list(range(DONE.T + 1)) and data["done"]
    p["sent"] = DONE.T + 1
    assert not player_view.unsent(state) and not player_view.ticking(state)


def test_a_larger_map_still_goes_out_in_bounded_messages() -> None:
    per = playback.done_batch({"points": 4000})
    assert playback.BATCH <= per < DONE.T + 1 < 5 * per
