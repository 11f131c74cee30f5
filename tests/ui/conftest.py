"""AppTest runs each page's script in this process, one tick per at.run(): its runs are
computed in the session (FEX_WORKERS=0), so a test's ticks decide exactly which frames exist.
The hub's path is tested on a served app (tests/browser/test_hub_pages.py) and in
tests/engine/test_hub*.py. Package-scoped (tests/ui only, undone after it): module-scoped
fixtures run pages before a function-scoped fixture would set it."""

import pytest


@pytest.fixture(autouse=True, scope="package")
def _runs_in_the_session():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FEX_WORKERS", "0")
        mp.delenv("FEX_RAY_ADDRESS", raising=False)
        yield


@pytest.fixture(scope="module")
def one_worker():
    """The module's pages use the hub (one worker), as a served app does."""
    from engine import hub as hubs

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FEX_WORKERS", "1")
        yield
        hubs.shutdown()
