"""The store's schema, read as text before any row is evaluated (issue 30, finding 2).

A table definition can hold SQL that runs whenever a row is read or written: a generated
column (`big TEXT AS (hex(zeroblob(499999999)))` made PRAGMA quick_check compute 1 GB per row),
a DEFAULT or CHECK expression, an index on an expression. So the schema must be exactly the one
`Store` writes: three plain tables whose every column is `name TYPE [PRIMARY KEY]`, their
automatic indexes, and nothing else. This is checked on sqlite_master's text and on
PRAGMA table_xinfo's hidden-column flags, neither of which evaluates a row.
"""

from __future__ import annotations

import re
import sqlite3

from ..config import SPECS
from ..echo import plain
from .rows import CURVE_FIELDS, EXTRA_FIELDS

# the columns `Store` creates, with their declared types
RESULT_TYPES = {"key": "TEXT", "seed": "INTEGER", "method": "TEXT", "train_acc": "REAL",
                "test_acc": "REAL", "cos": "REAL", "steps_95": "INTEGER", "steps_99": "INTEGER",
                "time_s": "REAL", "device": "TEXT", "batched": "INTEGER",
                "code_version": "TEXT", "config": "TEXT", "created": "TEXT",
                **{name: "REAL" for name in EXTRA_FIELDS}}
META_TYPES = {"name": "TEXT", "value": "TEXT"}
CURVE_TYPES = {"key": "TEXT", "step": "INTEGER", **{f: "REAL" for f in CURVE_FIELDS[1:]}}
REQUIRED = {"meta": META_TYPES, "results": {k: RESULT_TYPES[k] for k in list(RESULT_TYPES)[:14]},
            "curves": CURVE_TYPES}  # a store from before EXTRA_FIELDS existed lacks those
PRIMARY = {"meta": "name", "results": "key", "curves": None}
CURVES_KEY = re.compile(r"^PRIMARY\s+KEY\s*\(\s*key\s*,\s*step\s*\)$", re.IGNORECASE)
CREATE = re.compile(r'^CREATE\s+TABLE\s+"?(\w+)"?\s*\((.*)\)$', re.IGNORECASE | re.DOTALL)
COLUMN = re.compile(r'^"?([A-Za-z_][A-Za-z0-9_]*)"?\s+(INTEGER|REAL|TEXT)(\s+PRIMARY\s+KEY)?$',
                    re.IGNORECASE)
MAX_SCHEMA = 200  # sqlite_master rows: a store has 6


def setting_column(name: str) -> str:
    """SQL column of a swept setting: its name; D → D_ (SQL names ignore case, d is taken)."""
    return "D_" if name == "D" else name


SETTING_COLUMNS = {setting_column(n): n for n in SPECS if n != "seed"}


class SchemaError(Exception):
    """The schema differs from a store's; the text says how (one line)."""


def check_schema(db: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """SchemaError unless db's schema is exactly a store's; table → {column: declared type}."""
    objects = db.execute("SELECT type, name, sql FROM sqlite_master "
                         f"LIMIT {MAX_SCHEMA + 1}").fetchall()
    if len(objects) > MAX_SCHEMA:
        raise SchemaError(f"more than {MAX_SCHEMA} schema objects")
    tables = {}
    for kind, name, sql in objects:
        if kind == "index" and sql is None and str(name).startswith("sqlite_autoindex_"):
            continue  # the index of a PRIMARY KEY, made by SQLite itself
        if kind != "table":
            raise SchemaError(f"it holds a {plain(kind, 20)} ({plain(name, 40)}); a store has "
                              "three plain tables only")
        if name not in REQUIRED:
            raise SchemaError(f"it holds a table {plain(name, 40)}; a store has meta, results "
                              "and curves only")
        tables[name] = _columns(name, str(sql or ""))
    missing = sorted(set(REQUIRED) - set(tables))
    if missing:
        raise SchemaError("no " + ", ".join(missing) + " table")
    for name, columns in tables.items():
        _check_columns(db, name, columns)
    return tables


def _columns(table: str, sql: str) -> dict[str, str]:
    """column → type from a CREATE TABLE text that holds nothing but plain column definitions."""
    match = CREATE.match(sql.strip())
    if not match or match.group(1) != table:
        raise SchemaError(f"table {table} is not a plain CREATE TABLE (e.g. WITHOUT ROWID)")
    parts = [p.strip() for p in match.group(2).split(",")]
    if table == "curves" and len(parts) > 1 and parts[-2].upper().startswith("PRIMARY"):
        parts = parts[:-2] + [parts[-2] + ", " + parts[-1]]  # the clause's own comma
        if not CURVES_KEY.match(parts[-1]):
            raise SchemaError("table curves has a primary key other than (key, step)")
        parts.pop()
    out = {}
    for part in parts:
        col = COLUMN.match(part)
        if not col:  # a generated column, DEFAULT, CHECK, COLLATE, REFERENCES, ...
            raise SchemaError(f"table {table} has a column that is not NAME TYPE: "
                              f"{plain(part, 60)}")
        name, kind, key = col.group(1), col.group(2).upper(), bool(col.group(3))
        if key != (name == PRIMARY[table]) or name in out:
            raise SchemaError(f"table {table} column {plain(name, 40)} is not a store's")
        out[name] = kind
    return out


def _check_columns(db: sqlite3.Connection, table: str, columns: dict[str, str]) -> None:
    """The names and types a store has, and no hidden or generated column (table_xinfo)."""
    need = REQUIRED[table]
    lacking = sorted(set(need) - set(columns))
    if lacking:
        raise SchemaError(f"table {table} lacks columns " + ", ".join(lacking))
    for name, kind in columns.items():
        want = (RESULT_TYPES.get(name) if table == "results" else need.get(name))
        if want is None and not (table == "results" and name in SETTING_COLUMNS):
            raise SchemaError(f"table {table} has a column {plain(name, 40)} no store has")
        if want is not None and kind != want:
            raise SchemaError(f"table {table} column {name} is {kind}, not {want}")
    info = db.execute(f'PRAGMA table_xinfo("{table}")').fetchall()
    for _, name, _, notnull, default, _, hidden in info:
        if hidden or default is not None or notnull:
            raise SchemaError(f"table {table} column {plain(name, 40)} is generated, hidden, "
                              "defaulted or NOT NULL")
    if len(info) != len(columns):
        raise SchemaError(f"table {table}'s columns differ from its CREATE text")
