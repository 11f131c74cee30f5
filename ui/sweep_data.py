"""Sweep tables for the page: load a store, average over seeds, method differences, links."""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import OrderedDict
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd

from engine import exports
from engine.config import Config, ConfigError, from_dict
from engine.echo import markdown_plain
from engine.methods import LABELS
from engine.procedures import RECORDS
from engine.sweep import load
from engine.sweep.names import levels as procedure_levels
from engine.sweep.names import method_label
from ui.state import url_params

# the page's summaries, headline scores first (a world reports one of the first three)
METRICS = {"test_acc": "test accuracy", "test_err": "test error E‖out − y‖²",
           "test_mse_ratio": "test MSE / Var(y)", "share_1": "relevant share after step 1",
           "coverage_1": "coverage after step 1", "train_acc": "train accuracy",
           "cos": "max cosine to Σ_A M", "relevant_share": "relevant share at the end",
           "coverage": "coverage at the end", "c_F": "c_F (share of F learned)",
           "c_G": "c_G (share of G learned)", "steps_95": "steps to 95 % test",
           "steps_99": "steps to 99 % test", "time_s": "seconds per run"}


BASES = ("T-step", "converged limit")  # what the heat map and lines show of a headline score


def limit_column(metric: str) -> str:
    """The stored converged-limit column of a headline score (engine.sweep.rows.LIMIT_FIELDS)."""
    return f"limit_{metric}"


def has_limits(df: pd.DataFrame, metric: str) -> bool:
    """Whether the store holds converged limits of `metric` (not a store from before them)."""
    col = limit_column(metric)
    return col in df and df[col].notna().any()


