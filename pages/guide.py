"""Guide page: each training procedure's theory in plain words, with its formulas, for a
first-time reader, as its package tells it (ProcedureRecord.guide, drawn by ui/telling.py); then
the converged limits, the keyboard and every symbol a view shows."""

from __future__ import annotations

import streamlit as st

from engine.procedures import glossary as procedure_glossary
from ui import limits_guide, telling
from ui.router import ensure_router

ensure_router()

st.title("Guide: how a network learns features from its inputs")
st.write(
    "This page explains, without proofs, what the sources of the dashboard's training "
    "procedures show, each in its own sections, and what the other pages let you watch. The "
    "question: why does a trained network beat methods whose features are fixed in advance, "
    "and what about the *data* makes that possible?")
c1, c2, c3 = st.columns(3)
c1.page_link("pages/explore.py", label="Explore: watch one network learn",
             icon=":material/scatter_plot:")
c2.page_link("pages/compare.py", label="Compare: learned vs fixed features",
             icon=":material/compare_arrows:")
c3.page_link("pages/reproduce.py", label="Reproduce the sources' figures",
             icon=":material/science:")


def glossary() -> None:
    """Symbols used across the dashboard: each world's data symbols, then every procedure's own
    probes and symbols, from their records (what each view of them shows)."""
    st.header("Symbols")
    _symbols("**Per data world** (each world's record names its data's symbols)", "world",
             telling.world_glossary())
    _symbols("**Per training procedure** (each view shows its procedure's)", "procedure",
             procedure_glossary())


def _symbols(title: str, column: str, rows) -> None:
    """One symbol table: (symbol, meaning, whose) rows under a title."""
    st.markdown(f"{title}:\n\n| symbol | meaning | {column} |\n|---|---|---|\n"
                + "\n".join(f"| {_cell(term)} | {_cell(meaning)} | {who} |"
                             for term, meaning, who in rows))

def keyboard() -> None:
    """Keyboard use: the player's keys (ui/player/playback.js) and moving between controls."""
    st.header("Keyboard")
    st.markdown(
        "Every control is reached with **Tab** (back with **Shift+Tab**) and shows a blue "
        "focus ring; the first Tab offers *Skip to main content*, past the sidebar. Wide "
        "commands and formulas take the focus too, so the arrow keys scroll them. On Explore "
        "and in an offline HTML player the player's keys work wherever the focus is, except "
        "in a text field (outside presentation mode a slider or a list keeps its own arrows):\n\n"
        "| key | does |\n|---|---|\n"
        "| space | play / pause |\n"
        "| → | one step forward |\n"
        "| ← | one step back |\n"
        "| R | back to step 0 |\n"
        "| Home | back to step 0 |\n"
        "| End | the last step computed |\n\n"
        "With *reduce motion* set in the operating system, the pages do not animate or "
        "scroll smoothly.")


def _cell(text: str) -> str:
    """A table cell: its own bars (|cos|) escaped, so they do not split the row."""
    return text.replace("|", "\\|")


for section in (telling.guide, limits_guide.section, keyboard, glossary):
    section()
