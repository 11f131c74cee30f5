"""Explore page (placeholder until the dashboard lands)."""

import streamlit as st

st.title("Feature emergence explorer")
st.write(
    "Watch a two-layer network learn features from structured inputs "
    "(Shi, Wei & Liang, ICLR 2022). The interactive dashboard is under construction."
)
