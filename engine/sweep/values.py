"""Every value of a store checked by type and shape on open, in one place (issue 30, finding 4).

The meta values are parsed here (bounded JSON: a 4 MB nest of brackets was a RecursionError);
the rows are checked column by column in SQL (typeof), so a 77 k-row store costs one scan per
column and no Python loop; an axis's distinct values must each be a value its setting allows,
all of one type, so the page's pickers, pivots and links never meet text in a REAL column.
"""

from __future__ import annotations

import json
import sqlite3

from ..config import SPECS, ConfigError, _check_range, coerce
from ..echo import plain
from ..presets import PRESETS
from .schema import CURVE_TYPES, RESULT_TYPES, SchemaError, setting_column
from .spec import MAX_SEEDS

MAX_AXIS_VALUES = 10_001  # more distinct values than any accepted grid has on one axis
SEED_MAX = 2**31 - 1
MAX_TEXT_CHARS = 1 << 20  # a row's longest text is its config (~2 kB); 4 bytes a character at most
META_NAMES = ("spec", "axes", "git")
SPEC_KEYS = {"preset", "fixed", "axes", "cells", "seeds", "seed", "methods", "device"}
# what a value of each declared type may be (typeof), and a number whose mean over any store
# stays finite where numeric (±1.7e308 accuracies drew "inf" cells and an empty colour bar)
MAX_REAL = 1e300
ALLOWED = {"REAL": "typeof({c}) IN ('real', 'integer', 'null') AND "
                   f"coalesce(abs({{c}}) <= {MAX_REAL:g}, 1)",
           "INTEGER": "typeof({c}) IN ('integer', 'null')",
           "TEXT": "typeof({c}) IN ('text', 'null') AND coalesce(length({c}), 0) <= "
                   f"{MAX_TEXT_CHARS}"}
NOT_NULL = {"key": "typeof(key) = 'text' AND length(key) BETWEEN 1 AND 200",
            "seed": f"typeof(seed) = 'integer' AND seed BETWEEN 0 AND {SEED_MAX}",
            "method": "typeof(method) = 'text' AND length(method) BETWEEN 1 AND 40 AND "
                      "method NOT GLOB '*[^a-z0-9_]*'",
            "step": "typeof(step) = 'integer' AND step >= 0",
            # a row's setting as the engine wrote it: a JSON object (SQLite's parser refuses a
            # nest deeper than 1000; `[]`, `1e999` and a 300 000-deep nest crashed the page)
            "config": "typeof(config) = 'null' OR (typeof(config) = 'text' AND "
                      f"length(config) <= {MAX_TEXT_CHARS} AND CASE WHEN json_valid(config) "
                      "THEN json_type(config) = 'object' ELSE 0 END)"}
# the summaries the Sweeps page draws: a store with rows must hold one of them somewhere
SUMMARIES = ("test_acc", "train_acc", "cos", "test_err", "test_mse_ratio")


def check_values(db: sqlite3.Connection, columns: dict[str, dict[str, str]]) -> list[str]:
    """SchemaError unless every stored value has its column's type and shape; the axes."""
    meta = _meta(db)
    axes = _axes(meta.get("axes", "[]"), set(columns["results"]))
    if "spec" in meta:
        _spec(meta["spec"])
    for table, types in (("results", RESULT_TYPES), ("curves", CURVE_TYPES)):
        rules = {name: NOT_NULL.get(name, ALLOWED[types[name]]) for name in columns[table]
                 if name in types}
        # one scan for every column of the table; the naming query only where one fails
        tests = ", ".join(f"min({rule.format(c=name)})" for name, rule in rules.items())
        passed = db.execute(f'SELECT {tests} FROM "{table}"').fetchone()
        for (name, rule), ok in zip(rules.items(), passed, strict=True):
            if ok == 0:
                _column(db, table, name, rule)
    for name in axes:
        _axis(db, name)
    _some_summary(db, columns["results"])
    return axes


def _some_summary(db: sqlite3.Connection, columns) -> None:
    """SchemaError when rows exist and every summary column is NULL in all of them."""
    have = [c for c in SUMMARIES if c in columns]
    if not have or db.execute("SELECT 1 FROM results LIMIT 1").fetchone() is None:
        return
    found = " OR ".join(f'"{c}" IS NOT NULL' for c in have)
    if db.execute(f"SELECT 1 FROM results WHERE {found} LIMIT 1").fetchone() is None:
        raise SchemaError(f"results hold no summary value (every {', '.join(have)} is NULL)")


def _meta(db: sqlite3.Connection) -> dict[str, str]:
    """The meta table: known names only, each a text."""
    rows = db.execute("SELECT name, value, typeof(name), typeof(value) FROM meta "
                      f"LIMIT {len(META_NAMES) + 1}").fetchall()
    out = {}
    for name, value, tn, tv in rows:
        if tn != "text" or name not in META_NAMES or tv != "text":
            raise SchemaError(f"meta holds {plain(name, 40)}={plain(value, 20)}; a store's "
                              "meta is spec, axes and git as text")
        out[name] = value
    return out


