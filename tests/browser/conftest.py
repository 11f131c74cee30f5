"""Real-browser harness: the app served by `streamlit run`, driven by headless system Chromium.

Fixtures for tests in tests/browser/ (all auto-marked `browser`):

- ``app_server`` (session): base URL, e.g. "http://127.0.0.1:40123", of the app started from
  the repo root with the current interpreter. Pages: f"{app_server}/compare", or
  ``page.goto("compare")`` (pytest-playwright's ``base_url`` is set to it).
- ``server_log`` (per test): live view of what the server logged *during this test*:
  ``assert "Traceback" not in server_log``; ``server_log.text`` (this test), ``server_log.full``.
- ``wait_for_app``: ``wait_for_app(page)`` waits until the app is connected and its script run
  has finished (not usable while a ``run_every`` fragment is ticking: wait on content then).
- ``page``, ``browser``, ``context`` ... come from pytest-playwright; ``browser_type_launch_args``
  is overridden here to launch /usr/bin/chromium (``playwright install`` is never needed).

Without Chromium the browser tests skip, except with CI=true, where they fail; with CI=true any
skipped browser test is reported as a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scripts.serve import CHROMIUM_ARGS, AppServer, find_chromium, start_app, wait_for_app_run

HERE = Path(__file__).resolve().parent


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def _skip_or_fail(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests must run, not skip)", pytrace=False)
    pytest.skip(reason)


def _is_browser_item(item: pytest.Item) -> bool:
    try:
        return Path(item.path).resolve().is_relative_to(HERE)
    except (AttributeError, ValueError):
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # This hook sees the whole session's items, so restrict it to tests/browser/.
    for item in items:
        if _is_browser_item(item):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not _is_browser_item(item):
        return
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"browser test skipped under CI=true, which counts as a failure: {reason}"
    if report.failed and report.when == "call":
        server: AppServer | None = getattr(item.session, "_feature_app_server", None)
        if server is not None:
            tail = "\n".join(server.log_text().splitlines()[-80:])
            report.sections.append(("streamlit server log (last 80 lines)", tail))


# --- browser -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        _skip_or_fail(
            "no system Chromium found (install the Debian package `chromium`, "
            "or set CHROMIUM_PATH); `playwright install` is not used by this project"
        )
    return path


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, chromium_path: str) -> dict:
    """pytest-playwright's launch arguments, pointed at the system Chromium."""
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path,
        "headless": True,
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


# --- app server ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _app_server_handle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    try:
        # the served app's own hub, whatever ran before in this process: tests/ui's package
        # fixture sets FEX_WORKERS=0 (runs in the session), and a run of tests/ui before
        # tests/browser handed it on: a second page then computed its own run (3 frames)
        with pytest.MonkeyPatch.context() as mp:
            mp.delenv("FEX_WORKERS", raising=False)
            server = start_app(app="asgi.py", log_path=log_path, timeout=60.0)  # as run.sh
    except RuntimeError as exc:
        pytest.fail(f"could not start the app: {exc}", pytrace=False)
    request.session._feature_app_server = server
    try:
        yield server
    finally:
        server.stop()
        request.session._feature_app_server = None


@pytest.fixture(scope="session")
def app_server(_app_server_handle: AppServer) -> str:
    """Base URL of the running app (no trailing slash)."""
    return _app_server_handle.url


@pytest.fixture(scope="session")
def base_url(app_server: str) -> str:
    """pytest-playwright's base URL, so `page.goto("/compare")` works too."""
    return app_server + "/"


class ServerLog:
    """Live view of the server log from a starting offset; `in` re-reads the file."""

    def __init__(self, path: Path, start: int = 0):
        self.path, self.start = Path(path), start

    @property
    def full(self) -> str:
        return self.path.read_text(errors="replace") if self.path.exists() else ""

    @property
    def text(self) -> str:
        if not self.path.exists():
            return ""
        with open(self.path, "rb") as f:
            f.seek(self.start)
            return f.read().decode(errors="replace")

    def __contains__(self, needle: str) -> bool:
        return needle in self.text

    def __str__(self) -> str:
        return self.text


@pytest.fixture
def server_log(_app_server_handle: AppServer) -> ServerLog:
    path = _app_server_handle.log_path
    return ServerLog(path, path.stat().st_size if path.exists() else 0)


@pytest.fixture
def wait_for_app():
    return wait_for_app_run
