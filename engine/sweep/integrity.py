"""A results store is checked before it is trusted: on open (PRAGMA quick_check, the expected
tables and columns, no views, triggers or virtual tables), with a step limit on every query,
and an --out path is checked before any training.

An uploaded or damaged file is someone else's SQL: a recursive VIEW named `results` held a core
and grew SQLite's temp file to 4 GB (issue 22). Every read here runs under a progress handler
that interrupts a query after MAX_STEPS virtual-machine steps or MAX_SECONDS.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from pathlib import Path

from ..config import SPECS, ConfigError
from ..echo import plain
from .rows import CURVE_FIELDS

MAX_STEPS = 200_000_000  # SQLite VM steps per query: a 100 MB store reads in far fewer
MAX_SECONDS = 10.0
CHECK_EVERY = 10_000  # the handler runs every this many steps
RESULT_COLUMNS = {"key", "seed", "method", "train_acc", "test_acc", "cos", "steps_95",
                  "steps_99", "time_s", "device", "batched", "code_version", "config", "created"}
EXPECTED = {"meta": {"name", "value"}, "results": RESULT_COLUMNS,
            "curves": {"key", "step", *CURVE_FIELDS[1:]}}


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


def verify(db: sqlite3.Connection, where) -> list[str]:
    """StoreError unless db is a sound store; returns its swept settings (meta 'axes')."""
    try:
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise StoreError(where, "the file is damaged: PRAGMA quick_check failed")
        objects = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        _check_objects(objects, where)
        for table, columns in EXPECTED.items():
            have = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
            if not columns <= have:
                raise StoreError(where, f"table {table} lacks columns "
                                 + ", ".join(sorted(columns - have)))
        raw = dict(db.execute("SELECT name, value FROM meta WHERE name = 'axes'").fetchall())
        axes = _axes(raw.get("axes", "[]"), where)
        have = {r[1] for r in db.execute('PRAGMA table_info("results")')}
        missing = [a for a in axes if ("D_" if a == "D" else a) not in have]
        if missing:
            raise StoreError(where, "meta lists swept settings that results lacks")
        return axes
    except sqlite3.DatabaseError as err:  # not a database, encrypted, interrupted, ...
        raise StoreError(where, f"SQLite: {plain(err, 80)}") from None


def _check_objects(objects: list, where) -> None:
    """Tables and their indexes only: no view, trigger or virtual table runs someone's SQL."""
    for kind, name, sql in objects:
        if kind in ("view", "trigger") or "VIRTUAL" in str(sql or "").upper():
            raise StoreError(where, f"it holds a {kind if kind != 'table' else 'virtual table'}"
                             f" ({plain(name, 40)}); a store has plain tables only")
    tables = {name for kind, name, _ in objects if kind == "table"}
    if not set(EXPECTED) <= tables:
        raise StoreError(where, "no " + ", ".join(sorted(set(EXPECTED) - tables)) + " table")


def _axes(text: str, where) -> list[str]:
    """The swept settings from meta: setting names only (they become labels on the page)."""
    try:
        axes = json.loads(text)
    except ValueError:
        axes = None
    if not isinstance(axes, list) or not all(isinstance(a, str) and a in SPECS for a in axes):
        raise StoreError(where, "meta 'axes' is not a list of setting names")
    return axes


def open_checked(source: str | Path | bytes, where=None) -> tuple[sqlite3.Connection, list]:
    """A read-only, query-limited, verified connection to a store file or its bytes."""
    if where is None:
        where = "upload" if isinstance(source, bytes) else source
    try:
        if isinstance(source, bytes):
            db = sqlite3.connect(":memory:")
            db.deserialize(source)  # in memory: the uploaded bytes never touch the disk
        else:
            if not Path(source).is_file():
                raise StoreError(where, "no such file")
            db = sqlite3.connect(f"file:{Path(source)}?mode=ro", uri=True)
    except sqlite3.DatabaseError as err:
        raise StoreError(where, f"SQLite: {plain(err, 80)}") from None
    limit_queries(db)
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
