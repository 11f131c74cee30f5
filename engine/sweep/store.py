"""The results store: one SQLite file per sweep (stdlib sqlite3; readable by pandas and DuckDB).

Schema (docs/sweeps.md):
  results(key PRIMARY KEY, <one column per swept setting>, seed, method, train_acc, test_acc,
          cos, steps_95, steps_99, time_s, device, batched, code_version, config, created,
          share_1, coverage_1, relevant_share, coverage, test_mse_ratio, test_err, c_F, c_G)
  curves(key, step, train_acc, test_acc, train_loss, test_loss, cos_max; PRIMARY KEY(key, step))
  meta(name PRIMARY KEY, value): 'spec' (JSON of the latest sweep), 'axes' (JSON list), 'git'
`key` hashes the full config (seed included), the method and the code version, so a row is
written once: a rerun skips it, --force replaces it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from ..config import ConfigError
from .integrity import StoreError, check_out, open_checked, sqlite_why
from .rows import CURVE_FIELDS, EXTRA_FIELDS
from .schema import RESULT_TYPES, setting_column

SUFFIX = ".sqlite"
SUMMARY = ("train_acc", "test_acc", "cos", "steps_95", "steps_99", "time_s", *EXTRA_FIELDS)
_RESULT_COLS = tuple(f"{name} {kind}" for name, kind in RESULT_TYPES.items() if name != "key")


def store_path(out: str | Path) -> Path:
    """`sweeps/k-po` → `sweeps/k-po.sqlite` (a path ending in .sqlite or .db is kept)."""
    p = Path(out)
    if not p.name or not str(out).strip():
        raise ConfigError("--out", str(out), "a file name, e.g. sweeps/NAME")
    if p.is_dir():  # not DIR.sqlite beside it: the user named a folder
        raise ConfigError("--out", str(out), "a file name, not a folder (e.g. sweeps/NAME)")
    return p if p.suffix in (SUFFIX, ".db") else p.with_name(p.name + SUFFIX)


column = setting_column  # SQL column of a swept setting (D → D_)


def _sql_type(value) -> str:
    if isinstance(value, bool) or isinstance(value, int):
        return "INTEGER"
    return "REAL" if isinstance(value, float) else "TEXT"


class Store:
    """One sweep's SQLite file; every write is one transaction."""

    def __init__(self, path: str | Path):
        self.path = store_path(path)
        check_out(self.path)  # a folder, an unwritable place or a damaged file: one line
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        with self.db:
            self.db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            self.db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                            + ", ".join(_RESULT_COLS) + ")")
            self.db.execute("CREATE TABLE IF NOT EXISTS curves (key TEXT, step INTEGER, "
                            + ", ".join(f"{f} REAL" for f in CURVE_FIELDS[1:])
                            + ", PRIMARY KEY (key, step))")
            # a store written before a summary field existed gains its column (NULL there)
            have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
            for name in EXTRA_FIELDS:
                if name not in have:
                    self.db.execute(f'ALTER TABLE results ADD COLUMN "{name}" REAL')

    def close(self) -> None:
        """Close the connection, leaving a single self-contained file (no -wal/-shm beside it)."""
        try:
            self.db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError:  # a reader holds the file: it stays in WAL mode
            pass
        self.db.close()

    def prepare(self, spec_dict: dict, axes: list[str], sample: dict, git: str) -> None:
        """Record the sweep and add a column for each swept setting not yet present."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
        old = json.loads(self.meta().get("axes", "[]"))
        with self.db:
            for name in axes:
                if column(name) not in have:
                    self.db.execute(f'ALTER TABLE results ADD COLUMN "{column(name)}" '
                                    f"{_sql_type(sample[name])}")
            for key, value in (("spec", json.dumps(spec_dict)), ("git", git),
                               ("axes", json.dumps(old + [a for a in axes if a not in old]))):
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self) -> dict:
        """The meta table as a dict."""
        return dict(self.db.execute("SELECT name, value FROM meta"))

    def keys(self) -> set[str]:
        """Keys of every stored row."""
        return {r[0] for r in self.db.execute("SELECT key FROM results")}

    def write(self, rows: list[dict], replace: bool = False) -> int:
        """Insert one unit's rows and curves atomically (a row without an EXTRA_FIELDS value
        stores NULL there); returns how many rows were new."""
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        before = self.count()
        with self.db:
            for row in rows:
                names = [column(k) for k in row["setting"]]
                cols = ["key", *names, "seed", "method", *SUMMARY, "device", "batched",
                        "code_version", "config", "created"]
                vals = [row["key"], *row["setting"].values(), row["seed"], row["method"],
                        *(row[k] if k not in EXTRA_FIELDS else row.get(k) for k in SUMMARY),
                        row["device"], row["batched"],
                        row["code_version"], row["config"], stamp]
                quoted = ", ".join(f'"{c}"' for c in cols)
                self.db.execute(f"{verb} INTO results ({quoted}) VALUES "
                                f"({', '.join('?' * len(vals))})", vals)
                if replace:
                    self.db.execute("DELETE FROM curves WHERE key = ?", (row["key"],))
                self.db.executemany(f"{verb} INTO curves VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    [(row["key"], *pt) for pt in row["curve"]])
        return self.count() - before

    def count(self) -> int:
        """Rows in the results table."""
        return self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]


def load(source: str | Path | bytes) -> tuple[dict, list[str], list[dict]]:
    """(meta, axes, rows) of a stored sweep (a file or its bytes), checked before it is read;
    rows are dicts with the setting names as keys."""
    src = source if isinstance(source, bytes) else store_path(source)
    where = "upload" if isinstance(source, bytes) else src  # never the bytes themselves
    db, axes = open_checked(src, where)
    try:
        db.row_factory = sqlite3.Row
        meta = dict(db.execute("SELECT name, value FROM meta").fetchall())
        rows = []
        for r in db.execute("SELECT * FROM results ORDER BY rowid"):
            row = dict(r)
            for name in axes:
                if name != column(name):
                    row[name] = row.pop(column(name))
            rows.append(row)
        return meta, axes, rows
    except sqlite3.DatabaseError as err:  # damage past the quick check, or a query cut off
        raise StoreError(where, sqlite_why(err)) from None
    finally:
        db.close()


def load_curves(source: str | Path | bytes, keys: list[str]) -> dict[str, list[tuple]]:
    """key → [(step, train_acc, test_acc, train_loss, test_loss, cos_max), ...]."""
    db, _ = open_checked(source if isinstance(source, bytes) else store_path(source))
    try:
        out: dict[str, list[tuple]] = {k: [] for k in keys}
        marks = ", ".join("?" * len(keys))
        for row in db.execute(f"SELECT * FROM curves WHERE key IN ({marks}) ORDER BY key, step",
                              keys):
            out[row[0]].append(tuple(row[1:]))
        return out
    finally:
        db.close()
