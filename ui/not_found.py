"""'Page not found' for unknown addresses two or more levels deep (an ASGI middleware for st.App).

Streamlit answers every unknown path with its index.html, whose asset links are relative
("./static/js/…"): at /a/b the browser asks for /a/static/js/…, gets index.html again instead of
the script, and shows a blank page. One level deep (/typo) the app itself says "Page not found"
(ui/router.py); deeper paths never reach the app, so this middleware answers them with a small
self-contained page (no script, no external resource) and status 404. Streamlit's own routes
(/_stcore/…, /media/…, /component/…) and its real static files pass through untouched. A
path with a ".." segment gets the same 404 page whether its target exists or not.
"""

from __future__ import annotations

import html
import os
from urllib.parse import unquote

from streamlit import config, file_util

from ui.page_list import PAGES, link

_STYLE = ("body{font-family:system-ui,sans-serif;margin:3rem auto;max-width:40rem;"
          "padding:0 1rem;color:#262730}a{color:#1f5fbf}code{background:#f0f2f6;padding:0 4px}")


def base_path() -> str:
    """The app's URL prefix ('' or '/prefix'), from server.baseUrlPath."""
    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


def page(path: str, base: str = "") -> bytes:
    """The not-found page: the address asked for (escaped) and links to every page."""
    links = " · ".join(f'<a href="{link(p, base)}">{p.title}</a>' for p in PAGES)
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>Page not found</title><style>{_STYLE}</style></head><body>"
            f"<h1>Page not found</h1><p>There is no page at <code>{html.escape(path[:200])}"
            f"</code>.</p><p>The pages are: {links}.</p></body></html>").encode()


def route_prefixes(app) -> set[str]:
    """First path segments of the server's own routes (the catch-all static mount excluded)."""
    base = base_path().strip("/")
    out = set()
    for route in getattr(app, "routes", ()):
        parts = [p for p in getattr(route, "path", "").split("/") if p]
        if base and parts[:1] == [base]:
            parts = parts[1:]
        if parts:
            out.add(parts[0])
    return out


def climbs(parts: list[str]) -> bool:
    """True for a ".." segment (also sent as %2e%2e): browsers resolve them before asking, so
    only a hand-made request has one, and it gets the same answer wherever it points."""
    return ".." in parts


def is_unknown(path: str, prefixes: set[str], static_dir: str) -> bool:
    """True for a path two or more levels deep that no route and no static file answers, and
    for every path that climbs out of the app, whether or not its target exists: Streamlit's
    static handler answered 400 for an existing file there and 404 for a missing one (an
    oracle for the server's files)."""
    base = base_path()
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):]
    parts = [p for p in unquote(path).split("/") if p]
    if climbs(parts):
        return True
    if len(parts) < 2 or parts[0] in prefixes:
        return False
    return not os.path.isfile(os.path.join(static_dir, *parts))


class NotFoundMiddleware:
    """Answer unknown deep paths with page() and 404; everything else goes to Streamlit."""

    def __init__(self, app) -> None:
        self.app = app
        self.static_dir = file_util.get_static_dir()
        self.prefixes: set[str] | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            if self.prefixes is None:  # the routes exist once the app has been built
                self.prefixes = route_prefixes(scope.get("app"))
            if is_unknown(scope["path"], self.prefixes, self.static_dir):
                body = page(scope["path"], base_path())
                await send({"type": "http.response.start", "status": 404, "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-cache")]})
                await send({"type": "http.response.body",
                            "body": b"" if scope["method"] == "HEAD" else body})
                return
        await self.app(scope, receive, send)
