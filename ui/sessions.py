"""Free the runs of sessions Streamlit has forgotten (it keeps ended ones around for a while)."""

from __future__ import annotations

import ipaddress
import threading
import weakref

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from engine.hub import peek_hub

SWEEP_S = 2.0  # how often the sweeper looks for ended sessions
_states: dict[str, weakref.ref] = {}  # session id -> that session's AppState
_seen_ended: set[str] = set()  # found disconnected at the last sweep
_lock = threading.Lock()
COMPARE = ":compare"  # a session watches one Explore run and one Compare run
_sweeper: threading.Thread | None = None


def register(state) -> None:
    """Remember this session's state, and make sure the sweeper runs (once per process)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    track(ctx.session_id, state)
    _start_sweeper()


def watcher_id() -> str:
    """This session's name in the run hub (its Streamlit session id)."""
    ctx = get_script_run_ctx()
    return "bare" if ctx is None else ctx.session_id


def compare_watcher() -> str:
    """This session's Compare page's name in the run hub (beside its Explore run)."""
    return watcher_id() + COMPARE


def client_id() -> str:
    """This session's client for the hub's fair share: the connection's address, or, from a
    proxy on this machine (a loopback peer), the address it forwards (X-Real-IP, else the last
    X-Forwarded-For entry: the one the proxy added). A loopback peer that forwards nothing is
    a client of its own per session (the fair share per session, as before)."""
    try:
        peer, headers = st.context.ip_address, st.context.headers
    except Exception:  # noqa: BLE001 - outside a served session (bare scripts, AppTest)
        return watcher_id()
    return client_of(peer, header_lines(headers), watcher_id())


def header_lines(headers) -> list[tuple[str, str]]:
    """Every (name, value) line of st.context.headers (its mapping gives only a name's first)."""
    return [(k, v) for k in headers for v in headers.get_all(k)]


def client_of(peer: str | None, lines, session: str) -> str:
    """client_id from the connection's peer address (None from loopback, as st.context gives
    it), its header lines ((name, value) pairs, names in any case; a header may come in several
    lines, the proxy's last) and the session's own id."""
    if peer is not None and not _loopback(peer):
        return f"ip:{peer}"
    named: dict[str, list[str]] = {}
    for name, value in lines:
        named.setdefault(str(name).lower(), []).append(str(value))
    # the last entry of the last line: the one the proxy added (a browser's own come before)
    forwarded = ",".join(named.get("x-real-ip") or named.get("x-forwarded-for") or [""])
    forwarded = forwarded.split(",")[-1].strip()[:64]
    return f"ip:{forwarded}" if forwarded else session


def _loopback(peer: str) -> bool:
    try:
        return ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return False


def track(session_id: str, state) -> None:
    """Remember which session a state object belongs to."""
    with _lock:
        _states[session_id] = weakref.ref(state)


def known_ids(manager=None) -> set[str] | None:
    """Ids of the sessions Streamlit still keeps: connected, or disconnected but resumable
    (it holds those for `server.disconnectedSessionTTL` seconds, so that a browser whose
    connection dropped for a moment gets its session back). None outside a running server."""
    try:
        if manager is None:
            from streamlit.runtime import Runtime

            # private API: the public runtime does not list its sessions
            manager = Runtime.instance()._session_mgr
        infos = manager.list_sessions()
    except Exception:  # noqa: BLE001 - no server (AppTest, bare mode) or a changed internal
        return None
    return {info.session.id for info in infos}


def connected(session_id: str, manager=None) -> bool:
    """Whether the session's browser is connected now (True outside a running server): a page
    whose connection closed stops building its downloads (ui/export.Prepared)."""
    try:
        if manager is None:
            from streamlit.runtime import Runtime

            manager = Runtime.instance()._session_mgr  # private API, as known_ids
        return bool(manager.is_active_session(session_id))
    except Exception:  # noqa: BLE001 - no server (AppTest, bare mode) or a changed internal
        return True


def release_ended(manager=None) -> int:
    """Drop run and data of every registered session Streamlit has forgotten.

    A session that is merely disconnected keeps its run: a network blip of a few seconds
    (a flaky classroom network, a busy server) must not cost a student the run they watch.
    """
    known = known_ids(manager)
    if known is None:
        return 0
    released = 0
    with _lock:
        ended = {s for s in _states if s not in known}
        # only sessions found ended at two sweeps in a row: a script run that was under way
        # when the session went has finished by then
        for sid in ended & _seen_ended:
            hub = peek_hub()
            if hub is not None:  # its hub run stops unless another session watches it
                hub.leave(sid)
                hub.leave(sid + COMPARE)
            state = _states.pop(sid)()
            if state is not None and (state.explore.stream is not None
                                      or state.compare.stream is not None):
                # no st.* here: plain attribute writes on the ended session's own object
                state.compare.playing = False
                state.explore.stream = state.explore.run_cfg = None  # its run and data
                state.compare.stream = state.compare.key = None  # its seeds' runs and data
                released += 1
        _seen_ended.clear()
        _seen_ended.update(ended)
        _seen_ended.intersection_update(_states)
    return released


def _sweep() -> None:
    while True:
        threading.Event().wait(SWEEP_S)
        release_ended()


def _start_sweeper() -> None:
    global _sweeper
    with _lock:
        if _sweeper is None or not _sweeper.is_alive():
            _sweeper = threading.Thread(target=_sweep, name="explore-session-sweeper",
                                        daemon=True)
            _sweeper.start()
