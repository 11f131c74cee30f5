"""The Explore page's player: a Streamlit component (st.components.v2) that keeps the run's frames
in the browser and animates them itself; the server only appends the frames it computes."""

from __future__ import annotations

import time
import weakref

import streamlit as st

from ui import live, playback
from ui import widget_messages as messages
from ui.state import AppState

KEY = "player"
SPEEDS = (1, 2, 5, 10, 20, 50, 100)  # steps per second of playback (player.js has the same)
COLOURS = ("cosine", "sign")
SMOOTHINGS = (0.0, 0.6, 0.9)
IDLE_S = 8.0  # the fragment timer stays on this long after the last frame was computed
# After a batch of new frames, the script thread idles this long so that Streamlit's event loop
# sends it. A fragment run that starts before the send clears that fragment's unsent deltas
# (AppSession._clear_queue on SCRIPT_STARTED), and after a tick longer than TICK_S (steps 1 and
# 2 of the paper default, ~0.5 s each) the browser's queued timer ticks start the next run
# within ~2 ms, inside the GIL's 5 ms switch interval: the batch with step 1 or 2 was dropped
# and the player waited for its gap to be noticed and resent (step 2 came 2.4 s after step 1).
FLUSH_S = 0.03
# A batch not acknowledged goes again inside every message sent this long after it (the browser
# skips frames it holds): a script run that starts before Streamlit's event loop sent the last
# message clears it (AppSession._clear_queue), and the next message, starting after it, showed
# the browser a gap. On a loaded machine (load 4 on 2 cores) that happened even to runs that
# started more than 20 ms after the flush (tests/browser/test_play_start.py: gaps=1 with the
# old 20 ms resend window); a message still unsent after 1.5 s is left to the player's re-ask.
OVERLAP_S = 1.5
# A batch with more frames than this, or any batch of a complete run, is acknowledged: it goes
# again, the same, in every script run until the player says it holds its last frame ("held"),
# and nothing after it goes before. A complete run's ~4 MB message was still unsent when the
# next tick cleared it (or the browser skipped it for the next one), and the browser saw that
# tick's empty batch from step 601 first: a gap (tests/browser/test_play_start.py on a warmed
# run, session 13). Smaller batches go unasked (one ack would cost a script run per tick); a
# loss among them shows as a gap and the player asks from what it holds.
ACK_FRAMES = 20

_component = st.components.v2.component(
    "feature_emergence.player", html="", css=playback.player_css(),
    js=playback.player_js() + "\n" + (playback.HERE / "component.js").read_text(),
    isolate_styles=False)


def session(state: AppState) -> dict:
    """The player's bookkeeping for this run: its meta and id, frames sent, frames wanted,
    initial view."""
    p = state.explore.player
    if p is None or p["run"]() is not state.explore.stream:
        view = p["view"] if p else dict(state.explore.view)
        run_meta = playback.meta(state)  # fixed over a run: built once
        # a weak reference: the session sweeper (ui/sessions.py) must be able to free the run
        p = state.explore.player = {"run": weakref.ref(state.explore.stream),
                                    "id": run_meta["run"], "meta": run_meta, "sent": 0,
                                    "want": 1, "view": view, "resends": 0,
                                    "held": 0, "pending": None, "unsure": []}
    return p


def _resend_from(p: dict, have) -> None:
    """The browser holds `have` frames: the ones sent after those go again. The count goes
    into the next batch, so that it differs from the last one the browser was given (the
    browser does not call the component again for the same data)."""
    have = messages.count(have, "have.n", p["sent"])
    p["held"] = max(p.get("held", 0), min(have, p["sent"]))
    if have < p["sent"]:  # a reloaded page holds fewer than it held before: its word stands
        p["sent"], p["resends"], p["pending"], p["held"] = have, p["resends"] + 1, None, have


def _on_want(state: AppState) -> None:
    value = messages.message(_state().get("want"), "want")
    p = session(state)
    if messages.text(value.get("run")) == p["id"]:
        p["want"] = messages.count(value.get("n", 1), "want.n", p["want"])
        # the browser says what it holds: frames sent but never seen go again
        _resend_from(p, value.get("have", p["sent"]))


def _on_have(state: AppState) -> None:
    value = messages.message(_state().get("have"), "have")
    p = session(state)
    # "": a player that has no run's frames at all
    if "run" in value and messages.text(value.get("run")) in (p["id"], ""):
        _resend_from(p, value.get("n", 0))