def at_limit(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """df with `metric` at each fixed-feature method's converged limit; a method with no limit
    in the whole store (the network) keeps its T-step value, a limit missing in one row of a
    method that has them elsewhere stays missing (never its T-step value in disguise)."""
    col = limit_column(metric)
    with_limits = set(df.loc[df[col].notna(), "method"])
    own = df["method"].isin(with_limits)
    return df.assign(**{metric: df[col].where(own, df[metric])})


def basis_words(df: pd.DataFrame, metric: str, method: str | None, basis: str) -> str:
    """The title's words for the basis: '' (T-step), ' · converged limit', or for a method
    with no limit in the store (the network) ' · at T (no limit: not fixed-feature)'."""
    if basis == BASES[0]:
        return ""
    if method is None:
        return " · converged limits (the network at T)"
    has = df.loc[df["method"] == method, limit_column(metric)].notna().any()
    return " · converged limit" if has else " · at T (no limit: not fixed-feature)"


def metrics(df: pd.DataFrame) -> list[str]:
    """The summaries this sweep holds (a store from before a field existed, or a world whose
    methods do not report it, has NULLs there)."""
    return [m for m in METRICS if m in df and df[m].notna().any()]


def free_axes(df: pd.DataFrame, axes: list[str], by: list[str]) -> list[str]:
    """The axes not in `by` that still vary once `by` is fixed: a cell list can tie one setting
    to another (D = d, a step-size drop per n), and a tied one needs no picker."""
    rest = [a for a in axes if a not in by]
    if not by:
        return rest
    groups = df.groupby(by, dropna=False)
    return [a for a in rest if (groups[a].nunique(dropna=False) > 1).any()]


def load_frame(path) -> tuple[pd.DataFrame, list[str], dict]:
    """(one row per setting × seed × method, the swept settings, the stored sweep spec)."""
    meta, axes, rows = load(path)
    df = pd.DataFrame(rows)
    if df.empty:
        return df, axes, {}
    return df, axes, json.loads(meta.get("spec", "{}"))


CACHED_STORES = 4  # stores kept read and aggregated (a 77 k-row upload is ~30 MB as a frame)
_cache: OrderedDict[str, Stored] = OrderedDict()
_cache_lock = threading.Lock()


class Stored:
    """A store read once, with what the page computes from it memoised: the per-seed values
    of each (metric, method, minus), the free axes of each choice, the table and downloads.
    A 77 k-row upload was read and aggregated again on every click (46 s, then 33 s)."""

    def __init__(self, source) -> None:
        self.df, self.axes, self.spec = load_frame(source)
        self._memo: dict = {}
        self._lock = threading.Lock()

    def _once(self, key, make):
        with self._lock:  # two reruns of one session may overlap; each value is made once
            if key not in self._memo:
                self._memo[key] = make()
            return self._memo[key]

    def per_seed(self, metric: str, method: str, minus: str | None = None,
                 basis: str = BASES[0]) -> pd.DataFrame:
        """Per-seed values of one method (basis: T-step, or converged limit where stored)."""
        def make() -> pd.DataFrame:
            df = self.df if basis == BASES[0] else at_limit(self.df, metric)
            return per_seed(df, self.axes, metric, method, minus)
        return self._once(("seed", metric, method, minus, basis), make)

    def free_axes(self, by: list[str]) -> list[str]:
        return self._once(("free", tuple(by)), lambda: free_axes(self.df, self.axes, by))

    def table(self) -> pd.DataFrame:
        return self._once("table", lambda: self.df.drop(columns=["config"], errors="ignore"))

    def refused(self) -> str | None:
        """Why the CSV/Parquet downloads are not offered (the guard's one line), or None."""
        rows, cols = self.df.shape
        try:
            exports.check("sweep table download", "rows", rows, exports.table_mb(rows, cols))
        except ConfigError as err:
            return str(err)
        return None

    def csv(self) -> str:
        return self._once("csv", lambda: self.df.to_csv(index=False))

    def parquet(self) -> bytes:
        def make() -> bytes:
            buf = io.BytesIO()
            self.df.to_parquet(buf, index=False)
            return buf.getvalue()
        return self._once("parquet", make)


def content_key(source) -> str:
    """The cache key of a store: its bytes' sha256 (an upload), or path, time and size."""
    if isinstance(source, bytes):
        return "sha256:" + hashlib.sha256(source).hexdigest()
    stat = Path(source).stat()
    return f"file:{Path(source).resolve()}:{stat.st_mtime_ns}:{stat.st_size}"


def stored(source) -> Stored:
    """The store at `source`, read and aggregated once per content (LRU of CACHED_STORES)."""
    key = content_key(source)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    made = Stored(source)  # outside the lock: another session's store need not wait
    with _cache_lock:
        _cache[key] = _cache.get(key, made)
        _cache.move_to_end(key)
        while len(_cache) > CACHED_STORES:
            _cache.popitem(last=False)
        return _cache[key]


def opening_index(values: list, axis: str) -> int:
    """The slice a picker opens on: the paper default's value of that setting where the sweep
    has it (the structure-strength sweep opened on its no-structure slice, the opposite of the
    paper's story), else the first."""
    default = getattr(Config(), axis, None)
    return next((i for i, v in enumerate(values) if default is not None and v == default), 0)


def per_seed(df: pd.DataFrame, axes: list[str], metric: str, method: str,
             minus: str | None = None) -> pd.DataFrame:
    """axes + seed + value: one method's metric, or its difference to `minus` per seed."""
    cols = [*axes, "seed"]
    a = df[df.method == method].set_index(cols)[metric].astype(float)
    if minus is None:
        return a.rename("value").reset_index()
    b = df[df.method == minus].set_index(cols)[metric].astype(float)
    return (a - b).dropna().rename("value").reset_index()


def over_seeds(values: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean, standard deviation and count over seeds (and any axis not in `by`)."""
    g = values.groupby(by, dropna=False)["value"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def whole_setting(df: pd.DataFrame, axes: list[str], setting: dict) -> dict:
    """`setting` with the values of the axes tied to it (D = d), read from the stored rows."""
    row = fix_others(df, setting).iloc[0]
    return {a: setting.get(a, row[a].item() if hasattr(row[a], "item") else row[a])
            for a in axes}


def fix_others(values: pd.DataFrame, fixed: dict) -> pd.DataFrame:
    """Keep the rows where each of the other axes has its chosen value."""
    for name, value in fixed.items():
        values = values[values[name] == value]
    return values


def cell_config(spec: dict, setting: dict):
    """The Config of a cell (first seed) from the stored spec: preset, fixed values, setting."""
    from engine.presets import get

    values = {**get(spec.get("preset", "quick-parity")).settings, **spec.get("fixed", {}),
              **setting, "seed": spec.get("seed", 0)}
    return from_dict(values)


def cell_line(spec: dict, setting: dict, methods: tuple[str, ...]) -> str:
    """The Markdown line under a clicked cell: its links, or in one line why it cannot open
    (a stored spec whose settings are each allowed may still break a relation: k=4, parity)."""
    where = markdown_plain(", ".join(f"{k}={v}" for k, v in setting.items()), 300)
    try:
        explore, compare = cell_links(spec, setting, methods)
    except ConfigError as err:
        return f"**{where}** cannot open: {markdown_plain(str(err), 300)}"
    return f"**{where}**: [Open in Explore]({explore}) · [Open in Compare]({compare})"


def cell_links(spec: dict, setting: dict, methods: tuple[str, ...]) -> tuple[str, str]:
    """Relative links that open a cell in Explore and in Compare (ui.state's URL format)."""
    cfg = cell_config(spec, setting)
    explore = url_params(cfg)
    compare = url_params(cfg, methods)
    return "/?" + urlencode(explore), "/compare?" + urlencode(compare)


def world_config(df: pd.DataFrame) -> Config | None:
    """The Config of the sweep's first row (its world and procedure), None if it no longer
    validates (a store from an older engine)."""
    try:
        values = json.loads(df.config.iloc[0])
        return from_dict(values) if isinstance(values, dict) else None
    except (ConfigError, ValueError, TypeError, RecursionError):  # checked on open; defence
        return None


def method_labels(df: pd.DataFrame) -> dict[str, str]:
    """method → its label in the sweep's procedure (the AZL world's network is the ResNet)."""
    cfg = world_config(df)
    methods = dict.fromkeys(df["method"])
    if cfg is None:
        return {m: LABELS.get(m, m) for m in methods}
    return {m: method_label(cfg, m) for m in methods}


def levels(df: pd.DataFrame, metric: str) -> list[tuple[float, str]]:
    """The reference levels the sweep's procedure draws for this metric (resnet3's kα²)."""
    cfg = world_config(df)
    level = None if cfg is None else procedure_levels(cfg).get(metric)
    return [level] if level else []


def point_setting(df: pd.DataFrame, axes: list[str], x: str, value, fixed: dict) -> dict:
    """The whole setting of a point of a one-axis sweep's lines (x = value, the fixed axes)."""
    return whole_setting(df, axes, {x: value, **fixed})


def claim_pair(methods) -> tuple[str, str] | None:
    """(method, baseline) of the first claim a procedure's record makes (its Compare headlines,
    e.g. the network against the NTK) whose two methods the sweep ran, or None."""
    for record in RECORDS.values():
        for _, a, b in record.table.headlines:
            if a in methods and b in methods:
                return a, b
    return None
