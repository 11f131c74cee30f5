"""A results store is checked before it is trusted: on open (its schema read as text: three
plain tables, nothing that computes a value; then PRAGMA quick_check; then every value by type
and shape), with bounds on every query, and an --out path is checked before any training.

An uploaded or damaged file is someone else's SQL: a recursive VIEW named `results` held a core
and grew SQLite's temp file to 4 GB (issue 22). Every read here runs under a progress handler
that interrupts a query after MAX_STEPS virtual-machine steps or MAX_SECONDS; a generated
column of 1 GB per row made one step take minutes (issue 30), so no value may exceed
MAX_VALUE_BYTES and SQLite's heap in the process is capped at HEAP_MB.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path

from ..config import ConfigError
from ..echo import plain
from ..out_path import refuse_special
from .schema import SchemaError, check_schema
from .values import check_values

MAX_STEPS = 200_000_000  # SQLite VM steps per query: a 100 MB store reads in far fewer
MAX_SECONDS = 10.0
CHECK_EVERY = 10_000  # the handler runs every this many steps
# a single step can take long (one value of 1 GB): SQLite refuses any string or blob longer
# than this on a store's connection, and all its memory in this process stays below HEAP_MB
MAX_VALUE_BYTES = 4 << 20  # a stored sweep's longest value is its spec (a few kB to ~1 MB)
HEAP_MB = 1024
CACHE_KB = 16 << 10  # page cache per store connection
WAL_VERSION = b"\x02\x02"  # header bytes 18-19 of a WAL-mode file; b"\x01\x01": rollback


class StoreError(ConfigError):
    """A file that is not a sound results store (CLI exit 2, one line on the page)."""

    def __init__(self, where, why: str):
        super().__init__("store", str(where), f"a results store of `engine sweep` ({why})")


def limit_queries(db: sqlite3.Connection, max_steps: int = MAX_STEPS,
                  max_seconds: float = MAX_SECONDS) -> None:
    """Interrupt any query on db after max_steps VM steps or max_seconds (per query)."""
    state = {"sql": None, "steps": 0, "t0": time.monotonic()}

    def trace(sql: str) -> None:  # a new statement starts: reset its budget
        state.update(steps=0, t0=time.monotonic())

    def handler() -> int:
        state["steps"] += CHECK_EVERY
        return int(state["steps"] > max_steps or time.monotonic() - state["t0"] > max_seconds)

    db.set_trace_callback(trace)
    db.set_progress_handler(handler, CHECK_EVERY)


def bound(db: sqlite3.Connection) -> None:
    """Bound every query on db in steps, seconds, value size and memory (measured in
    docs/hosting.md)."""
    limit_queries(db)
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    db.execute(f"PRAGMA cache_size = -{CACHE_KB}")
    db.execute("PRAGMA temp_store = MEMORY")  # a sort counts against the heap, not the disk
    # process-wide; the pragma only ever lowers a limit that is already set
    db.execute(f"PRAGMA hard_heap_limit = {HEAP_MB << 20}")


def verify(db: sqlite3.Connection, where) -> list[str]:
    """StoreError unless db is a sound store; returns its swept settings (meta 'axes').
    The schema is read as text first: nothing that evaluates a row runs before it passes."""
    try:
        bound(db)
        columns = check_schema(db)
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise StoreError(where, "the file is damaged: PRAGMA quick_check failed")
        return check_values(db, columns)
    except SchemaError as err:
        raise StoreError(where, str(err)) from None
    except sqlite3.DatabaseError as err:  # not a database, encrypted, interrupted, too big ...
        raise StoreError(where, sqlite_why(err)) from None


def sqlite_why(err: sqlite3.Error) -> str:
    """SQLite's refusal in words (a value over the size bound is named as such)."""
    if "too big" in str(err):
        return f"SQLite: a value longer than {MAX_VALUE_BYTES >> 20} MB"
    return f"SQLite: {plain(err, 80)}"


def _utf8(source: str | Path | bytes, where) -> None:
    """StoreError unless the header's text encoding is UTF-8 (or not yet set): read as UTF-16,
    a store's names were echoed as "(浥瑡)"."""
    if isinstance(source, bytes):
        head = source[:100]
    else:
        try:
            with open(source, "rb") as fh:
                head = fh.read(100)
        except OSError:
            return  # _connect says why
    if len(head) == 100 and head[:16] == b"SQLite format 3\x00" and \
            int.from_bytes(head[56:60], "big") not in (0, 1):
        raise StoreError(where, "a store in UTF-8 (its header names another text encoding)")


def _connect(source: str | Path | bytes, where) -> sqlite3.Connection:
    """A read-only connection to a file, or an in-memory one holding the bytes."""
    if not isinstance(source, bytes):
        if not Path(source).is_file():
            raise StoreError(where, "no such file")
        return sqlite3.connect(f"file:{Path(source)}?mode=ro", uri=True)
    if source[18:20] == WAL_VERSION:  # memory has no -wal/-shm: read it as a rollback file
        source = source[:18] + b"\x01\x01" + source[20:]
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(source)  # in memory: the uploaded bytes never touch the disk
    except BaseException:
        db.close()
        raise
    return db


def open_checked(source: str | Path | bytes, where=None) -> tuple[sqlite3.Connection, list]:
    """A read-only, query-limited, verified connection to a store file or its bytes."""
    if where is None:
        where = "upload" if isinstance(source, bytes) else source
    _utf8(source, where)
    try:
        db = _connect(source, where)
    except sqlite3.DatabaseError as err:
        raise StoreError(where, f"SQLite: {plain(err, 80)}") from None
    try:
        return db, verify(db, where)
    except BaseException:
        db.close()
        raise


def check_out(path: Path) -> None:
    """ConfigError on an --out that cannot hold a store, before any training: an empty name,
    a folder, a parent that is a file or not writable, an existing file that is not a store."""
    if not path.stem or path.name in (".sqlite", ".db"):
        raise ConfigError("--out", str(path), "a file name, e.g. sweeps/NAME")
    if path.is_dir():
        raise ConfigError("--out", str(path), "a file, not a folder")
    refuse_special(path)  # a device, FIFO or link: one line, nothing appended to it
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as err:
        raise ConfigError("--out", str(path), "a path in a writable folder ("
                          f"{plain(err.strerror or err, 60)})") from None
    if path.exists():
        open_checked(path)[0].close()


def remove_store(path: Path) -> None:
    """Delete a store and its -wal/-shm (a sweep that failed before writing a row)."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        p.unlink(missing_ok=True)
