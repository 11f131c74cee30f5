"""A run's frames as the hub holds them, and the optional on-disk cache (FEX_FRAME_CACHE).

The disk cache is plain gzip-compressed JSON (the packed batch the browser gets, its meta and
the run's canonical setting), written once a run is complete and read back by its key: nothing
is unpickled, and a file is read bounded and checked before it is held (engine/hub/disk.py,
cache_check.py): one whose key, setting or shape does not match is ignored and the run computed.
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from . import cache_check, disk, packing
from .key import canonical

KEY_RE = re.compile(r"^[0-9a-f]{32}$")
# a file's read peaks at ~3x its inflated size (58 MB for an m = 2 000, T = 600 run, 16 MB
# kept): thirty sessions arriving at once read thirty files side by side, none of it counted
LOADS = threading.BoundedSemaphore(2)


@dataclass
class HubRun:
    """One run: its frames so far, its state and who watches it."""

    key: str
    settings: dict  # the Config's fields, to start it on a worker
    canonical: dict
    estimate_mb: float = 0.0
    meta: dict | None = None
    T: int = 0
    frames: list[dict] = field(default_factory=list)
    schema: dict = field(default_factory=dict)
    state: str = "stopped"  # live (an executor computes it), stopped, done, failed
    error: str = ""
    watchers: dict[str, int] = field(default_factory=dict)  # watcher -> frames it wants
    nbytes: int = 0
    touched: float = field(default_factory=time.monotonic)
    asked: int = 0  # the last `until` sent to its executor
    crashed: bool = False  # failed because its worker died (not by its own numbers)

    @property
    def complete(self) -> bool:
        return self.state == "done" and not self.error and len(self.frames) == self.T + 1

    def target(self, first: int) -> int:
        """Frames its watchers want (at least `first`), at most the whole run."""
        want = max([first, *self.watchers.values()])
        return min(want, self.T + 1) if self.T else want

    def add(self, start: int, frames: list[dict]) -> int:
        """Append frames from index `start` (skipping ones already held); bytes added."""
        new = frames[max(0, len(self.frames) - start):] if start <= len(self.frames) else []
        added = sum(packing.size(f) for f in new)
        self.frames.extend(new)
        self.nbytes += added
        return added


def cache_dir() -> Path | None:
    """FEX_FRAME_CACHE as a writable directory (created), or None when unset; a one-line
    ConfigError for a path that is not one (a file, a device, /proc) or a bad FEX_FRAME_CACHE_MB."""
    raw = os.environ.get("FEX_FRAME_CACHE", "").strip()
    if not raw:
        return None
    disk.cap_mb()
    return disk.prepare(raw, "FEX_FRAME_CACHE")


def body(run: HubRun) -> dict:
    """A complete run as its cache record."""
    return {"key": run.key, "settings": run.canonical, "T": run.T, "meta": run.meta,
            "frames": packing.join(run.frames, run.schema)}


def save(folder: Path, run: HubRun) -> Path | None:
    """Write a complete run atomically (a reader never sees half a file); None when the write
    failed (logged in one line, its temp file removed). Old files go past FEX_FRAME_CACHE_MB."""
    return disk.write(folder, f"{run.key}.json.gz", body(run))


def load(folder: Path, key: str, cfg: Config | None = None) -> dict | None:
    """{meta, T, frames (records), schema} of key's cached run, or None (absent, too big, not
    of cfg's setting, damaged). cfg None: the key alone is checked (a test's own file)."""
    if not KEY_RE.match(key):
        return None
    path = folder / f"{key}.json.gz"
    cap = disk.inflated_cap(cfg) if cfg is not None else disk.FLOOR_B
    with LOADS:
        found = disk.read(path, cap)
        return None if found is None else _checked(found, path, key, cfg)


def _checked(found: dict, path: Path, key: str, cfg: Config | None) -> dict | None:
    """load's records of a parsed file, or None (logged) when it is not key's run."""
    settings = canonical(cfg) if cfg is not None else None
    why = cache_check.problem(found, key, settings, None if cfg is None else int(cfg.T))
    if why:
        return disk.ignored(path, why)
    try:
        out = cache_check.records(found)
    except ValueError as err:
        return disk.ignored(path, str(err)[:160])
    disk.touch(path)
    return out
