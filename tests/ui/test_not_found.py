"""ui/not_found.py: which paths the middleware answers itself, and its page (no browser)."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest
from streamlit import file_util

from ui.not_found import NotFoundMiddleware, is_unknown, page

STATIC = file_util.get_static_dir()
PREFIXES = {"_stcore", "media", "component"}


@pytest.mark.parametrize("path", ["/a/b", "/x/y/z", "/compare/extra", "/static/nope.js/x"])
def test_deep_unknown_paths_are_answered_here(path):
    assert is_unknown(path, PREFIXES, STATIC)


@pytest.mark.parametrize("path", ["/", "/explore", "/typo", "/_stcore/health",
                                  "/media/abc.png", "/component/x/index.html"])
def test_the_app_its_routes_and_one_level_paths_pass_through(path):
    assert not is_unknown(path, PREFIXES, STATIC)


def test_a_real_static_file_passes_through():
    name = sorted(os.listdir(os.path.join(STATIC, "static", "js")))[0]
    assert not is_unknown(f"/static/js/{name}", PREFIXES, STATIC)


def test_the_page_escapes_the_path_and_loads_nothing():
    body = page("/<img src=x onerror=alert(1)>/b").decode()
    assert "<img" not in body and "&lt;img" in body
    assert "<script" not in body and "src=" not in body.replace("src=x", "")
    assert "http" not in body  # no external stylesheet, font or image


def _call(path: str, method: str = "GET") -> tuple[list[dict], list[str]]:
    sent, passed = [], []

    async def app(scope, receive, send):
        passed.append(scope["path"])

    async def send(message):
        sent.append(message)

    mw = NotFoundMiddleware(app)
    mw.prefixes = PREFIXES
    scope = {"type": "http", "method": method, "path": path}
    # in a thread of its own: a browser test earlier in the same process may leave a running loop
    worker = threading.Thread(target=asyncio.run, args=(mw(scope, None, send),))
    worker.start()
    worker.join()
    return sent, passed


def test_the_middleware_answers_404_or_passes_the_request_on():
    sent, passed = _call("/a/b")
    assert passed == [] and sent[0]["status"] == 404 and b"Page not found" in sent[1]["body"]
    assert _call("/a/b", "HEAD")[0][1]["body"] == b""
    assert _call("/compare") == ([], ["/compare"])
    assert _call("/a/b", "POST") == ([], ["/a/b"])
