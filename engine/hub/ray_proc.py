"""The hub's Ray driver in a process of its own (FEX_RAY_ADDRESS).

A Ray driver whose cluster stops is ended by Ray's own C++ (exit code 1, no Python hook to
catch): the web server used to go with it. Here only this child process ends; the hub's runs
move to local workers, with one log line and one line on Explore (executor_note).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from multiprocessing.connection import wait

from ..config import ConfigError
from ..forkserver import bare_main
from .local import LocalPool, _die_with_parent
from .ray_pool import GCS_JOIN_S, JOIN_S, NAME, RayPool

START_S = 60.0  # spawning the child (an interpreter importing torch) on a loaded machine
# Ray's driver waits this long for a GCS that stopped answering before it exits (Ray's default
# is 60 s): runs are idle meanwhile, so the server moves them sooner
RECONNECT_S = "15"
GONE = ("Ray's cluster went away (its driver process ended with exit code {code}); runs are "
        "computed on this server")


def ray_main(conn, address: str, factory: str, parent: int) -> None:
    """The child: join the cluster, then apply the hub's commands to a RayPool."""
    _die_with_parent()
    os.environ.setdefault("RAY_gcs_rpc_server_reconnect_timeout_s", RECONNECT_S)
    lock = threading.Lock()

    def send(msg: tuple) -> None:
        with lock:
            conn.send(msg)

    try:
        pool = RayPool(address, factory, lambda m: send(("deliver", m)),
                       lambda keys, busy, code: send(("crashed", keys, busy, code)))
    except ConfigError as err:
        send(("refused", err.allowed))
        return
    send(("size", pool.size))
    while os.getppid() == parent:
        if not conn.poll(1.0):
            continue
        verb, *args = conn.recv()
        if verb == "exit":
            break
        getattr(pool, verb)(*args)  # start, until, finished
        if verb == "start":
            send(("size", pool.size))
    pool.close()
    os._exit(0)  # without Ray's exit hooks (they wait on its threads)


class RayProcessPool:
    """The Ray executor behind a pipe (same interface as LocalPool); local workers once the
    child is gone."""

    def __init__(self, address: str, factory: str, deliver, crashed, workers: int):
        self.address, self.factory, self.workers = address, factory, workers
        self.deliver, self.crashed = deliver, crashed
        self.executor, self.note, self.local = "ray", "", None
        self.keys: set[str] = set()
        self.lock = threading.Lock()
        self.closed, self._size, self.answer = False, 1, threading.Event()
        self.refused = ""
        # started from the reader thread, which lives as long as the pool (PR_SET_PDEATHSIG
        # fires when the thread that started the child ends: local.py)
        threading.Thread(target=self._read, name="fex-hub-ray-reader", daemon=True).start()
        if not self.answer.wait(START_S + JOIN_S + GCS_JOIN_S) or self.refused:
            self.close()
            raise ConfigError(NAME, address, self.refused or "a Ray cluster that this server "
                                                            "joins (none did)")

    @property
    def size(self) -> int:
        return self.local.size if self.local is not None else self._size

    def start(self, key: str, settings: dict, until: int, have: int) -> None:
        if self.local is not None:
            return self.local.start(key, settings, until, have)
        with self.lock:
            self.keys.add(key)
        self._send(("start", key, settings, until, have))

    def until(self, key: str, n: int) -> None:
        if self.local is not None:
            return self.local.until(key, n)
        self._send(("until", key, n))

    def stop(self, key: str) -> None:
        self.finished(key)

    def finished(self, key: str) -> None:
        if self.local is not None:
            return self.local.finished(key)
        with self.lock:
            self.keys.discard(key)
        self._send(("finished", key))

    def queued(self) -> int:
        if self.local is not None:
            return self.local.queued()
        with self.lock:
            return max(0, len(self.keys) - self._size)

    def pids(self) -> list[int]:
        """Processes on this machine (memory.Measured): the driver, or the local workers."""
        if self.local is not None:
            return self.local.pids()
        process = getattr(self, "process", None)
        return [process.pid] if process is not None and process.pid else []

    def _send(self, msg: tuple) -> None:
        try:
            with self.lock:
                self.conn.send(msg)
        except (OSError, ValueError):
            pass  # the child is gone: the reader moves its runs

    def _read(self) -> None:
        """Start the child, then pass its messages on until it ends."""
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=ray_main, name="fex-hub-ray", daemon=True,
                                   args=(child, self.address, self.factory, os.getpid()))
        with bare_main():
            self.process.start()
        child.close()
        while not self.closed:
            ready = wait([self.conn, self.process.sentinel], timeout=0.5)
            if self.conn in ready:
                try:
                    self._take(self.conn.recv())
                    if self.refused:
                        return  # the child ends now: not a cluster that went away
                    continue
                except (EOFError, OSError):
                    pass
            if ready and not self.closed:
                return self._gone()

    def _take(self, msg: tuple) -> None:
        verb = msg[0]
        if verb == "deliver":
            self.deliver(msg[1])
        elif verb == "crashed":
            with self.lock:
                self.keys -= msg[1]
            self.crashed(*msg[1:])
        elif verb == "size":
            self._size = msg[1]
            self.answer.set()
        elif verb == "refused":
            self.refused = msg[1]
            self.answer.set()

    def _gone(self) -> None:
        """The child ended: its runs move to local workers, said once in the log."""
        self.process.join(timeout=2)
        if not self.answer.is_set():  # it never joined: the constructor refuses
            self.refused = f"a Ray cluster that this server joins (the driver process ended " \
                           f"with exit code {self.process.exitcode})"
            self.answer.set()
            return
        self.note = GONE.format(code=self.process.exitcode)
        logging.getLogger(__name__).warning("%s", self.note)
        self.local = LocalPool(self.workers, self.factory, self.deliver, self.crashed)
        self.executor = "local"
        with self.lock:
            keys, self.keys = set(self.keys), set()
        if keys:  # their frames so far stay; the hub restarts them here (or fails a lone one)
            self.crashed(keys, "", f"{self.process.exitcode}: the Ray cluster went away")

    def close(self) -> None:
        self.closed = True
        if self.local is not None:
            self.local.close()
        process = getattr(self, "process", None)
        if process is not None and process.pid is not None:  # a spawn that failed never ran
            self._send(("exit",))
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
