"""Feature-emergence explorer: the router (st.navigation) over the four pages."""

import streamlit as st

st.set_page_config(page_title="Feature emergence explorer", page_icon=":material/hub:",
                   layout="wide")
PAGES = [
    st.Page("pages/explore.py", title="Explore", icon=":material/scatter_plot:",
            url_path="explore", default=True),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:",
            url_path="compare"),
    st.Page("pages/reproduce.py", title="Reproduce the paper", icon=":material/science:",
            url_path="reproduce"),
    st.Page("pages/guide.py", title="Guide", icon=":material/menu_book:", url_path="guide"),
]
st.navigation(PAGES).run()
