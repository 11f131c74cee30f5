"""The served entry point: `streamlit run asgi.py` runs app.py as an st.App with one middleware.

The middleware (ui/not_found.py) answers unknown addresses two or more levels deep (/a/b) with
"Page not found"; Streamlit alone answers them with a blank page. ui/base_url.py tells each page
where the server is (a page opened by its address probed /<page>/_stcore/health: two 404s).
/metrics (ui/hub_metrics.py) gives the run hub's numbers in Prometheus text format; the hub's
workers start and stop with the server (its lifespan).
Everything else is app.py.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # as app.py: before the forkserver's torch

from engine import forkserver  # noqa: E402  (no torch)

# The hub workers' forkserver imports torch and the engine on the other core while this
# process imports its own: the lifespan's workers are then forked ready in milliseconds.
forkserver.prestart()

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.routing import Route  # noqa: E402

from ui import hub_metrics  # noqa: E402
from ui.base_url import BackendBaseMiddleware  # noqa: E402
from ui.not_found import NotFoundMiddleware  # noqa: E402

app = st.App("app.py", middleware=[Middleware(NotFoundMiddleware),
                                   Middleware(BackendBaseMiddleware)],
             routes=[Route("/metrics", hub_metrics.endpoint)], lifespan=hub_metrics.lifespan)
