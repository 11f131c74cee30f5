"""Make every page run under app.py's st.navigation router, even on a fresh server."""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def ensure_router() -> None:
    """Rerun through app.py when Streamlit ran a page file directly.

    Streamlit 1.67 treats a folder named pages/ beside the main script as a v1 multipage app
    until the main script has called st.navigation once in the server process, so the first
    visit to /compare on a fresh server would run pages/compare.py alone (no router, no wide
    layout). Clearing the flag and rerunning makes the runner exec app.py, which routes.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
