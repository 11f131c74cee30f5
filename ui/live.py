"""The Explore page's one frame stream (engine.frames): set up, advance in time-budgeted
chunks. The page reads what it shows from the stream's meta() and frames() only."""

from __future__ import annotations

import time

import streamlit as st

from engine import guard
from engine.config import Config, ConfigError
from engine.frames import FrameStream
from engine.frames.procedure import lead, neurons
from engine.hub import HubStream, get_hub, hub_enabled
from ui.sessions import client_id, watcher_id
from ui.state import AppState

TICK_S = 0.3  # the fragment timer (browser setInterval); ticks coalesce when the page is busy
# Compute per tick. The browser animates on its own clock, so a tick may take most of the
# interval; what is left keeps the server answering clicks.
BUDGET_S = 0.22
# Frames computed before anyone asks (steps 0, 1 and 2): the lecture's key moment is steps 1
# and 2, and on the paper default each took ~2 s under load after Play was pressed.
FIRST_FRAMES = 3


def wanted(player: dict, ahead: bool = True) -> int:
    """Frames the server owes: the browser's ask, the shown step, and (ahead) steps 0–2."""
    return max(player["want"], player["view"].get("step", 0) + 1, FIRST_FRAMES if ahead else 1)


def guard_check(cfg: Config) -> None:
    """Refuse settings beyond the server's limits (engine.guard)."""
    guard.check(cfg, methods=(lead(cfg),))


def ensure_run(state: AppState) -> None:
    """Start a fresh stream when the setting changed; at most one lives per session."""
    ex = state.explore
    if ex.stream is not None and ex.run_cfg == state.cfg:
        return
    if ex.guard_error and ex.guard_error[0] == state.cfg:
        return  # this setting was already refused
    cfg = state.cfg
    try:
        guard_check(cfg)
    except ConfigError as err:
        ex.guard_error = (cfg, str(err))
        return
    ex.guard_error = None
    # drop the old stream before building: never two runs (and datasets) alive in one session
    ex.stream = ex.run_cfg = None
    t0 = time.perf_counter()
    with st.spinner(f"Drawing {cfg.n:,} + {cfg.n_test:,} samples and {neurons(cfg):,} "
                    "neurons…"):
        try:
            stream = make_stream(cfg)
        except ConfigError as err:  # e.g. a dataset this machine cannot load
            ex.guard_error = (cfg, str(err))
            return
    ex.stream, ex.run_cfg = stream, cfg
    if ex.player is not None:  # a new run after another: show it from step 0
        ex.view["step"] = 0
    ex.player = None  # a new run: the browser gets it from frame 0
    ex.build_s = time.perf_counter() - t0


def make_stream(cfg: Config):
    """The session's view of cfg's run: the hub's (each distinct run computed once, by worker
    processes or Ray; waits for step 0), or with FEX_WORKERS=0 a run in this session."""
    if hub_enabled():
        return HubStream(cfg, get_hub(), watcher_id(), client=client_id())
    return FrameStream(cfg, device="auto")


def compute(state: AppState, player: dict, ahead: bool = True) -> int:
    """Take steps until the browser has the frames it asked for (ahead: and steps 1 and 2),
    within one tick's budget."""
    stream = state.explore.stream
    if stream is None or stream.done:
        return 0
    return stream.advance(BUDGET_S, wanted(player, ahead))
