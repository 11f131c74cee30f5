"""Make every page run under app.py's st.navigation router, even on a fresh server."""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

_rerouted = False  # once per process: a server decides pages/ mode only once


def ensure_router() -> None:
    """Rerun through app.py when Streamlit ran a page file directly.

    Streamlit 1.67 treats a folder named pages/ beside the main script as a v1 multipage app
    until the main script has called st.navigation once in the server process, so the first
    visit to /compare on a fresh server would run pages/compare.py alone (no router, no wide
    layout). Clearing the flag and rerunning makes the runner exec app.py, which routes.
    Only the first time: AppTest resets the flag before every run, and a rerun there would
    swallow the button click that started the run.
    """
    global _rerouted
    if PagesManager.uses_pages_directory and not _rerouted:
        _rerouted = True
        PagesManager.uses_pages_directory = False
        st.rerun()
