"""Worker processes on this machine: each computes the runs given to it, one chunk of steps per
run in turn (round-robin), and sends their frames back over its own pipe.

A pipe per worker, not one shared queue: a worker killed while writing would leave a shared
queue's lock held and stall every other worker. The hub's reader thread waits on every pipe and
every process sentinel at once, so a dead worker is seen at once and fails only its run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time
from collections import deque
from multiprocessing.connection import wait

import torch

from ..forkserver import bare_main, context
from . import memory
from .slot import CHUNK_S, Slot

IDLE_POLL_S = 1.0  # an idle worker checks this often that the server still lives
START_TRIES = 10  # starts of a worker while a dead forkserver is not yet seen dead


def _die_with_parent() -> None:
    """Linux: the kernel ends this worker when the server process dies (even by SIGKILL)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere the parent-pid check below does it


def worker_main(conn, busy, factory: str, env: dict) -> None:
    """A worker's loop: take commands, give each run with work a turn, send what it made."""
    _die_with_parent()
    # A forked worker's environment is the forkserver's (made at its start): the server's, now
    os.environ.clear()
    os.environ.update(env)
    parent = os.getppid()  # the server (spawned) or the forkserver, which ends with the server
    torch.set_num_threads(1)  # one thread per run: the pool is sized to the cores
    slots: dict[str, Slot] = {}
    order: deque[str] = deque()
    while os.getppid() == parent:
        idle = not any(s.wants() for s in slots.values())
        if conn.poll(IDLE_POLL_S if idle else 0):
            if not _command(conn.recv(), slots, order, factory):
                return
            continue
        key = _next(order, slots)
        if key is None:
            continue
        busy.value = key.encode()
        for msg in slots[key].turn(CHUNK_S):
            conn.send(msg)
        busy.value = b""
        if slots[key].finished:
            del slots[key]
            order.remove(key)
            memory.release()  # the run's tensors back to the system, not kept by malloc


def _command(msg: tuple, slots: dict, order: deque, factory: str) -> bool:
    """Apply one command from the hub; False to exit."""
    verb = msg[0]
    if verb == "exit":
        return False
    if verb == "start":
        _, key, settings, until, have = msg
        slots[key] = Slot(key, settings, until, have, factory)
        if key not in order:
            order.append(key)
    elif verb == "until" and msg[1] in slots:
        slots[msg[1]].until = max(slots[msg[1]].until, msg[2])
    elif verb == "stop" and msg[1] in slots:
        del slots[msg[1]]
        order.remove(msg[1])
        memory.release()
    return True


def _next(order: deque, slots: dict) -> str | None:
    """The next run in turn that has work (the others wait for their watchers' asks)."""
    for _ in range(len(order)):
        order.rotate(-1)
        if slots[order[-1]].wants():
            return order[-1]
    return None


class Worker:
    """The hub's handle on one worker process."""

    def __init__(self, ctx, index: int, factory: str):
        self.index = index
        self.conn, child = ctx.Pipe(duplex=True)
        self.busy = ctx.Array("c", 40, lock=False)
        self.process = ctx.Process(target=worker_main, name=f"fex-hub-worker-{index}",
                                   args=(child, self.busy, factory, dict(os.environ)), daemon=True)
        with bare_main():
            self.process.start()
        child.close()
        self.keys: set[str] = set()
        self.lock = threading.Lock()

    def send(self, msg: tuple) -> bool:
        """Send a command; False when the worker is gone (its death is reported separately)."""
        try:
            with self.lock:
                self.conn.send(msg)
            return True
        except (OSError, ValueError):
            return False

    def busy_key(self) -> str:
        return bytes(self.busy.value).decode(errors="replace")


