"""Feature-emergence explorer: entry point (placeholder until the dashboard lands)."""

import streamlit as st

st.set_page_config(page_title="Feature emergence explorer", layout="wide")
nav = st.navigation(
    [st.Page("pages/explore.py", title="Explore", url_path="explore", default=True)]
)
nav.run()
