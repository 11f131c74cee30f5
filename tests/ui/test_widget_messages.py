"""Issue 38 Low 9: crafted player-widget messages (want, have, view) are ignored with one log
line, never a traceback or an error box. The callbacks are ui/player_view.py's own, fed the
component state a browser could send (Streamlit's session_state outside a script run)."""

from __future__ import annotations

import json
import logging
import weakref

import pytest
import streamlit as st

from ui import player_view
from ui import widget_messages as messages
from ui.state import AppState


class Stream:
    """What session() checks: the run object (a weak reference) and its meta's id."""


@pytest.fixture
def state(monkeypatch):
    st_ = AppState()
    stream = st_.explore.stream = Stream()
    st_.explore.player = {"run": weakref.ref(stream), "id": "run1", "meta": {}, "sent": 10,
                          "want": 5, "view": dict(st_.explore.view), "resends": 0}
    yield st_
    st.session_state.pop(player_view.KEY, None)


def send(value) -> None:
    st.session_state[player_view.KEY] = value


DEEP = json.loads("[" * 900 + "]" * 900)
BAD_N = ["abc", float("inf"), float("-inf"), float("nan"), [1], {"a": 1}, -1, 1e300, True,
         2.5, "1e999", DEEP, 10**30, "１"]


@pytest.mark.parametrize("n", BAD_N, ids=[repr(v)[:20] for v in BAD_N])
def test_a_bad_want_n_is_ignored_in_one_line(state, caplog, n):
    send({"want": {"run": "run1", "n": n}})
    with caplog.at_level(logging.WARNING):
        player_view._on_want(state)
    assert state.explore.player["want"] == 5
    lines = [r.getMessage() for r in caplog.records if "player message" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and len(lines[0]) < 200


@pytest.mark.parametrize("have", ["abc", float("inf"), [1], -3, DEEP])
def test_a_bad_have_is_ignored(state, have):
    send({"have": {"run": "run1", "n": have}})
    player_view._on_have(state)
    send({"want": {"run": "run1", "n": 7, "have": have}})
    player_view._on_want(state)
    assert state.explore.player["sent"] == 10 and state.explore.player["want"] == 7


@pytest.mark.parametrize("held", ["abc", float("inf"), [1], -3, DEEP, 10**30])
def test_a_bad_held_is_ignored(state, held):
    send({"held": {"run": "run1", "n": held}})
    player_view._on_held(state)
    send({"held": {"run": "run2", "n": 7}})  # another run's
    player_view._on_held(state)
    assert state.explore.player.get("held", 0) == 0 and state.explore.player["sent"] == 10


@pytest.mark.parametrize("whole", [[1], "x", 5, None, DEEP, {"want": [1], "have": "x",
                                                          "view": 3}])
def test_a_state_that_is_not_an_object_is_ignored(state, whole):
    send(whole)
    for callback in (player_view._on_want, player_view._on_have, player_view._on_held,
                     player_view._on_view):
        callback(state)
    assert state.explore.player["want"] == 5 and state.explore.player["sent"] == 10


@pytest.mark.parametrize("view", [{"speed": float("inf")}, {"speed": "Infinity"}, {"speed": [20]},
                                  {"smooth": float("nan")}, {"smooth": "nan"},
                                  {"step": float("inf")}, {"step": -1}, {"step": 1e9},
                                  {"colour": ["sign"]}, {"colour": {"a": 1}}, DEEP, "view"])
def test_a_bad_view_changes_nothing(state, view):
    before = dict(state.explore.view)
    send({"view": view})
    player_view._on_view(state)
    assert state.explore.view == before


def test_good_messages_still_work(state):
    send({"want": {"run": "run1", "n": 40, "have": 4},
          "view": {"speed": 50, "colour": "sign", "smooth": 0.6, "step": 12.0}})
    player_view._on_want(state)
    player_view._on_view(state)
    p = state.explore.player
    assert p["want"] == 40 and p["sent"] == 4 and p["resends"] == 1
    assert state.explore.view == {**state.explore.view, "speed": 50, "colour": "sign",
                                  "smooth": 0.6, "step": 12}


def test_another_runs_want_is_not_taken(state):
    send({"want": {"run": ["run1"], "n": 99}})
    player_view._on_want(state)
    assert state.explore.player["want"] == 5


def test_whole_accepts_only_integral_finite_numbers():
    assert [messages.whole(v, 0, 10) for v in (3, 3.0, 3.5, True, "3", 11, -1, "inf")] == \
        [3, 3, None, None, 3, None, None, None]


def test_the_urls_view_values_are_text_and_still_taken():
    assert player_view.clean_view({"speed": "50", "colour": "sign", "smooth": "0.6",
                                   "step": "4"}) == {"speed": 50, "colour": "sign",
                                                     "smooth": 0.6, "step": 4}