class LocalPool:
    """FEX_WORKERS processes; a run stays on the worker it started on (its state lives there)."""

    executor = "local"

    def __init__(self, workers: int, factory: str, deliver, crashed, method: str | None = None):
        # forked from the forkserver (engine/forkserver.py), never from this process: a fork
        # of the server would copy its threads and torch's thread pools
        self.ctx = context(method)
        self.factory, self.deliver, self.crashed = factory, deliver, crashed
        self.workers: list[Worker] = []
        self.where: dict[str, Worker] = {}
        self.closed = False
        self.lock = threading.Lock()
        # The workers are started by the reader thread, which lives as long as the pool:
        # PR_SET_PDEATHSIG fires when the *thread* that forked a worker exits, and a
        # Streamlit script run (the lazy start under `streamlit run app.py`) is a short thread,
        # so workers it started were killed when that page's run ended (issue 37).
        ready = threading.Event()
        self.reader = threading.Thread(target=self._read, args=(workers, ready),
                                       name="fex-hub-reader", daemon=True)
        self.reader.start()
        ready.wait()
        if len(self.workers) != workers:
            raise RuntimeError("the hub's worker processes could not be started")

    @property
    def size(self) -> int:
        return len(self.workers)

    def start(self, key: str, settings: dict, until: int, have: int) -> None:
        """Give a run to the worker with the fewest runs."""
        with self.lock:
            worker = min(self.workers, key=lambda w: (len(w.keys), w.index))
            worker.keys.add(key)
            self.where[key] = worker
        worker.send(("start", key, settings, until, have))

    def until(self, key: str, n: int) -> None:
        worker = self.where.get(key)
        if worker is not None:
            worker.send(("until", key, n))

    def stop(self, key: str) -> None:
        self.finished(key)

    def finished(self, key: str) -> None:
        """The run is done or unwatched: its worker drops it."""
        with self.lock:
            worker = self.where.pop(key, None)
            if worker is not None:
                worker.keys.discard(key)
        if worker is not None:
            worker.send(("stop", key))

    def queued(self) -> int:
        """Runs waiting behind another run on their worker."""
        with self.lock:
            return sum(max(0, len(w.keys) - 1) for w in self.workers)

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers]

    def _read(self, count: int, ready: threading.Event) -> None:
        """Start the workers, then deliver their messages and replace one that died."""
        try:
            with self.lock:
                self.workers = [self._worker(i) for i in range(count)]
        finally:
            ready.set()
        while not self.closed:
            with self.lock:
                conns = {w.conn: w for w in self.workers}
                deaths = {w.process.sentinel: w for w in self.workers}
            for ready in wait([*conns, *deaths], timeout=0.5):
                if ready in conns:
                    try:
                        self.deliver(ready.recv())
                    except (EOFError, OSError):
                        pass  # the sentinel reports the death
                elif not self.closed:
                    self._replace(deaths[ready])

    def _replace(self, dead: Worker) -> None:
        """A worker died: its busy run fails, its other runs move, a fresh worker takes its
        place."""
        dead.process.join(timeout=1)  # reaped first: its exit code is known after
        busy, exitcode = dead.busy_key(), dead.process.exitcode
        with self.lock:
            fresh = self._worker(dead.index)
            self.workers[dead.index] = fresh
            keys = set(dead.keys)
            for key in keys:
                self.where.pop(key, None)
        dead.conn.close()
        self.crashed(keys, busy, exitcode)

    def _worker(self, index: int) -> Worker:
        """A fresh worker. A forkserver that died (its workers die with it) is seen dead a
        moment after its pipes close, and only then started again: a start in that moment fails
        and is tried again."""
        for _ in range(START_TRIES - 1):
            with contextlib.suppress(OSError, EOFError):
                return Worker(self.ctx, index, self.factory)
            time.sleep(0.2)
        return Worker(self.ctx, index, self.factory)

    def close(self) -> None:
        """Stop every worker (the server is going down)."""
        self.closed = True
        for w in self.workers:
            w.send(("exit",))
        for w in self.workers:
            w.process.join(timeout=2)
            if w.process.is_alive():
                w.process.kill()
