"""Feature-emergence explorer: the router (st.navigation) over the pages of ui/page_list.py."""

import os

# Before torch loads: idle OpenMP workers must sleep, not spin, or on a busy 2-core server they
# starve the main thread (a 2 ms MDS eigh took 100+ ms after each training step).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from engine import forkserver  # noqa: E402  (no torch)

# The hub workers' forkserver imports torch and the engine on the other core while this
# process imports its own (a worker is then forked ready in milliseconds; later reruns: nothing)
forkserver.prestart()

import streamlit as st  # noqa: E402
import threadpoolctl  # noqa: E402

from ui import a11y, present, router  # noqa: E402
from ui.hub_metrics import start_hub  # noqa: E402
from ui.page_list import DEFAULT, DEFAULT_URL_PATH, PAGES  # noqa: E402

# The app's numpy work is small matrices, where OpenBLAS threads only add contention.
threadpoolctl.threadpool_limits(1, user_api="blas")


def main() -> None:
    """Configure the page, start the hub, route to the chosen page."""
    st.set_page_config(page_title="Feature emergence explorer", page_icon="🧠",
                       layout="wide")
    # The same hub start as asgi.py's lifespan (there it already ran, and this returns at once):
    # under `streamlit run app.py` the first page starts the workers before it subscribes.
    start_hub()
    # The default page runs under an internal name (st.navigation serves it at "/"); its hidden
    # twin answers a shared link to its own address.
    navigation = [st.Page(p.script, title=p.title, icon=p.icon, default=p is DEFAULT,
                          url_path=DEFAULT_URL_PATH if p is DEFAULT else p.slug) for p in PAGES]
    navigation.append(st.Page(DEFAULT.script, title=DEFAULT.title, url_path=DEFAULT.slug,
                              visibility="hidden"))
    page = st.navigation(navigation)
    a11y.page_setup()  # contrast, focus ring, reduced motion, focusable scroll regions
    present.copy_link()  # at the top of every page: the address holds the setting and the view
    router.run(page)


# A hub worker started while Streamlit held this page as __main__ (a rerun can put it back
# during engine/forkserver.bare_main) imports it as __mp_main__: it must neither start a hub
# of its own nor draw a page.
if __name__ != "__mp_main__":
    main()
