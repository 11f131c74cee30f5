"""AppTest runs each page's script in this process, one tick per at.run(): its runs are
computed in the session (FEX_WORKERS=0), so a test's ticks decide exactly which frames exist.
The hub's path is tested on a served app (tests/browser/test_hub_pages.py) and in
tests/engine/test_hub*.py."""

import pytest


@pytest.fixture(autouse=True)
def _runs_in_the_session(monkeypatch):
    monkeypatch.setenv("FEX_WORKERS", "0")
    monkeypatch.delenv("FEX_RAY_ADDRESS", raising=False)
