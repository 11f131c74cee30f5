"""Reproduce page: one card per figure and table of the paper's appendix E, and every preset."""

from __future__ import annotations

import streamlit as st

from ui import azl_cards, gfl_cards
from ui import reproduce_cards as rc
from ui.router import ensure_router
from ui.state import get_state, read_url

ensure_router()

state = get_state()
read_url(state)

st.title("Reproduce the paper")
st.write(
    "Shi, Wei & Liang (ICLR 2022), appendix E: each card names the preset that regenerates a "
    "figure or table, shows the paper's own numbers, and loads the setting into **Explore** "
    "(the network step by step, MDS map of the neurons) or **Compare** (all methods side by "
    "side, the paper's numbers beside ours). Full-size runs take minutes on a CPU; the command "
    "line runs them too and averages seeds with `--seeds 5`.")


def grid(items, draw, columns: int = 2) -> None:
    """Cards in rows of `columns`."""
    for start in range(0, len(items), columns):
        cols = st.columns(columns)
        for col, item in zip(cols, items[start:start + columns], strict=False):
            with col:
                draw(item)


st.header("Figures")
figures = list(enumerate(rc.FIGURES))
grid(figures, lambda pair: rc.figure_card(pair[1], pair[0]), columns=3)

st.header("Tables 1–5")
st.caption("Columns: Network · NTK · RF · One Step · Two Step · Network without input structure.")
grid(rc.table_presets(), rc.preset_card)

st.header(gfl_cards.GROUP)
st.caption(gfl_cards.NO_EXPERIMENTS)
grid(gfl_cards.gfl_presets(), gfl_cards.card)

st.header(azl_cards.GROUP)
st.caption(azl_cards.NO_NUMBERS)
grid(azl_cards.azl_presets(), azl_cards.card)

st.header("More presets")
st.caption("Classroom-size settings, the theory's step sizes and the further scenarios "
           "(grouped by where they come from).")
OWN_GROUPS = {p.name for p in (*gfl_cards.gfl_presets(), *azl_cards.azl_presets())}
for source, presets in rc.other_presets(exclude=OWN_GROUPS).items():
    st.subheader(source)
    grid(presets, rc.preset_card)
hidden = [p.name for p in rc.PRESETS.values() if rc.needs_download(p.name)]
if hidden:
    st.caption(f"Not on this server: {', '.join(hidden)} (their data would be downloaded, and "
               "downloads are off here: FEX_ALLOW_DOWNLOADS=0; the command line runs them).")
