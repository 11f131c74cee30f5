"""Joining a Ray cluster for `engine sweep --executor ray`, bounded in time (issue 30, finding 3).

A plain TCP listener that is not Ray passed the old connect probe, then ray.init retried for
minutes, opened ~70 connections and, blocked in C++, never let SIGTERM's handler run. So the
address must answer as a gRPC server does (Ray's GCS and its client server both are: an HTTP/2
SETTINGS frame in reply to the connection preface); a stale cluster file is probed the same way;
and from ray.init on, SIGINT and SIGTERM are taken by a watcher thread (sigtimedwait) that ends
the process in one line, as it does when ray.init has not returned within its time.
"""

from __future__ import annotations

import importlib.util
import os
import select
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..config import ConfigError
from ..echo import plain
from .runner import ENGINE

CONNECT_TIMEOUT_S = 10.0  # a cluster head answers a TCP connect at once
JOIN_TIMEOUT_S = 25.0  # ray.init against a head that answered the probe takes seconds
START_TIMEOUT_S = 180.0  # starting a local Ray (no --address) on a loaded machine
WAIT_SLICE_S = 0.2  # the watcher's wait for a signal, between looks at the clock
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
SETTINGS = 0x04  # the frame type a gRPC (HTTP/2) server sends first


def import_ray():
    """The ray module, or a one-line ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--executor", "ray", "local, or install Ray first: pip install "
                          "'ray==2.60.0' (see requirements-test.txt)") from None
    return ray


def check_address(address: str | None, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """ConfigError in at most 2 × timeout_s for an address where no Ray cluster answers: none
    at all, or something that does not speak gRPC. ray:// needs the ray[client] extra."""
    if address in (None, "auto", "local"):
        return
    if address.startswith("ray://"):
        if importlib.util.find_spec("grpc") is None:
            raise ConfigError("--address", address, "auto or HOST:PORT of a cluster head; "
                              "ray:// needs Ray's client: pip install 'ray[client]==2.60.0'")
        hostport = address[len("ray://"):]
    else:
        hostport = address
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError("--address", address, "auto, HOST:PORT or ray://HOST:10001")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as s:
            speaks_grpc = _answers_http2(s, timeout_s)
    except OSError as err:
        raise ConfigError("--address", address, f"a reachable Ray cluster (no answer at "
                          f"{plain(hostport, 80)} within {timeout_s:g} s: "
                          f"{plain(err.strerror or type(err).__name__, 60)})") from None
    if not speaks_grpc:
        raise ConfigError("--address", address, f"a Ray cluster head ({plain(hostport, 80)} "
                          "accepts connections but does not answer as Ray's gRPC server)")


def _answers_http2(sock: socket.socket, timeout_s: float) -> bool:
    """Whether the peer answers HTTP/2's connection preface with a SETTINGS frame."""
    sock.settimeout(timeout_s)
    sock.sendall(PREFACE)
    head = b""
    try:
        while len(head) < 9:
            chunk = sock.recv(9 - len(head))
            if not chunk:
                break
            head += chunk
    except TimeoutError:
        return False
    return len(head) == 9 and head[3] == SETTINGS


def check_recorded(address: str | None) -> None:
    """Without an address Ray joins the cluster its file in /tmp/ray names: a stale file (a
    killed head) made a plain `--executor ray` retry for minutes."""
    record = Path(os.environ.get("RAY_TMPDIR", tempfile.gettempdir())) / "ray" / \
        "ray_current_cluster"
    try:
        recorded = record.read_text()[:300].strip()
    except OSError:
        return
    if not recorded:
        return
    try:
        check_address(recorded)
    except ConfigError as err:
        raise ConfigError("--address", address or "(none)", f"a live cluster: Ray would join "
                          f"{plain(recorded, 80)}, named in {record}, where {err.allowed}; run "
                          "`ray stop`, or give --address local to start a new one") from None


def watch_signals(address: str | None, limit: float) -> threading.Event:
    """From here on SIGINT and SIGTERM go to a watcher thread that ends the process at once,
    as does a ray.init still running after `limit` seconds: Ray's C++ blocks the main thread
    (SIGTERM was ignored for minutes), and every thread Ray starts inherits the block. Set the
    returned event once joined; the rows written so far stay in the store."""
    signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    # a thread started before the block (numpy's OpenBLAS pool) can still take the signal;
    # ray.init then puts a Python handler on SIGTERM that only the held main thread would run
    # (the sweep hung in CI): the C-level handler writes the signal to this pipe from any thread
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    for sig in signals:
        signal.signal(sig, _noted)
    joined, deadline = threading.Event(), time.monotonic() + limit

    def watch() -> None:
        while True:
            got = signal.sigtimedwait(signals, 0)
            ready, _, _ = select.select([read_fd], [], [], WAIT_SLICE_S)
            signo = got.si_signo if got is not None else (
                os.read(read_fd, 1)[0] if ready else None)
            if signo in signals:
                _exit_now(f"error: stopped by {signal.Signals(signo).name} (the rows "
                          "written so far stay in the store)", 128 + signo)
            if not joined.is_set() and time.monotonic() > deadline:
                _exit_now(f"error: --address={plain(str(address), 80)} is not allowed: a Ray "
                          f"cluster that answers (none joined within {limit:g} s)", 2)

    threading.Thread(target=watch, daemon=True, name="signal-watch").start()
    return joined


def _noted(signo, frame) -> None:
    """SIGINT/SIGTERM's Python handler: the watcher thread has it from the wakeup pipe."""


def _exit_now(line: str, code: int) -> None:
    """One line, then end the process without Ray's exit hooks (they wait on its threads)."""
    print(line, file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(code)


def connect(address: str | None = None):
    """Join (or start) the Ray cluster; a one-line ConfigError when there is none to join."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    check_address(address)
    if address in (None, "auto"):
        check_recorded(address)
    if threading.current_thread() is threading.main_thread():  # the CLI, not a test's thread
        joined = watch_signals(address, START_TIMEOUT_S if address in (None, "local")
                               else JOIN_TIMEOUT_S)
    else:
        joined = threading.Event()
    try:
        # the engine package travels with the job; torch and numpy must be on the cluster
        # (the project's Docker image has both; README "Sweeps")
        ray.init(address=address, runtime_env={"py_modules": [str(ENGINE)]},
                 log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise ConfigError("--address", address, "auto (a Ray cluster this machine belongs to) "
                          "or ray://HOST:10001 of a reachable cluster; Ray said: "
                          f"{plain(str(err).splitlines()[0] if str(err) else err, 160)}") from None
    joined.set()
    return ray
