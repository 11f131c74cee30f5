"""Explore: one network trains live; watch its neurons travel to ±Σ_A M."""

import time

import streamlit as st

from ui import controls, explore_text, live
from ui import explore_view as view
from ui.router import ensure_router
from ui.state import get_state, read_url, share_link, show_url_warnings, summary_line, write_url

ensure_router()

state = get_state()
read_url(state)
controls.sidebar(state)

st.title("Feature emergence explorer")
st.caption("A two-layer network learns features from structured inputs "
           "(Shi, Wei & Liang, ICLR 2022). Move a setting, press Play, watch the neurons.")
show_url_warnings(state)
params = write_url(state.cfg, None)

cfg = state.cfg
head = st.empty()  # the summary shows at once, before a slow setup
head.markdown(f"**`{summary_line(cfg)}`** · n={cfg.n:,} · T={cfg.T} · batch={cfg.batch} · "
              f"schedule={cfg.schedule} · seed={cfg.seed}")
live.ensure_run(state)
if state.guard_error:
    st.error(state.guard_error[1], icon=":material/block:")
if state.run_cfg is not None and state.run_cfg != state.cfg:  # refused: the old run stays
    cfg = state.run_cfg
    head.markdown(f"**`{summary_line(cfg)}`** · n={cfg.n:,} · T={cfg.T} · still running the "
                  "last accepted setting (see the message)")
if state.run is None:
    st.stop()

view.player(state)
state.timer_on = state.playing


@st.fragment(run_every=live.TICK_S if state.playing else None)
def live_panel() -> None:
    """One tick: take a chunk of steps, then draw everything for the step on screen."""
    t0 = time.perf_counter()
    live.advance(state)
    t1 = time.perf_counter()
    if state.timer_on and not state.playing:
        st.rerun()  # finished, paused or diverged: a full run turns the timer off
    i = live.shown_index(state)
    view.counter(state, i)
    if state.error:
        st.error(f"Stopped: {state.error}. The history so far stays below and in the downloads.",
                 icon=":material/warning:")
    view.metrics(state, i)
    view.stage_text(state, i)
    view.charts(state, i)
    view.scrubber(state, i)
    if not state.playing:
        view.downloads(state)
    state.tick_ms = (1000 * (t1 - t0), 1000 * (time.perf_counter() - t1))


live_panel()

with st.expander("What is measured, and how to share this setting"):
    st.write(explore_text.probes(cfg))
    adv, draw = state.tick_ms
    st.caption(f"Setup took {state.build_s:.1f} s; the last update computed for {adv:.0f} ms "
               f"and drew for {draw:.0f} ms. Copy this link to share the setting "
               "(charts have a PNG download in their toolbar):")
    st.code(share_link(params), language=None)
