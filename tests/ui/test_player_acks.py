"""The player acknowledges large batches (issue 37): a complete run's batch goes again, the same,
until the player says it holds it, and no later batch starts past what the player holds. On the
old protocol the tick after a warmed run's one big message sent an empty batch from step T+1:
when the big one was cleared unsent or skipped, the browser saw that one first (a gap)."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import player_view

APP = str(Path(__file__).resolve().parents[2] / "app.py")
T = 24
SMALL = {"n": "1000", "n_test": "500", "T": str(T), "m": "20", "batch": "100"}


def player(at: AppTest) -> dict:
    found = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("player")]
    return json.loads(found[-1].proto.json)


def complete_run() -> AppTest:
    """A page whose run is complete and whose browser holds nothing yet (a warmed link)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in SMALL.items():
        at.query_params[name] = value
    at.run()
    app = at.session_state["app"]
    app.explore.stream.advance(T)  # the whole run, as a hub worker or another session left it
    assert app.explore.stream.done
    app.explore.player = None  # a fresh page on it: every frame goes out
    return at.run()


def test_a_complete_runs_batch_goes_again_until_the_player_holds_it():
    at = complete_run()
    first = player(at)
    assert first["start"] == 0 and first["frames"]["step"] == list(range(T + 1))
    assert first["done"] and first["ack"]
    for _ in range(2):  # ticks before the ack: the same batch, never one from step T + 1
        assert player(at.run()) == first
    p = at.session_state["app"].explore.player
    p["held"] = T + 1  # what player_view._on_held takes from the player's "held" message
    after = player(at.run())
    assert after["start"] == T + 1 and after["frames"]["step"] == [] and not after["ack"]
    assert not player_view.unsent(at.session_state["app"])


def test_a_player_holding_less_gets_the_rest_from_what_it_holds():
    at = complete_run()
    p = at.session_state["app"].explore.player
    player_view._resend_from(p, 5)  # its "have": 5 frames (a new page on an old store)
    again = player(at.run())
    assert again["start"] == 5 and again["frames"]["step"] == list(range(5, T + 1))
    assert again["ack"] and again["resends"] == 1


def test_small_live_batches_go_unasked():
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in SMALL.items():
        at.query_params[name] = value
    first = player(at.run())
    assert first["frames"]["step"] == [0] and not first["ack"]
    assert at.session_state["app"].explore.player["pending"] is None


def test_a_small_batch_goes_again_in_the_next_messages_until_the_player_holds_it(monkeypatch):
    """A script run that starts before Streamlit sent the last message clears it: the next
    message starts where that one started (the browser skips frames it holds), not after it,
    so the browser never sees a gap (test_play_start's gaps=1 under load)."""
    monkeypatch.setattr(player_view, "OVERLAP_S", 600.0)  # every earlier message still unsure
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in SMALL.items():
        at.query_params[name] = value
    assert player(at.run())["frames"]["step"] == [0]
    app = at.session_state["app"]
    app.explore.stream.advance(until=3)
    second = player(at.run())
    assert second["start"] == 0 and second["frames"]["step"] == [0, 1, 2], second["start"]
    app.explore.player["held"] = 2  # the player's word: it holds steps 0 and 1
    app.explore.stream.advance(until=4)
    third = player(at.run())
    assert third["start"] == 2 and third["frames"]["step"] == [2, 3] and not third["ack"]
    monkeypatch.setattr(player_view, "OVERLAP_S", 0.0)  # all sent long ago: only new frames
    app.explore.stream.advance(until=5)
    assert player(at.run())["frames"]["step"] == [4]
