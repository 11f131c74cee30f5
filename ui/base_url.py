"""Tell Streamlit's page where the server is, so that a page opened by its own address does not
probe for it (an ASGI middleware for st.App, see asgi.py).

Opened at /compare, Streamlit's frontend does not know whether /compare is a page or the app's
prefix: it asks /compare/_stcore/health and /compare/_stcore/host-config first, logs both 404s
as console errors, then tries /. This middleware puts one line of script into the page's HTML
that sets window.__streamlit.BACKEND_BASE_URL (the frontend's own setting for this) to the
address without the page's name, computed in the browser, so it holds behind any proxy prefix.
"""

from __future__ import annotations

import json

from ui.page_list import known_paths

# The app's page addresses (ui.page_list): the last part of a path that names one is a page,
# not part of the server's prefix.
PAGE_SLUGS = tuple(sorted(known_paths() - {""}))
STREAMLIT_ROUTES = ("_stcore", "static", "media", "component", "app")
SCRIPT = ("<script>(function(){var p=location.pathname.replace(/\\/+$/,''),"
          "s=p.split('/').pop();if(%s.indexOf(s)>=0)p=p.slice(0,-s.length-1);"
          "window.__streamlit=Object.assign({},window.__streamlit,"
          "{BACKEND_BASE_URL:location.origin+p+'/'});})()</script>")


def with_base_script(html: bytes) -> bytes:
    """The page's HTML with the script first in <head> (before Streamlit's module loads)."""
    tag = (SCRIPT % json.dumps(list(PAGE_SLUGS))).encode()
    return html.replace(b"<head>", b"<head>" + tag, 1)


def is_page(path: str) -> bool:
    """An address the app answers with its page (no file name, none of Streamlit's routes)."""
    first = path.strip("/").split("/", 1)[0]
    return "." not in path.rsplit("/", 1)[-1] and first not in STREAMLIT_ROUTES


class BackendBaseMiddleware:
    """Add the base-URL script to every HTML page the server sends (its index.html)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not is_page(scope["path"]):
            await self.app(scope, receive, send)
            return
        # the page's 8 KB of HTML uncompressed: the script goes into plain text
        scope = {**scope, "headers": [(k, v) for k, v in scope.get("headers") or []
                                      if k.lower() != b"accept-encoding"]}
        start: dict | None = None
        chunks: list[bytes] = []

        async def patched(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                html = headers.get(b"content-type", b"").startswith(b"text/html")
                if message["status"] == 200 and html and b"content-encoding" not in headers:
                    start = message  # held until the whole body is here
                    return
            elif message["type"] == "http.response.body" and start is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                await _send_patched(send, start, b"".join(chunks))
                return
            await send(message)

        await self.app(scope, receive, patched)


async def _send_patched(send, start: dict, body: bytes) -> None:
    """The held response with the script added and its length corrected."""
    body = with_base_script(body)
    headers = [(k, v) for k, v in start.get("headers") or [] if k != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})
