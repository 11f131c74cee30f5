"""Guide page (skeleton; filled in by the dashboard work)."""

import streamlit as st

st.title("Guide")
