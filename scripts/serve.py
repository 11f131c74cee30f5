"""Start the Streamlit app on a free local port and wait until it is healthy.

Shared by the browser tests (tests/browser/conftest.py) and scripts/screenshots.py:

    from scripts.serve import start_app, wait_for_app_run

    with start_app() as server:    # streamlit run asgi.py on 127.0.0.1:<free port>
        page.goto(server.url)
        wait_for_app_run(page)     # connected, script run finished
        print(server.log_text())

The server runs in its own process group with stdout+stderr captured to a log file; `stop()`
kills the whole group.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HEALTH_PATH = "/_stcore/health"

# Chromium flags for headless use in containers and CI: no sandbox, no GPU, no background traffic.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    """Path of a system Chromium: $CHROMIUM_PATH, `chromium`/`chromium-browser` on PATH, or None."""
    env = os.environ.get("CHROMIUM_PATH")
    if env:
        return env if os.access(env, os.X_OK) else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(path, os.X_OK):
            return path
    return None


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def health_ok(base_url: str, timeout: float = 2.0) -> bool:
    """True when GET <base_url>/_stcore/health answers 200 "ok"."""
    try:
        with urllib.request.urlopen(base_url + HEALTH_PATH, timeout=timeout) as resp:
            return resp.status == 200 and resp.read().strip() == b"ok"
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


@dataclass
class AppServer:
    """A running `streamlit run` process."""

    url: str
    port: int
    log_path: Path
    process: subprocess.Popen

    def log_text(self) -> str:
        """Everything the server wrote to stdout/stderr so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM the process group, then SIGKILL if it does not exit within `timeout`."""
        if self.process.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _tail(text: str, lines: int = 60) -> str:
    return "\n".join(text.splitlines()[-lines:])


def start_app(
    *,
    app: str = "asgi.py",
    host: str = "127.0.0.1",
    port: int | None = None,
    log_path: str | os.PathLike | None = None,
    extra_args: Sequence[str] = (),
    python: str = sys.executable,
    timeout: float = 60.0,
    attempts: int = 3,
) -> AppServer:
    """Start `python -m streamlit run <app>` from the repo root and wait for /_stcore/health.

    The default is what scripts/run.sh and the Docker image serve (asgi.py: app.py with the
    middlewares); `streamlit run app.py` logs two 404s on a page opened by its own address.

    With `port=None` a free port is chosen (and re-chosen if another process grabs it first).
    Raises RuntimeError, with the tail of the server log, if the server exits or is not
    healthy within `timeout` seconds.
    """
    log_path = _log_file(log_path)
    last_error = ""
    for _ in range(attempts if port is None else 1):
        use_port = port if port is not None else free_port(host)
        cmd = [
            python, "-m", "streamlit", "run", app,
            "--server.headless", "true",
            "--server.address", host,
            "--server.port", str(use_port),
            "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
            *extra_args,
        ]  # fmt: skip
        server = AppServer(f"http://{host}:{use_port}", use_port, log_path,
                           _launch(cmd, log_path))
        if _healthy_within(server, timeout):
            return server
        alive = server.alive()
        server.stop()
        what = f"did not become healthy within {timeout:.0f} s" if alive else "exited"
        last_error = (
            f"streamlit {what} (port {use_port}, log {log_path}):\n{_tail(server.log_text())}"
        )
        if alive or "already in use" not in server.log_text():
            break  # only a port collision is worth another attempt
    raise RuntimeError(last_error)


def _log_file(log_path: str | os.PathLike | None) -> Path:
    """The server log's path (a fresh temporary file when none is given), its folder made."""
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix="streamlit-", suffix=".log")
        os.close(fd)
        log_path = name
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    return log_path


def _launch(cmd: list[str], log_path: Path) -> subprocess.Popen:
    """Start cmd from the repo root, its output appended to the log, in its own process group
    (so that stop() kills streamlit and its children)."""
    env = dict(os.environ)
    env.update(PYTHONUNBUFFERED="1", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    with open(log_path, "ab") as log:
        log.write(f"$ {' '.join(cmd)}\n".encode())
        log.flush()
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _healthy_within(server: AppServer, timeout: float) -> bool:
    """Poll /_stcore/health until it answers, the process exits, or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.alive():
            return False
        if health_ok(server.url):
            return True
        time.sleep(0.25)
    return False


def wait_for_app_run(page: Any, timeout_ms: float = 60_000) -> None:
    """Wait until a Playwright page shows a connected Streamlit app whose script run has finished.

    Note: while a `run_every` fragment is ticking the app reports "running"; wait on content
    (e.g. a step counter) instead in that case.
    """
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout_ms
    )
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms
    )
