"""Feature-emergence explorer: the router (st.navigation) over the four pages."""

import os

# Before torch loads: idle OpenMP workers must sleep, not spin, or on a busy 2-core server they
# starve the main thread (a 2 ms MDS eigh took 100+ ms after each training step).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import streamlit as st  # noqa: E402
import threadpoolctl  # noqa: E402

from ui import present, router  # noqa: E402

# The app's numpy work is small matrices, where OpenBLAS threads only add contention.
threadpoolctl.threadpool_limits(1, user_api="blas")

st.set_page_config(page_title="Feature emergence explorer", page_icon="🧠",
                   layout="wide")
PAGES = [
    # The default page is served at "/"; its url_path only names it internally (st.navigation
    # hashes it), so the hidden twin below can answer a shared /explore link.
    st.Page("pages/explore.py", title="Explore", icon=":material/scatter_plot:",
            url_path="home", default=True),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:",
            url_path="compare"),
    st.Page("pages/reproduce.py", title="Reproduce the paper", icon=":material/science:",
            url_path="reproduce"),
    st.Page("pages/sweep.py", title="Sweeps", icon=":material/grid_on:", url_path="sweep"),
    st.Page("pages/guide.py", title="Guide", icon=":material/menu_book:", url_path="guide"),
    st.Page("pages/explore.py", title="Explore", url_path="explore", visibility="hidden"),
]
page = st.navigation(PAGES)
present.copy_link()  # at the top of every page: the address holds the setting and the view
router.run(page)
