"""Giving freed memory back to the system, and what one session's pages cost the web process.

glibc keeps the arenas of freed Python objects (a dropped run's frames, a finished run's
tensors): the server stayed at 3 309 MB RSS with no session left (issue 38). After a run is
dropped or ends, a full collection and malloc_trim(0) return them. Elsewhere (musl, macOS) only
the collection runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import time

MIN_GAP_S = 2.0  # a trim walks the heap (~10 ms per GB): not more often than this
# the web process's copies of one batch it serves a session: the joined base64 and lists, the
# component's JSON, its protobuf and the WebSocket frame (measured by bench/hub_memory.py)
PAYLOAD_COPIES = 4
_last = [0.0]


@functools.lru_cache(maxsize=1)
def _libc():
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        return libc if libc is not None and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def release(force: bool = False) -> bool:
    """Collect and return free heap pages to the system (rate-limited); whether it ran."""
    now = time.monotonic()
    if not force and now - _last[0] < MIN_GAP_S:
        return False
    _last[0] = now
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
    return True


def trimmer(hub) -> None:
    """A hub's thread: collect and trim after runs were dropped (hub.freed set), at most every
    MIN_GAP_S, until the hub closes; never under the hub's lock."""
    while not hub.closed:
        if hub.freed.wait(1.0):
            time.sleep(MIN_GAP_S)  # several drops in a row: one trim
            hub.freed.clear()
            release(force=True)


def payload_bytes(frames: dict) -> int:
    """Bytes a packed batch (packing.join) holds in the web process while it is served."""
    total = 0
    for value in frames.values():
        if isinstance(value, str):
            total += len(value)
        else:  # a value per frame: text by its length, numbers and small lists ~16 B
            total += 64 + sum(len(v) if isinstance(v, str) else 16 for v in value)
    return PAYLOAD_COPIES * total


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process in MB, from /proc (0 where there is none: not Linux, gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


class Measured:
    """What the hub's processes really hold: the web process's growth since the hub was made
    and its workers' resident memory. The hub counts this where it exceeds its own tally
    (fragmentation, Streamlit's sessions, copies the tally misses: the web process reached
    3 310 MB while the tally said 2 555 of 2 560 MB, issue 38). Read at most every EVERY_S."""

    EVERY_S = 0.5

    def __init__(self):
        self.base = rss_mb()
        self.at, self.value = 0.0, 0.0

    def beyond(self, pool, tally: float) -> float:
        """MB the processes hold beyond the hub's tally (0 where the tally is larger)."""
        return max(0.0, self.mb(pool) - tally)

    def mb(self, pool) -> float:
        now = time.monotonic()
        if now - self.at >= self.EVERY_S:
            pids = getattr(pool, "pids", list)() if pool is not None else []
            self.value = max(0.0, rss_mb() - self.base) + sum(rss_mb(p) for p in pids)
            self.at = now
        return self.value
