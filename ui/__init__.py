"""Streamlit dashboard helpers: session state, sidebar controls, figures and live training."""