def _json(text: str, what: str):
    """JSON of a meta value; a nest too deep for Python is refused like any bad text."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise SchemaError(f"meta {what} is not JSON") from None


def _axes(text: str, have: set[str]) -> list[str]:
    """Swept settings: distinct setting names (not seed) that results has columns for."""
    axes = _json(text, "axes")
    if not isinstance(axes, list) or not all(isinstance(a, str) and a in SPECS
                                             and a != "seed" for a in axes):
        raise SchemaError("meta 'axes' is not a list of setting names")
    if len(set(axes)) != len(axes):
        raise SchemaError("meta 'axes' names a setting twice")
    if any(setting_column(a) not in have for a in axes):
        raise SchemaError("meta lists swept settings that results lacks")
    return axes


def _spec(text: str) -> None:
    """The stored sweep: the shape SweepSpec.to_dict writes, with a known preset and settings
    (a cell's link is built from it)."""
    spec = _json(text, "spec")
    if not isinstance(spec, dict) or not set(spec) <= SPEC_KEYS:
        raise SchemaError("meta 'spec' is not a sweep's description")
    if not isinstance(spec.get("preset", "quick-parity"), str) \
            or spec.get("preset", "quick-parity") not in PRESETS:
        raise SchemaError(f"meta 'spec' names an unknown preset {plain(spec.get('preset'), 40)}")
    fixed = spec.get("fixed", {})
    if not isinstance(fixed, dict):
        raise SchemaError("meta 'spec' fixed is not a dict of settings")
    for name, value in fixed.items():
        if name == "seed" or not isinstance(value, (str, int, float, bool)):
            raise SchemaError(f"meta 'spec' fixes {plain(name, 40)} to a non-setting value")
        _setting(name, value, "meta 'spec' fixed", typed=False)
    for key, lo, hi in (("seed", 0, SEED_MAX), ("seeds", 1, MAX_SEEDS)):
        value = spec.get(key, lo)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise SchemaError(f"meta 'spec' {key} is not an integer in [{lo}, {hi}]")
    for key in ("axes", "cells", "methods"):
        if not isinstance(spec.get(key, []), list):
            raise SchemaError(f"meta 'spec' {key} is not a list")


def _setting(name: str, value, where: str, typed: bool = True) -> None:
    """SchemaError unless value is one the setting allows: its range, and its type where typed
    (a fixed value is stored as typed on the command line: "600")."""
    try:
        if name not in SPECS or (typed and not _same_kind(name, value)):
            raise ConfigError(name, value, SPECS[name].allowed() if name in SPECS else
                              "a known setting")
        _check_range(name, coerce(name, value))
    except ConfigError as err:
        raise SchemaError(f"{where}: {err}") from None


def _same_kind(name: str, value) -> bool:
    """value has the setting's type (a bool setting is stored as INTEGER 0/1)."""
    kind = SPECS[name].kind
    if kind is bool:
        return value in (0, 1)
    if kind is str:
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return kind is float or isinstance(value, int)


def _column(db: sqlite3.Connection, table: str, name: str, rule: str) -> None:
    """SchemaError naming the column when any value breaks its rule."""
    # a long value is named by its type: reading it whole is what the bound refuses
    shown = f'CASE WHEN length("{name}") > 40 THEN typeof("{name}") ELSE "{name}" END'
    bad = db.execute(f'SELECT {shown} FROM "{table}" WHERE NOT ({rule.format(c=name)}) '
                     "LIMIT 1").fetchone()
    if bad is not None:
        raise SchemaError(f"{table}.{name} holds {plain(repr(bad[0]), 40)}, not a value of "
                          "that column")


def _axis(db: sqlite3.Connection, name: str) -> None:
    """An axis column: one SQL type, each distinct value allowed for the setting (NULL only
    where the setting is optional: a cell's eta=auto)."""
    col = setting_column(name)
    kinds = {r[0] for r in db.execute(f'SELECT DISTINCT typeof("{col}") FROM results LIMIT 4')}
    if SPECS[name].optional and len(kinds) > 1:
        kinds.discard("null")
    if len(kinds) > 1 or "null" in kinds:
        raise SchemaError(f"results.{col} mixes types ({', '.join(sorted(kinds))})")
    values = db.execute(f'SELECT DISTINCT "{col}" FROM results WHERE "{col}" IS NOT NULL '
                        f"LIMIT {MAX_AXIS_VALUES + 1}").fetchall()
    if len(values) > MAX_AXIS_VALUES:
        raise SchemaError(f"results.{col} has more than {MAX_AXIS_VALUES} values")
    for (value,) in values:
        _setting(name, value, f"results.{col}")
