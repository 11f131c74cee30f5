"""Paths outside the app, over real HTTP against `streamlit run asgi.py` (no browser).

Streamlit's static handler answered 400 for a path that climbed out to an existing file and 404
for a missing one: an oracle for which files the server has (issue 30, finding 10).
"""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest

from scripts.serve import start_app

UP = 40  # more ".." than any install's depth: every climb reaches /


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with start_app(log_path=tmp_path_factory.mktemp("srv") / "server.log") as app:
        yield app


def _get(server, path: str) -> tuple[int, bytes]:
    host, port = server.url.split("//")[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    conn.request("GET", path)  # sent as written: http.client does not normalise ".."
    resp = conn.getresponse()
    return resp.status, resp.read()


@pytest.mark.parametrize("dots", ["..", "%2e%2e", "%2E%2E", ".%2e"])
@pytest.mark.parametrize("under", ["/static/js/", "/static/", "/x/y/"])
def test_a_path_outside_the_app_is_answered_alike_whether_it_exists(server, tmp_path, dots,
                                                                     under):
    there = tmp_path / "secret.txt"
    there.write_text("not for the web")
    climb = under + f"{dots}/" * UP
    seen = {_get(server, climb + str(p).lstrip("/"))[0]
            for p in (there, Path("/etc/hostname"), tmp_path / "missing.txt")}
    assert seen == {404}, (under, dots, seen)
    status, body = _get(server, climb + str(there).lstrip("/"))
    assert b"not for the web" not in body and b"Page not found" in body


def test_the_app_and_its_static_files_still_answer(server):
    assert _get(server, "/")[0] == 200
    assert _get(server, "/_stcore/health") == (200, b"ok")
    assert _get(server, "/static/js/../../index.html")[0] == 404  # a hand-made climb, inside
