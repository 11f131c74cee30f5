"""How the hub's local workers start (issue 37: a worker ready in under 2 s).

A spawned worker is a fresh interpreter that imports torch and the engine (~1.5 CPU s, several
seconds of wall on a loaded 2-core server), and so was every replacement of a killed worker.
Here one forkserver process imports them once, and every worker is forked from it, ready in
milliseconds. The forkserver is single-threaded and never computes (torch's OpenMP pool is not
started before a fork), so a forked worker computes the same numbers as a spawned one.

This module imports no torch: a server calls prestart() first thing, and the forkserver's
imports run on the other core beside the server's own.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import sys
import threading
import types

# What a worker reads before its first frame: the worker loop, the frame makers of every
# procedure (engine/frames reads them by name on first use) and scipy.linalg (the maps of the
# default run, engine/mds.py). Only the forkserver and its workers import these.
PRELOAD = ["engine.hub.local", "engine.frames", "engine.procedures.gfl.frames",
           "engine.procedures.resnet3.frames", "engine.procedures.gfl.narrate", "scipy.linalg"]
METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def context(method: str | None = None):
    """The multiprocessing context the hub's workers start from (METHOD unless told)."""
    ctx = multiprocessing.get_context(method or METHOD)
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(PRELOAD)  # read once, when the forkserver starts
    return ctx


def wanted() -> bool:
    """Whether this server will start local workers (not with FEX_WORKERS=0 or on Ray)."""
    return METHOD == "forkserver" and not os.environ.get("FEX_RAY_ADDRESS", "").strip() \
        and os.environ.get("FEX_WORKERS", "").strip() != "0"


def prestart() -> None:
    """Start the forkserver now, without waiting for its imports (later calls: nothing)."""
    if wanted():
        context()
        with bare_main():
            multiprocessing.forkserver.ensure_running()


_MAIN_LOCK = threading.Lock()


@contextlib.contextmanager
def bare_main():
    """A child re-runs the parent's __main__, and under `streamlit run app.py` that is the page
    script (Streamlit installs it as __main__): a worker would import Streamlit and run the app,
    start a hub of its own and fail. A bare __main__ for the moment of the start makes the
    worker import only the engine."""
    with _MAIN_LOCK:
        saved = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if saved is not None:
                sys.modules["__main__"] = saved
