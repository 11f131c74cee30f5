"""GET /metrics: the run hub's numbers in Prometheus text format (asgi.py routes it here)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse

from engine.hub import peek_hub, prometheus
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
