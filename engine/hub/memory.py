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
# the web process's copies of one batch it serves a session, on Streamlit 1.67's
# st.components.v2 path: the joined base64 and lists, json.dumps for the element, the proto's
# UTF-8 copy, json.dumps(sort_keys) for the widget's identity, the ForwardMsg serialized for
# its hash, again for the WebSocket, and the framed message. 7 also matches what a session
# was measured to cost (bench/hub_memory.py: ~54 MB a session on runs of ~7.7 MB of frames;
# 4 copies were reserved then and the web process went past the cap)
PAYLOAD_COPIES = 7
BASE64 = 4 / 3  # a run's frames are held as raw bytes, served as base64 text
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


class Payloads:
    """The batch each session was last served, in bytes of the web process's copies of it,
    and the sessions still waiting for their first (a reserve: their run's whole frames).
    A reserve is not in the RSS yet, so it counts on top of the measured memory too."""

    def __init__(self, measured: Measured | None = None, freed=None):
        self.bytes: dict[str, int] = {}
        self.pending: set[str] = set()
        # a page's downloads being built (a lease: their peak, not in the RSS yet; kept after
        # its session left until the build ends) and the files it then holds (until it leaves)
        self.leases: dict[int, int] = {}
        self.files: dict[str, int] = {}
        self.measured, self.freed = measured, freed  # told when a count changes or falls

    def reserve(self, watcher: str, run_nbytes: int) -> None:
        self.bytes[watcher] = int(reserve_mb(run_nbytes) * 2**20)
        self.pending.add(watcher)

    def served(self, watcher: str, nbytes: int) -> None:
        """A batch was served: counted until the next one."""
        fell = nbytes < self.bytes.get(watcher, 0)
        self.bytes[watcher] = nbytes
        self.pending.discard(watcher)
        self._changed(fell)

    def drop(self, watcher: str) -> None:
        """The session left: its copies and its downloads' files are freed."""
        self.pending.discard(watcher)
        self._changed(bool(self.bytes.pop(watcher, 0) + self.files.pop(watcher, 0)))

    def lease(self, nbytes: int) -> int:
        """A build of nbytes at its peak starts: its token."""
        token = max(self.leases, default=0) + 1
        self.leases[token] = int(nbytes)
        return token

    def unlease(self, token: int, watcher: str | bool, kept: int) -> None:
        """The build ended: its lease goes, the files it made (kept bytes) count with the
        session until it leaves (watcher False: it has left)."""
        self.leases.pop(token, None)
        if watcher:
            self.files[watcher] = self.files.get(watcher, 0) + int(kept)
        self._changed(True)

    def _changed(self, fell: bool) -> None:
        # the RSS lags the count both ways: read /proc at the next admission; freed copies
        # go back to the system only after a trim (trimmer)
        if self.measured is not None:
            self.measured.stale()
        if fell and self.freed is not None:
            self.freed.set()

    def mb(self) -> float:
        held = self.bytes.values(), self.files.values(), self.leases.values()
        return sum(sum(part) for part in held) / 2**20

    def pending_mb(self) -> float:
        """What is counted but not yet in the RSS: first batches and builds under way."""
        return (sum(self.bytes[w] for w in self.pending) + sum(self.leases.values())) / 2**20


def reserve_mb(run_nbytes: int) -> float:
    """MB a session's first batch of a run holding run_nbytes of frames costs the web process
    (Payloads.reserve's count)."""
    return PAYLOAD_COPIES * BASE64 * run_nbytes / 2**20


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process in MB, from /proc (0 where there is none: not Linux, gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def pss_mb(pid: int | str) -> float:
    """Proportional set size of a process in MB (its RSS where /proc has no smaps_rollup)."""
    # a page shared by n processes counts 1/n: the workers, forked from one forkserver, share
    # its torch pages, which their RSS counted once per worker (588 MB where their PSS was
    # 190 MB in the 160-session hold, issue 38)
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return rss_mb(pid)


class Measured:
    """What the hub's processes really hold: the web process's growth since the hub was made
    and its workers' memory (their PSS: pages they share count once). The hub counts this where
    it exceeds its own tally (fragmentation, Streamlit's sessions, copies the tally misses: the
    web process reached 3 310 MB while the tally said 2 555 of 2 560 MB, issue 38). Read at
    most every EVERY_S."""

    EVERY_S = 0.5

    def __init__(self):
        self.base = rss_mb()
        self.at, self.value = 0.0, 0.0

    def beyond(self, pool, tally: float, pending: float = 0.0) -> float:
        """MB the processes hold, plus the reserves not in their RSS yet (`pending`), beyond
        the hub's tally (0 where the tally is larger)."""
        return max(0.0, self.mb(pool) + pending - tally)

    def stale(self) -> None:
        """Read /proc at the next look: memory was freed or a big batch was just counted."""
        self.at = 0.0

    def mb(self, pool) -> float:
        now = time.monotonic()
        if now - self.at >= self.EVERY_S:
            pids = getattr(pool, "pids", list)() if pool is not None else []
            self.value = max(0.0, rss_mb() - self.base) + sum(pss_mb(p) for p in pids)
            self.at = now
        return self.value
