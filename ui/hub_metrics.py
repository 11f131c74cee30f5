"""The run hub in the served app (asgi.py): GET /metrics in Prometheus text format, and the
hub's workers started with the server and stopped with it."""

from __future__ import annotations

import contextlib
import logging

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
    """The scrape answer (text format 0.0.4)."""
    return PlainTextResponse(prometheus(numbers()),
                             media_type="text/plain; version=0.0.4; charset=utf-8")


@contextlib.asynccontextmanager
async def lifespan(app):
    """Start the workers before the first page asks (a worker imports torch: seconds), and
    stop them with the server."""
    try:
        if hub_enabled():
            get_hub().start()
    except ConfigError as err:  # e.g. no Ray cluster at FEX_RAY_ADDRESS: pages say it later
        logging.getLogger(__name__).warning("run hub not started: %s", err)
    try:
        yield None
    finally:
        shutdown()
