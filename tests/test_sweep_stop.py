"""A sweep always stops (issue 30, findings 3 and 11): its worker processes and the resource
tracker die with it, even after kill -9; SIGTERM and Ctrl-C end it; a listener that is not Ray
ends a Ray sweep in one line within 30 s."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 20, "T": 60, "batch": 100}
SETS = [arg for k, v in TINY.items() for arg in ("--set", f"{k}={v}")]
GRID = ["--grid", "k=1,3,5", "--grid", "p_o=0.2,0.4,0.6", "--seeds", "2",
        "--methods", "network,ntk"]


def alive(pid: int) -> bool:
    """pid runs (a zombie nobody reaps in a container counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def descendants(pid: int) -> set[int]:
    """Every process below pid (from /proc: no psutil in the lock files)."""
    parent = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text()
                                              .rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, todo = set(), [pid]
    while todo:
        here = todo.pop()
        kids = [p for p, pp in parent.items() if pp == here]
        out.update(kids)
        todo += kids
    return out


def start(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "engine", "sweep", *SETS, *GRID, *extra,
                             "--quiet", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_rows(proc: subprocess.Popen, db: Path, rows: int, timeout: float = 180) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)  # never creates the file
            if con.execute("SELECT COUNT(*) FROM results").fetchone()[0] >= rows:
                return
        except sqlite3.Error:  # not created yet
            pass
        time.sleep(0.1)
    raise AssertionError(f"no {rows} rows: {proc.poll()} {proc.stderr.read()[-2000:]}")


def test_kill_9_takes_the_workers_and_the_resource_tracker_with_it(tmp_path):
    """Finding 11: both workers and the resource tracker outlived the sweep by minutes."""
    proc = start(tmp_path / "s", "--workers", "2")
    try:
        wait_rows(proc, tmp_path / "s.sqlite", 2)
        kids = descendants(proc.pid)
        assert len(kids) >= 3, kids  # two workers and the resource tracker
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.time() + 10
        while time.time() < deadline and any(alive(p) for p in kids):
            time.sleep(0.2)
        left = [p for p in kids if alive(p)]
        assert not left, [Path(f"/proc/{p}/cmdline").read_text() for p in left]
    finally:
        for pid in {proc.pid, *descendants(proc.pid)}:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sigterm_and_ctrl_c_stop_a_sweep_with_its_workers(tmp_path):
    for i, sig in enumerate((signal.SIGTERM, signal.SIGINT)):
        proc = start(tmp_path / f"s{i}", "--workers", "2")
        wait_rows(proc, tmp_path / f"s{i}.sqlite", 1)
        kids = descendants(proc.pid)
        proc.send_signal(sig)
        try:
            proc.wait(20)
        finally:
            if proc.poll() is None:
                proc.kill()
        deadline = time.time() + 10
        while time.time() < deadline and any(alive(p) for p in kids):
            time.sleep(0.2)
        assert not [p for p in kids if alive(p)], sig
        assert "Traceback" not in proc.stderr.read(), sig


class NotRay:
    """A plain TCP listener on 127.0.0.1 that accepts, reads and says nothing (not Ray); it
    stops itself after `life` seconds and counts its connections."""

    def __init__(self, life: float = 60):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.5)
        self.port, self.connections, self.until = self.sock.getsockname()[1], 0, time.time() + life
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        held = []
        while time.time() < self.until:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            held.append(conn)
        for conn in held:
            conn.close()
        self.sock.close()

    def stop(self) -> None:
        self.until = 0
        self.thread.join(5)


def test_a_listener_that_is_not_ray_ends_in_one_line_within_30_s(tmp_path):
    """Finding 3: the TCP probe passed, then Ray retried for minutes and ignored SIGTERM."""
    listener = NotRay()
    try:
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "engine", "sweep", *SETS, "--grid", "k=1,3",
                              "--executor", "ray", "--address", f"127.0.0.1:{listener.port}",
                              "--out", str(tmp_path / "s")], cwd=ROOT, capture_output=True,
                             text=True, timeout=90)
        seconds = time.perf_counter() - t0
    finally:
        listener.stop()
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr[-3000:]
    assert lines[0].startswith("error: --address=") and str(listener.port) in lines[0], lines
    assert seconds < 30, seconds
    assert list(tmp_path.iterdir()) == []


class SaysSettings(NotRay):
    """A listener that answers HTTP/2's preface with a SETTINGS frame, then nothing: it passes
    the probe, so ray.init runs and holds the main thread (the probe cannot tell it from a
    head)."""

    def serve(self) -> None:
        held = []
        while time.time() < self.until:
            try:
                conn, _ = self.sock.accept()
                conn.sendall(b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            except OSError:
                continue
            self.connections += 1
            held.append(conn)
        for conn in held:
            conn.close()
        self.sock.close()


def test_sigterm_stops_a_sweep_that_ray_holds(tmp_path):
    """Finding 3: blocked in ray.init, the sweep ignored SIGTERM; now a watcher thread takes it."""
    listener = SaysSettings(life=120)
    proc = subprocess.Popen([sys.executable, "-m", "engine", "sweep", *SETS, "--grid", "k=1,3",
                             "--executor", "ray", "--address", f"127.0.0.1:{listener.port}",
                             "--out", str(tmp_path / "s")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while listener.connections < 1 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)  # the probe passed: ray.init starts (Ray itself dials the node's
        assert listener.connections >= 1, proc.poll()  # address for 127.0.0.1, not ours)
        time.sleep(4)
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        proc.send_signal(signal.SIGTERM)
        t0 = time.perf_counter()
        _, err = proc.communicate(timeout=15)
        assert time.perf_counter() - t0 < 10
        assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err[-2000:])
        assert "error: stopped by SIGTERM" in err
    finally:
        if proc.poll() is None:
            proc.kill()
        listener.stop()