def _on_held(state: AppState) -> None:
    """The player holds the frames up to n (its ack of a batch that asked for one)."""
    value = messages.message(_state().get("held"), "held")
    p = session(state)
    if messages.text(value.get("run")) == p["id"]:
        held = messages.count(value.get("n", 0), "held.n", 0)
        p["held"] = max(p.get("held", 0), min(held, p["sent"]))


def _on_view(state: AppState) -> None:
    state.explore.view.update(clean_view(_state().get("view")))
    session(state)["view"] = dict(state.explore.view)


def _state() -> dict:
    """The component's state as the browser set it (a crafted one: {})."""
    return messages.message(st.session_state.get(KEY), "state")


def clean_view(value) -> dict:
    """Only known view values within their ranges (they come from the browser or the URL)."""
    return messages.view(value, SPEEDS, COLOURS, SMOOTHINGS)


def computing(state: AppState) -> bool:
    """Whether the server still owes the browser frames it asked for."""
    stream = state.explore.stream
    if stream is None or stream.done:
        return False
    return len(stream) < live.wanted(session(state))


def unsent(state: AppState) -> bool:
    """Whether frames the server holds have not gone to the browser yet (a batch is at most
    playback.BATCH frames): a complete run, warmed or finished by another session, goes out in
    back-to-back ticks, not one batch per click on the page."""
    stream = state.explore.stream
    if stream is None:
        return False
    p = session(state)
    return p.get("pending") is not None or p["sent"] < len(stream)


def ticking(state: AppState, now: float | None = None) -> bool:
    """Whether the live fragment should keep its timer: while computing, and for IDLE_S after.

    Switching the timer off takes a full script run, whose redraw of the whole page kept the
    browser busy for 100–200 ms on the 2-core machine: right after Pause that delayed the first
    scrub past 100 ms. Idle ticks are cheap (no frames to send), and a Play soon after a Pause
    needs no full run to restart the timer.
    """
    now = time.monotonic() if now is None else now
    if computing(state) or unsent(state):
        state.explore.idle_since = None
        return True
    stream = state.explore.stream
    if stream is None:
        return False
    if stream.done:  # on until the converged limits (computed after the run) are sent
        lim = stream.limits()
        return bool(lim and lim["pending"])
    if state.explore.idle_since is None:
        if not state.explore.timer_on:  # a fresh page or run: no timer until the browser asks
            return False
        state.explore.idle_since = now  # just caught up (or paused): keep ticking for IDLE_S
    return now - state.explore.idle_since < IDLE_S


def unsure_from(p: dict, now: float) -> int:
    """The first frame of the messages that may still have been cleared unsent (sent within
    OVERLAP_S and past what the player holds); else the frames sent so far."""
    p["unsure"] = [(a, b, t) for a, b, t in p.get("unsure", ())
                   if now - t < OVERLAP_S and b > p["held"]]
    return max(p["held"], min([p["sent"], *(a for a, _, _ in p["unsure"])]))


def outgoing(state: AppState) -> dict:
    """The batch this script run sends: an unacknowledged large batch again, else the frames
    from those sent (a large one waits for the player's ack). Its start is never past what
    the player holds, except after small batches sent unasked."""
    p = session(state)
    pending = p.get("pending")
    if pending is not None and p["held"] >= pending[1]:
        pending = p["pending"] = None
    if pending is not None:
        data = playback.batch(state, p["meta"], pending[0], pending[1] - pending[0])
    else:
        data = playback.batch(state, p["meta"], unsure_from(p, time.monotonic()))
        p["sent"] = data["start"] + len(data["frames"]["step"])
        count = p["sent"] - data["start"]  # the unsure frames sent again included
        if count and (data["done"] or count > ACK_FRAMES):
            pending = p["pending"] = (data["start"], p["sent"])
    data.update(view=p["view"], resends=p["resends"], ack=pending is not None)
    return data


def mount(state: AppState, theme: str = "light", present: bool = False) -> None:
    """Send the frames the browser does not have yet (all of them after a reload)."""
    p = session(state)
    data = outgoing(state)
    data.update(theme=theme, present=present)
    _component(key=KEY, data=data, on_want_change=lambda: _on_want(state),
               on_have_change=lambda: _on_have(state), on_held_change=lambda: _on_held(state),
               on_view_change=lambda: _on_view(state), height="content")
    if data["frames"]["step"]:
        time.sleep(FLUSH_S)
        if not data["ack"]:  # an acknowledged batch goes again by itself
            p["unsure"].append((data["start"], p["sent"], time.monotonic()))
