"""A run's frames as the hub holds them, and the optional on-disk cache (FEX_FRAME_CACHE).

The disk cache is plain gzip-compressed JSON (the packed batch the browser gets, its meta and
the run's canonical setting), written once a run is complete and read back by its key: nothing
is unpickled, and a file whose key or shape does not match is ignored.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import packing

KEY_RE = re.compile(r"^[0-9a-f]{32}$")


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
    """FEX_FRAME_CACHE as a directory (created), or None when unset."""
    raw = os.environ.get("FEX_FRAME_CACHE", "").strip()
    if not raw:
        return None
    path = Path(raw).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def save(folder: Path, run: HubRun) -> Path:
    """Write a complete run atomically (a reader never sees half a file)."""
    body = {"key": run.key, "settings": run.canonical, "T": run.T, "meta": run.meta,
            "frames": packing.join(run.frames, run.schema)}
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fex-", suffix=".tmp")
    with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(json.dumps(body, separators=(",", ":")).encode())
    os.chmod(tmp, 0o644)  # the server may run as another user than `engine warm`
    path = folder / f"{run.key}.json.gz"
    os.replace(tmp, path)
    return path


def load(folder: Path, key: str) -> dict | None:
    """{meta, T, frames (records), schema} of a cached run, or None (absent or not ours)."""
    path = folder / f"{key}.json.gz"
    if not KEY_RE.match(key) or not path.is_file():
        return None
    try:
        with gzip.open(path, "rb") as fh:
            body = json.loads(fh.read())
        frames = packing.split(body["frames"])
        if body.get("key") != key or len(frames) != int(body["T"]) + 1:
            return None
        return {"meta": body["meta"], "T": int(body["T"]), "frames": frames,
                "schema": packing.kinds(body["frames"])}
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None  # a damaged or foreign file: compute the run instead
