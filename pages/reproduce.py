"""Reproduce page: one card per figure and table of each registered source, and every preset."""

from __future__ import annotations

import streamlit as st

from ui import reproduce_cards as rc
from ui import telling
from ui.router import ensure_router
from ui.state import get_state, read_url

ensure_router()

state = get_state()
read_url(state)

st.title("Reproduce the sources")
st.write(
    "Each card names the preset that regenerates a figure, table or claim of its source, shows "
    "the source's own numbers where it gives some, and loads the setting into **Explore** (the "
    "network step by step, MDS map of the neurons) or **Compare** (all methods side by side, the "
    "source's numbers beside ours). Full-size runs take minutes on a CPU; the command line runs "
    "them too and averages seeds with `--seeds 5`. The sources:")
st.markdown("\n".join(f"- {credit}" for credit in telling.sources()))


def grid(items, draw, columns: int = 2) -> None:
    """Cards in rows of `columns`."""
    for start in range(0, len(items), columns):
        cols = st.columns(columns)
        for col, item in zip(cols, items[start:start + columns], strict=False):
            with col:
                draw(item)


figures = list(enumerate(rc.FIGURES))  # every procedure's figures of its source
if figures:
    st.header("Figures")
    grid(figures, lambda pair: rc.figure_card(pair[1], pair[0]), columns=3)

for tables in telling.table_groups():  # the header its procedure tells over its table presets
    st.header(tables.title)
    st.caption(tables.note)
    grid(rc.table_presets(), rc.preset_card)

GROUPS = telling.card_groups()  # each procedure's own group of cards, from its package
for record, presets in GROUPS:
    st.header(record.cards.title)
    st.caption(record.cards.note)
    grid(presets, lambda p, record=record: telling.group_card(record, p))

st.header("More presets")
st.caption("Classroom-size settings, the theory's step sizes and the further scenarios "
           "(grouped by where they come from).")
OWN_GROUPS = {p.name for _, presets in GROUPS for p in presets}
for source, presets in rc.other_presets(exclude=OWN_GROUPS).items():
    st.subheader(source)
    grid(presets, rc.preset_card)
hidden = [p.name for p in rc.PRESETS.values() if rc.needs_download(p.name)]
if hidden:
    st.caption(f"Not on this server: {', '.join(hidden)} (their data would be downloaded, and "
               "downloads are off here: FEX_ALLOW_DOWNLOADS=0; the command line runs them).")
