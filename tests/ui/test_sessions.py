"""The session sweeper frees a session's run only once Streamlit has forgotten the session.

A disconnected session stays resumable for `server.disconnectedSessionTTL` seconds; its browser
may come back (a network blip), so its run must still be there. The manager below stands for
Streamlit's session manager: the sweeper reads nothing from it but `list_sessions()`.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ui import sessions
from ui.state import AppState


class Manager:
    """Streamlit's view of its sessions: connected ones and stored (disconnected) ones."""

    def __init__(self):
        self.active, self.stored = set(), set()

    def list_sessions(self):
        return [SimpleNamespace(session=SimpleNamespace(id=i)) for i in self.active | self.stored]

    def is_active_session(self, sid: str) -> bool:
        return sid in self.active


@pytest.fixture
def tracked(monkeypatch):
    monkeypatch.setattr(sessions, "_states", {})
    monkeypatch.setattr(sessions, "_seen_ended", set())
    states = {}
    for sid in ("open", "blip", "closed"):
        states[sid] = AppState()
        states[sid].explore.stream = object()  # stands for a live run
        sessions.track(sid, states[sid])
    return states


def test_a_disconnected_session_keeps_its_run_until_streamlit_forgets_it(tracked):
    mgr = Manager()
    mgr.active, mgr.stored = {"open"}, {"blip"}
    assert sessions.release_ended(mgr) == 0  # "closed" seen gone once: not yet
    assert sessions.release_ended(mgr) == 1
    assert tracked["closed"].explore.stream is None
    assert tracked["blip"].explore.stream is not None and tracked["open"].explore.stream is not None
    mgr.stored = set()  # the TTL ran out: the session can no longer be resumed
    sessions.release_ended(mgr)
    assert sessions.release_ended(mgr) == 1
    assert tracked["blip"].explore.stream is None and tracked["open"].explore.stream is not None


def test_a_session_back_before_the_second_sweep_keeps_its_run(tracked):
    mgr = Manager()
    mgr.active = {"open", "blip"}
    sessions.release_ended(mgr)  # "closed" seen gone once
    mgr.active.add("closed")  # ... and back (resumed) before the next sweep
    assert sessions.release_ended(mgr) == 0
    assert all(s.explore.stream is not None for s in tracked.values())


def test_outside_a_server_nothing_is_released(tracked):
    assert sessions.release_ended() == 0  # no Streamlit runtime in this process
    assert all(s.explore.stream is not None for s in tracked.values())


def test_an_ended_session_leaves_its_explore_and_compare_runs_on_the_hub(tracked, monkeypatch):
    left = []
    monkeypatch.setattr(sessions, "peek_hub", lambda: SimpleNamespace(leave=left.append))
    mgr = Manager()
    mgr.active = {"open", "blip"}
    sessions.release_ended(mgr)
    assert sessions.release_ended(mgr) == 1
    assert left == ["closed", "closed" + sessions.COMPARE]  # both watchers of the session


# ---------------------------------------------------------------- client_id (issue 38, 8)
# the hub's fair share is per client: these pin down who a client is, on Streamlit's own
# headers object as st.context gives it (peer None: a loopback connection)

def client(peer, *lines, session="s1"):
    from streamlit.runtime.context import StreamlitHeaders

    return sessions.client_of(peer, sessions.header_lines(StreamlitHeaders(lines)), session)


def test_a_remote_peer_is_its_own_client_whatever_it_forwards():
    assert client("203.0.113.7") == "ip:203.0.113.7"
    # a browser's own headers choose nothing: only a proxy on this machine is believed
    assert client("203.0.113.7", ("X-Real-IP", "10.9.9.9"),
                  ("X-Forwarded-For", "10.8.8.8")) == "ip:203.0.113.7"
    assert client("2001:db8::5") == "ip:2001:db8::5"


@pytest.mark.parametrize("peer", [None, "127.0.0.2", "::1"])
def test_a_local_proxy_forwards_the_client(peer):
    assert client(peer, ("X-Real-IP", "198.51.100.4"),
                  ("X-Forwarded-For", "1.1.1.1, 198.51.100.9")) == "ip:198.51.100.4"
    # the proxy's entry is the last of the last line: a browser's forged ones come first
    assert client(peer, ("x-forwarded-for", "1.1.1.1, 198.51.100.9")) == "ip:198.51.100.9"
    assert client(peer, ("X-Forwarded-For", "6.6.6.6"),
                  ("X-Forwarded-For", "198.51.100.9")) == "ip:198.51.100.9"


def test_a_local_connection_forwarding_nothing_is_a_client_per_session():
    assert client(None, session="s1") == "s1"
    assert client(None, ("X-Forwarded-For", " "), session="s2") == "s2"
    assert client(None, ("X-Real-IP", "9" * 500)) == "ip:" + "9" * 64  # kept short
    assert sessions.client_id() == sessions.watcher_id() == "bare"  # outside a session


def test_a_page_builds_its_downloads_only_while_its_browser_is_connected():
    # a disconnected page's downloads stop building (ui/export.Prepared's alive) though
    # Streamlit keeps its session for a possible reconnect; outside a server they always build
    mgr = Manager()
    mgr.active, mgr.stored = {"open"}, {"blip"}
    assert sessions.connected("open", mgr) and not sessions.connected("blip", mgr)
    assert sessions.connected("anything")  # no running server (AppTest, bare mode)
