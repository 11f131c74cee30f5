"""The run hub (issue 29): each distinct run computed once, outside the web process.

    hub = get_hub()                    # the process's hub (local workers, or Ray with
                                       # FEX_RAY_ADDRESS), created on first use
    key = hub.subscribe(cfg, watcher)  # watch cfg's run; ConfigError when refused
    hub.want(key, watcher, n)          # the browser asks for n frames
    hub.batch(key, start)              # meta + packed frames from `start`
    hub.leave(watcher)                 # a run nobody watches stops; its frames stay cached

Pure engine: no streamlit, no ui.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading

from ..config import ConfigError
from .budget import hub_enabled, workers_setting
from .hub import FIRST, Hub
from .key import canonical, code_version, run_key
from .local import LocalPool
from .metrics import prometheus
from .ray_proc import RayProcessPool
from .slot import FACTORY
from .store import cache_dir
from .stream import HubStream, RunFailed

_hub: Hub | None = None
_lock = threading.Lock()


def make_hub(workers: int | None = None, factory: str = FACTORY,
             ray_address: str | None = None) -> Hub:
    """A hub on local workers (FEX_WORKERS, default the cores) or on Ray (FEX_RAY_ADDRESS)."""
    address = ray_address or os.environ.get("FEX_RAY_ADDRESS", "").strip() or None
    count = workers or max(1, workers_setting())  # a bad FEX_WORKERS is refused here

    def make_pool(deliver, crashed):
        note = ""
        if address is not None:  # Ray itself is imported only here (an optional dependency)
            try:
                return RayProcessPool(address, factory, deliver, crashed, count)
            except ConfigError as err:  # a hanging or non-Ray address: serve, locally
                note = f"Ray not joined, runs are computed on this server: {err}"
                logging.getLogger(__name__).warning("%s", note)
        pool = LocalPool(count, factory, deliver, crashed)
        pool.note = note
        return pool

    try:
        cache = cache_dir()
    except ConfigError as err:  # e.g. FEX_FRAME_CACHE=/etc/passwd: serve, without the cache
        logging.getLogger(__name__).warning("frame cache off: %s", err)
        cache = None
    return Hub(make_pool, cache)


def get_hub() -> Hub:
    """This process's hub; its workers stop when the process exits."""
    global _hub
    with _lock:
        if _hub is None:
            _hub = make_hub()
            atexit.register(shutdown)
        return _hub


def executor_note() -> str:
    """One line for Explore when FEX_RAY_ADDRESS was set but runs fell back to local workers."""
    hub = _hub
    return getattr(hub.pool, "note", "") if hub is not None and hub.pool is not None else ""


def peek_hub() -> Hub | None:
    """The hub if one was made (for /metrics: a server that never served Explore has none)."""
    return _hub


def shutdown() -> None:
    """Stop the hub's workers (server shutdown)."""
    global _hub
    with _lock:
        hub, _hub = _hub, None
    if hub is not None:
        hub.close()


__all__ = ["FIRST", "Hub", "HubStream", "RunFailed", "canonical", "code_version",
           "executor_note", "get_hub",
           "hub_enabled", "make_hub", "peek_hub", "prometheus", "run_key", "shutdown"]
