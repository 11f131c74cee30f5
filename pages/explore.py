"""Explore: one network trains live; watch its neurons travel to the stars of its world."""

import streamlit as st

from engine.config import summary_line
from engine.hub import executor_note
from engine.procedures import source_of
from ui import controls, explore_text, live, player_view, present
from ui import explore_view as view
from ui.router import ensure_router
from ui.state import get_state, preset_param, read_url, show_url_warnings, write_url

ensure_router()

state = get_state()
read_url(state)
view.read_view(state)
mode = present.mode()
if not mode.on:
    controls.sidebar(state)
present.header(mode, "Feature emergence explorer")
if not mode.on:  # the procedure's own source (engine/procedures: its record's credit line)
    st.caption(f"{source_of(state.cfg).credit()}. Move a setting, press Play, "
               "watch the neurons.")
show_url_warnings(state)

cfg = state.cfg
head = st.empty()  # the summary shows at once, before a slow setup
head.markdown(explore_text.header(cfg))
live.ensure_run(state)
if note := executor_note():  # FEX_RAY_ADDRESS did not answer: one line, runs are local
    st.info(note, icon=":material/dns:")
if state.explore.guard_error:
    st.error(state.explore.guard_error[1], icon=":material/block:")
if state.explore.run_cfg is not None and state.explore.run_cfg != state.cfg:
    # refused: the old run stays
    cfg = state.explore.run_cfg
    head.markdown(f"**{summary_line(cfg)}** · n={cfg.n:,} · T={cfg.T} · still running the "
                  "last accepted setting (see the message)")

def sync_url() -> None:
    """The address bar follows the setting, the preset and the view (speed, colour, step …)."""
    write_url(state.cfg, None, {**preset_param(state), **view.view_params(state), **mode.params()})


sync_url()
if state.explore.stream is None:
    st.stop()
state.explore.timer_on = player_view.ticking(state)
state.explore.page_run = True  # the next call of live_panel is part of this full run


@st.fragment(run_every=live.TICK_S if state.explore.timer_on else None)
def live_panel() -> None:
    """One tick: compute the frames the browser asked for (within budget), send the new ones."""
    # In a full run the player goes out before any work: a full run that ends without it
    # (its fragment body cut short) makes Streamlit drop the player and the browser remount
    # it, with blank charts for a moment. A tick of the fragment alone sends fresh frames.
    full_run, state.explore.page_run = state.explore.page_run, False
    if not full_run:
        live.compute(state, player_view.session(state))
    player_view.mount(state, theme=mode.theme, present=mode.on)
    sync_url()  # the player's view changes rerun this fragment only
    if full_run:  # its frames go out with the next tick; steps 1-2 unasked come with ticks
        # (a script run that a quick change of setting supersedes does no work nobody asked for)
        live.compute(state, player_view.session(state), ahead=False)
    if state.explore.timer_on != player_view.ticking(state):
        st.rerun()  # started, finished, idle or diverged: a full run sets the timer


live_panel()
if not state.explore.timer_on and not mode.on:
    view.downloads(state)
if not mode.on:
    about = state.explore.stream.meta()  # the words around the player: now, not at step 0
    with st.expander("What is measured"):
        st.write(about["probes"])
        st.caption(f"Setup took {state.explore.build_s:.1f} s. The browser keeps every computed "
                   "frame: Play, Back, Step and the scrubber replay them without asking the "
                   "server.")
    view.step_sizes(about["step_sizes"])
