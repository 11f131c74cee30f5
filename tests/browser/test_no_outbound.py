"""Hostile links in a real browser (issue 13): Markdown or HTML in a query value or a key name
must be shown as text, and loading the page must make no request outside the app's origin.

A local HTTP listener on 127.0.0.1 stands for an attacker's server: the links point images and
links at it, and the test asserts it received nothing. Every request the page makes is also
recorded, so a favicon or font fetched from the internet would fail the test too.
"""

from __future__ import annotations

import http.server
import threading
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

EXCEPTION = '[data-testid="stException"]'


class Listener(http.server.ThreadingHTTPServer):
    """Records the path of every request it receives."""

    def __init__(self):
        self.hits: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(h):  # noqa: N802, N805
                self.hits.append(h.path)
                h.send_response(200)
                h.send_header("Content-Type", "image/png")
                h.end_headers()

            def log_message(h, *args):  # noqa: N805
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def hostile_queries(base: str) -> dict[str, str]:
    """id -> query string (already URL-encoded) pointing images and links at the listener."""
    img, link = f"![x]({base}/pixel.png)", f"[click]({base}/link)"
    raw = {
        "markdown image in P": f"labeling=custom&P={quote(img)}",
        "markdown image as a key": f"{quote(img)}=1",
        "markdown image in methods": f"methods={quote(img)}",
        "html img tag in k": "k=" + quote(f'<img src="{base}/html.png">'),
        "link and image in d": f"d={quote(link + ' ' + img)}",
        "long value": "k=" + "9" * 5000,
        "streamlit shortcodes": "T=" + quote(":material/warning: :red[big] :smile: $x^2$"),
        "www and e-mail autolinks": "k=www.evil.example&m=" + quote("x@evil.example"),
    }
    return raw


def test_hostile_links_render_as_text_and_fetch_nothing(page: Page, app_server, server_log,
                                                        wait_for_app, listener):
    server, base = listener
    foreign: list[str] = []
    page.on("request", lambda r: foreign.append(r.url)
            if not r.url.startswith((app_server, "data:", "blob:")) else None)
    for i, (name, query) in enumerate(hostile_queries(base).items()):
        page.goto(f"{app_server}/{('explore', 'compare')[i % 2]}?{query}")
        wait_for_app(page)
        alerts = page.locator('[data-testid="stAlert"]')
        expect(alerts.first).to_be_visible()
        # the escapes put an invisible zero-width space after each colon (engine/echo.py)
        texts = [t.replace("\u200b", "") for t in alerts.all_inner_texts()]
        assert any("Ignored a value from the link" in t for t in texts), (name, texts)
        assert alerts.locator("img, a[href]").count() == 0, name
        if "image" in name:
            assert any("![x](http://127.0.0.1" in t for t in texts), (name, texts)  # literally
        if "shortcodes" in name:  # no icon, colour, emoji or formula: the characters as typed
            assert any(":material/warning: :red[big] :smile: $x^2$" in t for t in texts), texts
        assert all(len(t) < 700 for t in texts), name
        expect(page.locator(EXCEPTION)).to_have_count(0)
        page.wait_for_timeout(300)  # give a late image or favicon time to be requested
    assert server.hits == [], server.hits
    assert foreign == [], foreign
    assert "Traceback" not in server_log
