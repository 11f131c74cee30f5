"""The frame cache on disk (FEX_FRAME_CACHE): the folder, bounded reads, atomic writes, eviction.

A cache file is gzip-compressed JSON written by this server or `engine warm`. Anyone who can
write the folder can put anything there, so a read is bounded before it is parsed: the file is
opened without following links, must be a regular file, and is inflated in chunks up to a cap
derived from the setting it is asked for (a gzip bomb stops at the cap, not at 1.5 GB). What
parses is checked by engine.hub.cache_check before the hub holds it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import stat
import tempfile
import time
import zlib
from pathlib import Path

from ..config import Config, ConfigError
from .budget import env_mb

LIMIT = "FEX_FRAME_CACHE_MB"
DEFAULT_MB = 2048.0  # compose's tmpfs is RAM: a cap, not the disk, bounds the cache
MB = 1 << 20
CHUNK = 1 << 16
STALE_TMP_S = 3600.0  # a temp file this old belongs to a write that died with its process
# inflated JSON per frame: measured 1.3 KB + 8 B a map point (FrameStream at m = 8, 100, 400;
# points = 2 m + 2); the cap allows 12x the scalars and 2x the points
FRAME_B = 16_384
POINT_B = 16
FLOOR_B = 4 * MB
log = logging.getLogger(__name__)


def prepare(raw: str, name: str) -> Path:
    """raw as a writable cache folder (created); a one-line ConfigError naming `name` if not."""
    path = Path(raw).expanduser()
    allowed = "a directory this server can write (created if missing)"
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            raise NotADirectoryError(raw)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".fex-", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ConfigError(name, raw, f"{allowed}; it is not ({type(err).__name__})") from None
    return path


def cap_mb() -> float:
    """FEX_FRAME_CACHE_MB: the most the cache folder may hold; one-line ConfigError if bad."""
    return env_mb(LIMIT, DEFAULT_MB)


def inflated_cap(cfg: Config) -> int:
    """The most bytes a cache file of cfg's run may inflate to (the guard's sizes for it)."""
    points = 2 * int(cfg.m) + int(cfg.D) + int(cfg.d) + 64
    return FLOOR_B + (int(cfg.T) + 1) * (FRAME_B + points * POINT_B)


def read(path: Path, cap: int) -> dict | None:
    """The parsed JSON of a regular (not linked) gzip file inflating to at most cap bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # absent, a link or unreadable
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
        os.close(fd)
        return ignored(path, "not a regular file within the size its setting allows")
    with os.fdopen(fd, "rb") as raw:
        try:
            text = _inflate(raw, cap)
        except (OSError, EOFError, zlib.error) as err:
            return ignored(path, f"not gzip ({type(err).__name__})")
    if text is None:
        return ignored(path, f"inflates past {cap // MB} MB, more than its setting can make")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        return ignored(path, f"not JSON ({type(err).__name__})")


def _inflate(raw, cap: int) -> bytes | None:
    """Decompress in chunks; None as soon as the output passes cap."""
    out, total = [], 0
    with gzip.GzipFile(fileobj=raw, mode="rb") as fh:
        while chunk := fh.read(CHUNK):
            total += len(chunk)
            if total > cap:
                return None
            out.append(chunk)
    return b"".join(out)


def ignored(path: Path, why: str) -> None:
    log.warning("frame cache: %s ignored: %s (the run is computed instead)", path.name, why)
    return None


def touch(path: Path) -> None:
    """Mark a file as just used (eviction goes by mtime, least recently used first)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def write(folder: Path, name: str, body: dict) -> Path | None:
    """Write body atomically as folder/name; None (one log line, no temp file left) on failure."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fex-", suffix=".tmp")
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
            out.write(json.dumps(body, separators=(",", ":")).encode())
        os.chmod(tmp, 0o644)  # the server may run as another user than `engine warm`
        path = folder / name
        os.replace(tmp, path)
    except (OSError, ValueError) as err:  # a full disk, `ulimit -f`, a folder gone
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        log.warning("frame cache: %s not written: %s", name, str(err).splitlines()[0][:160])
        return None
    trim(folder, int(cap_mb() * MB))
    return path


def trim(folder: Path, cap: int) -> None:
    """Remove the least recently used cache files until the folder holds at most cap bytes,
    and temp files left by writes that died."""
    now, files = time.time(), []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if entry.name.startswith(".fex-") and entry.name.endswith(".tmp"):
                    if now - info.st_mtime > STALE_TMP_S:
                        os.unlink(entry.path)
                elif entry.name.endswith(".json.gz"):
                    files.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= cap:
            return
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
