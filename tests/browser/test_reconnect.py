"""A dropped connection costs nothing: the browser reconnects to its session, run intact.

Streamlit keeps a disconnected session for `server.disconnectedSessionTTL` seconds (120 by
default) and the browser resumes it on reconnecting. The app's session sweeper (ui/sessions.py)
used to free the run of any session not connected at two sweeps (2-4 s), so a drop of a few
seconds came back to a fresh run at step 0. Here the page's WebSocket is closed and the server's
health check is refused for 8 s (the browser only reconnects once that answers).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.test_explore import EXCEPTION, PLAYER, open_small, shown, wait_step

KEEP_SOCKETS = """window.__sockets = [];
window.WebSocket = class extends window.WebSocket {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};"""
OPEN_SOCKET = "() => window.__sockets.some(s => s.readyState === WebSocket.OPEN)"


def test_a_connection_dropped_for_8_s_comes_back_to_the_same_run(page: Page, server_log,
                                                                  wait_for_app) -> None:
    page.add_init_script(KEEP_SOCKETS)
    open_small(page, wait_for_app)
    for step in (1, 2, 3):
        page.click(f"{PLAYER} .fe-step")
        wait_step(page, step)
    run = shown(page)["run"]

    refuse = lambda route: route.abort()  # noqa: E731 - the browser sees the server down
    page.route("**/_stcore/health", refuse)
    page.route("**/_stcore/host-config", refuse)
    page.evaluate("() => window.__sockets.forEach(s => s.close())")
    page.wait_for_timeout(8000)  # several sweeps of ui/sessions.py (every 2 s)
    assert not page.evaluate(OPEN_SOCKET), "the browser reconnected while refused"
    page.unroute("**/_stcore/health")
    page.unroute("**/_stcore/host-config")
    page.wait_for_function(OPEN_SOCKET, timeout=60_000, polling=200)

    # The next frame must come from the same run on the server. After a reconnect Streamlit
    # re-renders the page, and the player is out of the DOM for a moment (then moved into its
    # new container): a press in that moment can be lost, so press again if nothing came.
    moved = f"""r => {{ const e = document.querySelector('{PLAYER}');
        return !!e && (+e.dataset.step >= 4 || e.dataset.run !== r); }}"""
    for _ in range(3):
        page.click(f"{PLAYER} .fe-step")
        try:
            page.wait_for_function(moved, arg=run, timeout=20_000, polling=50)
            break
        except PlaywrightTimeout:
            continue
    page.wait_for_timeout(1500)  # a rebuilt run would have reached the browser by now
    # the old sweeper: a new run (new id), back at step 0
    now = shown(page)
    assert now["run"] == run and int(now["step"]) >= 4, now
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
