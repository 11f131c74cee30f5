"""Issue 38 High 2: an Explore page's downloads on the hub are admitted and counted. Each page
of a complete m = 2 000, T = 600 run built ~200 MB of downloads (offline player, GIF) beside
the hub's count, and a wave of such pages took the web process past FEX_HUB_MEMORY_MB."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine import hub as hubs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LINK = {"n": "600", "n_test": "200", "T": "6", "m": "8", "d": "40", "D": "20", "batch": "100"}

pytestmark = pytest.mark.usefixtures("one_worker")  # tests/ui/conftest.py


def complete_page() -> AppTest:
    """A page on LINK whose run has every frame, its downloads asked for."""
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in LINK.items():
        at.query_params[name] = value
    at.run()
    for _ in range(200):
        stream = at.session_state["app"].explore.stream
        if stream.done and len(stream) == int(LINK["T"]) + 1:
            break
        at.session_state["app"].explore.player["want"] = int(LINK["T"]) + 1
        time.sleep(0.1)
        at.run()
    # the player's "held" (player_view._on_held): the run's batch arrived, the timer stops
    at.session_state["app"].explore.player["held"] = len(stream)
    at.run()
    return at.run()


def prepared(at: AppTest):
    return at.session_state["app"].explore.player["files"][1]


def test_a_pages_downloads_count_against_the_hub_and_a_full_hub_defers_them(monkeypatch):
    at = complete_page()
    prepared(at).thread.join(120)
    hub, watcher = hubs.peek_hub(), at.session_state["app"].explore.stream.watcher
    kept = sum(len(f) for f in prepared(at).files.values())
    assert kept > 0 and hub.payloads.files[watcher] == 2 * kept  # its files and their buttons'
    assert not hub.payloads.leases  # the build's peak went when it ended
    # room for one more page of this run, not for its downloads' peak (~30 MB)
    monkeypatch.setenv("FEX_HUB_MEMORY_MB", f"{hub.metrics()['memory_mb'] + 12:.1f}")
    second = complete_page()
    assert "files" not in second.session_state["app"].explore.player
    assert any("not prepared now: the server is full" in c.value for c in second.caption)
    assert not any(b.label == "Offline player (HTML)" for b in second.get("download_button"))
