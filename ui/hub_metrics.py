"""The run hub in the app: GET /metrics in Prometheus text format (asgi.py), and the hub's
workers started the same way by every entry point (start_hub: asgi.py's lifespan at server
start, app.py's first page under `streamlit run app.py`) and stopped with the server."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading

from starlette.requests import Request
from starlette.responses import PlainTextResponse

from engine.config import ConfigError
from engine.hub import get_hub, hub_enabled, peek_hub, prometheus, shutdown
from engine.hub.budget import Budget
from ui import sessions


def numbers() -> dict:
    """The hub's counters (zeros before any Explore page made it), with the server's sessions."""
    hub = peek_hub()
    out = hub.metrics() if hub is not None else {"executor": Budget.executor()}
    known = sessions.known_ids()  # Streamlit's sessions, connected or resumable
    if known is not None:
        out["sessions"] = len(known)
    return out


async def endpoint(request: Request) -> PlainTextResponse:
    """The scrape answer (text format 0.0.4), read in a thread: the hub's lock is never waited
    on in the event loop (a slow start or a busy hub must not stall every page)."""
    return PlainTextResponse(prometheus(await asyncio.to_thread(numbers)),
                             media_type="text/plain; version=0.0.4; charset=utf-8")


_started = threading.Event()
_start_lock = threading.Lock()


def start_hub() -> None:
    """Start the hub's workers once per process (later calls return at once; a worker imports
    torch: seconds; joining Ray at most engine.hub.ray_pool.JOIN_S, then local workers); a hub
    that cannot start is logged once, and the pages say why when they subscribe."""
    if _started.is_set():
        return
    with _start_lock:
        if _started.is_set():
            return
        try:
            if hub_enabled():
                get_hub().start()
        except ConfigError as err:  # e.g. no Ray cluster at FEX_RAY_ADDRESS: pages say it later
            logging.getLogger(__name__).warning("run hub not started: %s", err)
        _started.set()


@contextlib.asynccontextmanager
async def lifespan(app):
    """Start the workers before the first page asks, in a thread: the server answers at once
    whatever FEX_RAY_ADDRESS does (a hanging one kept it from serving); stop them with it."""
    threading.Thread(target=start_hub, name="fex-hub-start", daemon=True).start()
    try:
        yield None
    finally:
        shutdown()
